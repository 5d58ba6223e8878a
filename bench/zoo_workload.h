// A zoo model ready for benchmarking: module, shared plan and seeded inputs.
#ifndef GRAPHPROF_BENCH_ZOO_WORKLOAD_H_
#define GRAPHPROF_BENCH_ZOO_WORKLOAD_H_

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "interpreter/graph_plan.h"
#include "ir/prepared_graph.h"
#include "tools/zoo/zoo.h"

namespace graphprof::bench {

struct ZooWorkload {
  torch::jit::Module module;
  std::shared_ptr<const GraphPlan> plan;
  std::vector<c10::IValue> inputs;
};

// Exits with a message if the model cannot be built or planned.
inline ZooWorkload LoadZooWorkload(const std::string& name) {
  absl::StatusOr<ZooModel> model = MakeZooModel(name);
  absl::StatusOr<PreparedGraph> prepared =
      model.ok() ? PrepareMethod(model->module) : absl::StatusOr<PreparedGraph>(model.status());
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan =
      prepared.ok() ? GraphPlan::Build(*prepared) : prepared.status();
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), plan.status().ToString().c_str());
    std::exit(1);
  }
  return ZooWorkload{model->module, *plan, model->ExampleInputs(0)};
}

}  // namespace graphprof::bench

#endif  // GRAPHPROF_BENCH_ZOO_WORKLOAD_H_
