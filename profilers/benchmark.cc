#include "profilers/benchmark.h"

#include <torch/csrc/autograd/autograd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "interpreter/interpreter.h"
#include "ir/status_util.h"

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
  if (options.steps < 1) return absl::InvalidArgumentError("steps must be at least 1");
  if (options.warmup < 0) return absl::InvalidArgumentError("warmup must not be negative");
  std::shared_ptr<TimeSource> clock = options.clock ? options.clock : DefaultTimeSource();
  std::vector<BenchmarkRow> rows(cases.size());
  std::vector<int64_t> forward_ns(cases.size(), 0), backward_ns(cases.size(), 0);
  for (int step = 0; step < options.warmup + options.steps; ++step) {
    const bool timed = step >= options.warmup;
    for (size_t i = 0; i < cases.size(); ++i) {
      const int64_t t0 = clock->NowNs();
      absl::StatusOr<c10::IValue> output = cases[i].forward();
      const int64_t t1 = clock->NowNs();
      if (!output.ok()) return Annotate(output.status(), cases[i].name);
      if (timed) forward_ns[i] += t1 - t0;
      if (options.backward) {
        const int64_t b0 = clock->NowNs();
        absl::Status status = Backward(*output);
        const int64_t b1 = clock->NowNs();
        if (!status.ok()) return Annotate(status, cases[i].name);
        if (timed) backward_ns[i] += b1 - b0;
      }
    }
  }
  const double divisor = options.per_step ? options.steps : 1;
  for (size_t i = 0; i < cases.size(); ++i) {
    rows[i].name = cases[i].name;
    rows[i].forward_s = static_cast<double>(forward_ns[i]) / 1e9 / divisor;
    rows[i].backward_s = static_cast<double>(backward_ns[i]) / 1e9 / divisor;
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
    absl::StrAppendFormat(&out, "%-*s  %12s  %8s   (seconds, %s)\n", width, "Name", "Forward", "Ratio", unit_text);
    for (const BenchmarkRow& row : rows) {
      const double ratio = rows.front().forward_s > 0 ? row.forward_s / rows.front().forward_s : 0;
      absl::StrAppendFormat(&out, "%-*s  %12.6f  %8.3f\n", width, row.name, row.forward_s, ratio);
    }
  }
  return out;
}

BenchmarkCase ModuleCase(std::string name, torch::jit::Module module, std::vector<c10::IValue> inputs) {
  return BenchmarkCase{std::move(name), [module, inputs]() mutable -> absl::StatusOr<c10::IValue> {
                         try {
                           return module.forward(inputs);
                         } catch (const std::exception& e) {
                           return StatusFromException(absl::StatusCode::kInvalidArgument, "forward", e);
                         }
                       }};
}

BenchmarkCase InterpreterCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                              std::vector<c10::IValue> inputs) {
  auto interpreter = std::make_shared<Interpreter>(std::move(plan));
  return BenchmarkCase{std::move(name), [interpreter, inputs]() { return interpreter->Run(inputs); }};
}

}  // namespace graphprof
