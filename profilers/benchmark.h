// Benchmark: compare several callables or graphs on the same inputs
// (torch_geometric.profile.benchmark in C++): warm-up steps, timed steps,
// forward and optionally backward time, totals or per step, as a table.
//
// Candidates run interleaved, step by step (A B C A B C ...), so machine noise
// affects them alike. A candidate's backward pass, when asked for, runs
// `output.backward(randn_like(output))` on its (tensor) output.
//
//   std::vector<graphprof::BenchmarkCase> cases = {
//       graphprof::ModuleCase("native", module, inputs),
//       graphprof::InterpreterCase("interpreter", plan, inputs)};
//   auto rows = graphprof::Benchmark(cases, options);
//   std::cout << graphprof::RenderBenchmark(*rows, options);
#ifndef GRAPHPROF_PROFILERS_BENCHMARK_H_
#define GRAPHPROF_PROFILERS_BENCHMARK_H_

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/time_source.h"

namespace graphprof {

struct BenchmarkCase {
  std::string name;
  // One forward step; returns the output (used for the backward pass).
  std::function<absl::StatusOr<c10::IValue>()> forward;
};

struct BenchmarkOptions {
  int warmup = 10;
  int steps = 100;
  bool backward = false;  // also time output.backward(randn_like(output))
  bool per_step = false;  // report per-step times instead of totals
  std::shared_ptr<TimeSource> clock;  // null: SteadyClock
};

struct BenchmarkRow {
  std::string name;
  double forward_s = 0;   // total over steps (per step with per_step)
  double backward_s = 0;  // 0 without backward
  double total_s() const { return forward_s + backward_s; }
};

// Fails with the case's name if a step fails (or has no differentiable
// output when backward is asked for).
absl::StatusOr<std::vector<BenchmarkRow>> Benchmark(const std::vector<BenchmarkCase>& cases,
                                                    const BenchmarkOptions& options);

std::string RenderBenchmark(const std::vector<BenchmarkRow>& rows, const BenchmarkOptions& options);

// module.forward(inputs) as a case (exceptions become a Status).
BenchmarkCase ModuleCase(std::string name, torch::jit::Module module, std::vector<c10::IValue> inputs);
// An Interpreter over `plan` as a case.
BenchmarkCase InterpreterCase(std::string name, std::shared_ptr<const GraphPlan> plan,
                              std::vector<c10::IValue> inputs);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_BENCHMARK_H_
