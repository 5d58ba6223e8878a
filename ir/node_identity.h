// What a node is, in terms that reports, diffs and people can key on.
#ifndef GRAPHPROF_IR_NODE_IDENTITY_H_
#define GRAPHPROF_IR_NODE_IDENTITY_H_

#include <torch/script.h>

#include <string>

namespace graphprof {

struct NodeIdentity {
  // Position in execution order over the whole graph, nested blocks included
  // (a prim::If or prim::Loop comes before the nodes of its blocks).
  int id = -1;
  // Id of the enclosing prim::If / prim::Loop, or -1 at top level.
  int parent = -1;
  // Block nesting depth: 0 at top level.
  int depth = 0;
  // Qualified kind, e.g. "aten::conv2d".
  std::string kind;
  // Operator schema, e.g. "aten::relu(Tensor self) -> Tensor"; empty if none.
  std::string schema;
  // Module path from the inlined call stack, e.g. "layer1.0.conv1"; empty for
  // the root module.
  std::string module;
  // Source location: "file.py:12", or "<function>:12" for source without a file.
  std::string source;
  // Short readable label: "<module>/<kind without namespace>", e.g. "layer1.0.conv1/conv2d".
  std::string label;
};

// Everything but id, parent and depth (those depend on the whole graph).
NodeIdentity IdentifyNode(const torch::jit::Node& node);

// "layer1.0.conv1" from the node's inlined call stack ("" at the root).
std::string ModulePath(const torch::jit::Node& node);

// "file.py:12", "<function>:12" or "" when the node has no source range.
std::string SourceLocation(const torch::jit::Node& node);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_NODE_IDENTITY_H_
