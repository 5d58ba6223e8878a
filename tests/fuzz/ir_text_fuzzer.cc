// Fuzzes the --ir path up to the point of running: IR text -> ParseGraph ->
// PrepareGraph -> GraphPlan::Build. The graph is never run (a fuzzed graph
// could allocate or loop without bound).
#include <cstddef>
#include <cstdint>
#include <string>

#include "interpreter/graph_plan.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = graphprof::ParseGraph(text);
  if (!graph.ok()) return 0;
  absl::StatusOr<graphprof::PreparedGraph> prepared = graphprof::PrepareGraph(**graph, "fuzz");
  if (!prepared.ok()) return 0;
  absl::StatusOr<std::shared_ptr<const graphprof::GraphPlan>> plan =
      graphprof::GraphPlan::Build(*std::move(prepared));
  return 0;
}
