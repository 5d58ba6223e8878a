// What a node is, in terms that reports, diffs and people can key on. Plain
// data (no LibTorch types), so reports can be read and rendered without a graph.
#ifndef GRAPHPROF_IR_NODE_IDENTITY_H_
#define GRAPHPROF_IR_NODE_IDENTITY_H_

#include <string>
#include <vector>

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
  // Source location: the user's "file.py:12" when known (archives saved by
  // torch.jit.save carry it), else as below; "<function>:12" for source
  // given as a string.
  std::string source;
  // Where the node is in the TorchScript code it was compiled from: for a
  // loaded archive, the archive's generated code ("code/__torch__/m.py:35").
  // Empty when it is the same as `source`.
  std::string archive_source;
  // Short readable label: "<module>/<kind without namespace>", e.g. "layer1.0.conv1/conv2d".
  std::string label;
  // A row that computes the nodes of several modules (a kernel a compiler
  // fused): their module paths, distinct, in the order of their first node;
  // `module` is then their deepest common module. Empty for a row of one
  // module (every node of a graph). Diffs pair by it (report_diff.h).
  std::vector<std::string> fused_modules;
};

}  // namespace graphprof

#endif  // GRAPHPROF_IR_NODE_IDENTITY_H_
