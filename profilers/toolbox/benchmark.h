// Benchmark: compare several callables or graphs on the same inputs
// (torch_geometric.profile.benchmark in C++): warm-up steps, timed steps,
// forward and optionally backward time, totals or per step, as a table.
// graphprof's own benchmarks (bench/) use it too.
//
// Candidates run interleaved, step by step, and the order rotates every step
// (A B C, B C A, C A B, ...), so machine noise and cache effects hit them
// alike. A candidate's backward pass, when asked for, runs
// `output.backward(randn_like(output))` on its (tensor) output. Each case may
// carry untimed set-up and tear-down around every step (e.g. switching
// another profiler on and off).
//
//   std::vector<graphprof::BenchmarkCase> cases = {
//       graphprof::ModuleCase("native", module, inputs),
//       graphprof::InterpreterCase("interpreter", plan, inputs)};
//   auto rows = graphprof::Benchmark(cases, options);
//   std::cout << graphprof::RenderBenchmark(*rows, options);
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_BENCHMARK_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_BENCHMARK_H_

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/report/stats.h"
#include "profilers/time_source.h"

namespace graphprof {

struct BenchmarkCase {
  std::string name;  // the row's name: non-empty, unique among the cases
  // One forward step; returns the output (used for the backward pass). It
  // gets the step number (warm-up steps first), so a case can vary its
  // arguments per step.
  std::function<absl::StatusOr<c10::IValue>(int step)> forward;
  // Untimed, around every step of this case (optional).
  std::function<void()> before;
  std::function<void()> after;
};

struct BenchmarkOptions {
  int warmup = 10;  // at least 1: the first steps pay one-off costs
  int steps = 100;  // timed steps, at least 1
  bool backward = false;  // also time output.backward(randn_like(output))
  bool per_step = false;  // RenderBenchmark: per-step times instead of totals
  std::shared_ptr<TimeSource> clock;  // null: SteadyClock
  // Progress for long runs: called after every step of all cases with
  // (done, total) steps, warm-up included.
  std::function<void(int done, int total)> progress;
};

struct BenchmarkRow {
  std::string name;
  Summary forward_ns;   // over the timed steps, per step
  Summary backward_ns;  // count 0 without backward
  // Each timed step's forward time, in step order: steps of different cases
  // with one index ran side by side, so their differences pair up.
  std::vector<int64_t> forward_steps_ns;
  // Seconds: totals over the steps, or per step (mean) with per_step.
  double forward_s = 0;
  double backward_s = 0;
  double total_s() const { return forward_s + backward_s; }
};

// Fails with the case's name if a step fails (or has no differentiable
// output when backward is asked for); before running, on non-positive
// warm-up or step counts, no cases, and a case without a name or with the
// name of another.
absl::StatusOr<std::vector<BenchmarkRow>> Benchmark(const std::vector<BenchmarkCase>& cases,
                                                    const BenchmarkOptions& options);

std::string RenderBenchmark(const std::vector<BenchmarkRow>& rows, const BenchmarkOptions& options);

// module.forward(inputs) as a case (exceptions become a Status).
BenchmarkCase ModuleCase(std::string name, torch::jit::Module module, std::vector<c10::IValue> inputs);
// An Interpreter over `plan` as a case.
BenchmarkCase InterpreterCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                              std::vector<c10::IValue> inputs);
// A size sweep: `inputs(step)` makes each step's arguments (outside the timed
// region; steps count from 0, warm-up steps first).
BenchmarkCase ModuleSweepCase(std::string name, torch::jit::Module module,
                              std::function<std::vector<c10::IValue>(int step)> inputs);
BenchmarkCase InterpreterSweepCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                                   std::function<std::vector<c10::IValue>(int step)> inputs);
// A plain callable (no output) as a case.
BenchmarkCase CallableCase(std::string name, std::function<void()> fn);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_BENCHMARK_H_
