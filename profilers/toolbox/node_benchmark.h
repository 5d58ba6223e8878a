// BenchmarkNodes: a benchmark's time split by graph node. Where Benchmark
// times whole steps of several candidates, BenchmarkNodes runs one graph for
// the same warm-up and steps and says where each step's time went: forward
// per node, and with options.backward the backward per node (the autograd
// functions each node created; ProfileOptions::backward), as a Report, so
// every view and rendering applies (by node, kind, module, shape).
//
//   BenchmarkOptions options;
//   options.steps = 20;
//   options.backward = true;
//   absl::StatusOr<Report> split = BenchmarkNodes(plan, inputs, options);
//   std::cout << RenderTable(*split, *MakeView(*split, {GroupBy::kModule}));
//
// Unlike Benchmark's backward (output.backward(randn_like(output))), the
// loss is the sum of the floating outputs, as profile_graph --backward.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_NODE_BENCHMARK_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_NODE_BENCHMARK_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/report/report.h"
#include "profilers/toolbox/benchmark.h"

namespace graphprof {

absl::StatusOr<Report> BenchmarkNodes(std::shared_ptr<const GraphPlan> plan, const std::vector<c10::IValue>& inputs,
                                      const BenchmarkOptions& options);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_NODE_BENCHMARK_H_
