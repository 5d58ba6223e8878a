// The program JSON's graph as a torch::jit::Graph (exported_program.h has
// the rules). Private to //ir/export.
#ifndef GRAPHPROF_IR_EXPORT_PROGRAM_GRAPH_H_
#define GRAPHPROF_IR_EXPORT_PROGRAM_GRAPH_H_

#include <nlohmann/json.hpp>
#include <torch/script.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/prepared_graph.h"

namespace graphprof::export_internal {

// Thrown for anything of the program graphprof cannot take; the message is
// one sentence.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The JSON value at `key` of `j`, or Refused naming `what` and the key.
const nlohmann::json& Need(const nlohmann::json& j, const char* key, const std::string& what);

// c10::ScalarType of the export schema's ScalarType number (7: float32).
c10::ScalarType ScalarTypeOf(int64_t exported);

// How deep torch.ops.higher_order.cond may nest (deeper: Refused). Real
// programs nest a few levels; each level costs a copy of the names in scope.
inline constexpr int kMaxCondDepth = 256;

// A parameter, buffer or constant by its name (fqn), or Refused.
using WeightLookup = std::function<at::Tensor(const std::string& name, const std::string& kind)>;

struct BuiltGraph {
  std::shared_ptr<torch::jit::Graph> graph;
  std::unordered_map<const torch::jit::Node*, NodeOrigin> origins;
  std::vector<std::string> user_inputs;  // graph input names, in order
  int64_t parameters = 0;                // elements of the parameters
  // User inputs the program writes in place: "x (node add_, aten::add_)".
  std::vector<std::string> written_inputs;
};

// graph_module (its "graph" and "signature") as a graph.
BuiltGraph BuildProgramGraph(const nlohmann::json& graph_module, const WeightLookup& weights);

}  // namespace graphprof::export_internal

#endif  // GRAPHPROF_IR_EXPORT_PROGRAM_GRAPH_H_
