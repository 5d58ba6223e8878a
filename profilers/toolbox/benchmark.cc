#include "profilers/toolbox/benchmark.h"

#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "interpreter/interpreter.h"

namespace graphprof {
namespace {

absl::Status Backward(const c10::IValue& output) {
  if (!output.isTensor() || !output.toTensor().requires_grad()) {
    return absl::FailedPreconditionError("backward needs a tensor output that requires grad");
  }
  const at::Tensor& out = output.toTensor();
  try {
    torch::autograd::backward({out}, {torch::randn_like(out)});
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, "backward", e);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<BenchmarkRow>> Benchmark(const std::vector<BenchmarkCase>& cases,
                                                    const BenchmarkOptions& options) {
  if (options.steps < 1) return absl::InvalidArgumentError(absl::StrCat("steps must be at least 1 (got ", options.steps, ")"));
  if (options.warmup < 1) {
    return absl::InvalidArgumentError(absl::StrCat("warmup must be at least 1 (got ", options.warmup, ")"));
  }
  if (cases.empty()) return absl::InvalidArgumentError("no cases to benchmark");
  std::set<std::string> names;
  for (size_t i = 0; i < cases.size(); ++i) {
    const BenchmarkCase& c = cases[i];
    if (c.name.empty()) return absl::InvalidArgumentError(absl::StrCat("case ", i, " has no name"));
    if (!names.insert(c.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("two cases are named '", c.name, "' (rows are told apart by name)"));
    }
    if (!c.forward) return absl::InvalidArgumentError(absl::StrCat(c.name, ": no forward step"));
  }
  std::shared_ptr<TimeSource> clock = options.clock ? options.clock : DefaultTimeSource();
  const size_t n = cases.size();
  std::vector<std::vector<int64_t>> forward_ns(n), backward_ns(n);
  const int total_steps = options.warmup + options.steps;
  for (int step = 0; step < total_steps; ++step) {
    const bool timed = step >= options.warmup;
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + static_cast<size_t>(step)) % n;
      const BenchmarkCase& c = cases[i];
      if (c.before) c.before();
      const int64_t t0 = clock->NowNs();
      absl::StatusOr<c10::IValue> output = c.forward(step);
      const int64_t t1 = clock->NowNs();
      if (!output.ok()) {
        if (c.after) c.after();
        return Annotate(output.status(), c.name);
      }
      if (timed) forward_ns[i].push_back(t1 - t0);
      if (options.backward) {
        const int64_t b0 = clock->NowNs();
        absl::Status status = Backward(*output);
        const int64_t b1 = clock->NowNs();
        if (!status.ok()) {
          if (c.after) c.after();
          return Annotate(status, c.name);
        }
        if (timed) backward_ns[i].push_back(b1 - b0);
      }
      if (c.after) c.after();
    }
    if (options.progress) options.progress(step + 1, total_steps);
  }
  std::vector<BenchmarkRow> rows(n);
  for (size_t i = 0; i < n; ++i) {
    BenchmarkRow& row = rows[i];
    row.name = cases[i].name;
    row.forward_ns = Summarize(forward_ns[i]);
    row.backward_ns = Summarize(backward_ns[i]);
    row.forward_steps_ns = std::move(forward_ns[i]);
    const double scale = options.per_step ? row.forward_ns.mean / 1e9 : row.forward_ns.total / 1e9;
    row.forward_s = scale;
    row.backward_s = options.per_step ? row.backward_ns.mean / 1e9 : row.backward_ns.total / 1e9;
  }
  return rows;
}

std::string RenderBenchmark(const std::vector<BenchmarkRow>& rows, const BenchmarkOptions& options) {
  size_t width = 4;
  for (const BenchmarkRow& row : rows) width = std::max(width, row.name.size());
  std::string unit_text = options.per_step ? "per step" : absl::StrCat("total over ", options.steps, " steps");
  std::string out;
  if (options.backward) {
    absl::StrAppendFormat(&out, "%-*s  %12s  %12s  %12s   (seconds, %s)\n", width, "Name", "Forward", "Backward",
                          "Total", unit_text);
    for (const BenchmarkRow& row : rows) {
      absl::StrAppendFormat(&out, "%-*s  %12.6f  %12.6f  %12.6f\n", width, row.name, row.forward_s, row.backward_s,
                            row.total_s());
    }
  } else {
    absl::StrAppendFormat(&out, "%-*s  %12s  %8s  %12s   (seconds, %s; ratio of medians)\n", width, "Name", "Forward",
                          "Ratio", "Median step", unit_text);
    for (const BenchmarkRow& row : rows) {
      const double base = rows.front().forward_ns.median;
      const double ratio = base > 0 ? row.forward_ns.median / base : 0;
      absl::StrAppendFormat(&out, "%-*s  %12.6f  %8.3f  %12.6f\n", width, row.name, row.forward_s, ratio,
                            row.forward_ns.median / 1e9);
    }
  }
  return out;
}

BenchmarkCase ModuleCase(std::string name, torch::jit::Module module, std::vector<c10::IValue> inputs) {
  return ModuleSweepCase(std::move(name), std::move(module), [inputs](int) { return inputs; });
}

namespace {

// A case whose arguments `inputs(step)` makes in `before`, outside the timed
// region; `run` is the timed call on them.
BenchmarkCase SweepCase(std::string name,
                        std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)> run,
                        std::function<std::vector<c10::IValue>(int step)> inputs) {
  auto next = std::make_shared<std::vector<c10::IValue>>();
  auto step_of = std::make_shared<int>(0);
  BenchmarkCase c;
  c.name = std::move(name);
  c.before = [next, step_of, inputs] { *next = inputs((*step_of)++); };
  c.forward = [run, next](int) { return run(*next); };
  return c;
}

}  // namespace

BenchmarkCase ModuleSweepCase(std::string name, torch::jit::Module module,
                              std::function<std::vector<c10::IValue>(int step)> inputs) {
  auto run = [module](const std::vector<c10::IValue>& args) mutable -> absl::StatusOr<c10::IValue> {
    try {
      return module.forward(args);
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, "forward", e);
    }
  };
  return SweepCase(std::move(name), std::move(run), std::move(inputs));
}

BenchmarkCase InterpreterSweepCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                                   std::function<std::vector<c10::IValue>(int step)> inputs) {
  auto interpreter = std::make_shared<Interpreter>(std::move(plan));
  auto run = [interpreter](const std::vector<c10::IValue>& args) { return interpreter->Run(args); };
  return SweepCase(std::move(name), std::move(run), std::move(inputs));
}

BenchmarkCase InterpreterCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                              std::vector<c10::IValue> inputs) {
  auto interpreter = std::make_shared<Interpreter>(std::move(plan));
  BenchmarkCase c;
  c.name = std::move(name);
  c.forward = [interpreter, inputs](int) { return interpreter->Run(inputs); };
  return c;
}

BenchmarkCase CallableCase(std::string name, std::function<void()> fn) {
  BenchmarkCase c;
  c.name = std::move(name);
  c.forward = [fn](int) -> absl::StatusOr<c10::IValue> {
    fn();
    return c10::IValue();
  };
  return c;
}

}  // namespace graphprof
