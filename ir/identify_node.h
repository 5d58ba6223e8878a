// NodeIdentity of a torch::jit::Node: kind, schema, module path, source.
#ifndef GRAPHPROF_IR_IDENTIFY_NODE_H_
#define GRAPHPROF_IR_IDENTIFY_NODE_H_

#include <torch/script.h>

#include <string>
#include <unordered_map>

#include "ir/module_paths.h"
#include "ir/node_identity.h"

namespace graphprof {

// Schema texts already made, per operator: identifying the nodes of one
// graph with one cache prints each operator's schema once.
using SchemaTexts = std::unordered_map<const torch::jit::Operator*, std::string>;

// Everything but id, parent and depth (those depend on the whole graph).
// `paths` (may be null: bare graphs) names the module as named_modules() does;
// `schemas` (may be null) is a cache that lives no longer than the graph.
NodeIdentity IdentifyNode(const torch::jit::Node& node, const ModulePaths* paths = nullptr,
                          SchemaTexts* schemas = nullptr);

// Where the user's code made this node, as "file.py:12":
//   * archives saved by torch.jit.save carry the original Python source
//     (*.py.debug_pkl); when the node's own line is in PyTorch's code (F.conv2d
//     inside nn.Conv2d), the innermost call site outside PyTorch is taken
//     (the model's `self.conv1(x)`), for traced models from the recorded
//     Python stack;
//   * otherwise the TorchScript code's location ("code/__torch__/m.py:35",
//     "<function>:12" for source given as a string); "" without any.
// Paths are shortened after site-packages/ or dist-packages/.
std::string UserSource(const torch::jit::Node& node);

// The node's location in the TorchScript code it was compiled from (for a
// loaded archive: the archive's generated code); "" without one.
std::string CodeSource(const torch::jit::Node& node);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_IDENTIFY_NODE_H_
