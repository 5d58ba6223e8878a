// NodeIdentity of a torch::jit::Node: kind, schema, module path, source.
#ifndef GRAPHPROF_IR_IDENTIFY_NODE_H_
#define GRAPHPROF_IR_IDENTIFY_NODE_H_

#include <torch/script.h>

#include <string>

#include "ir/node_identity.h"

namespace graphprof {

// Everything but id, parent and depth (those depend on the whole graph).
NodeIdentity IdentifyNode(const torch::jit::Node& node);

// "layer1.0.conv1" from the node's inlined call stack ("" at the root).
std::string ModulePath(const torch::jit::Node& node);

// "file.py:12", "<function>:12" or "" when the node has no source range.
std::string SourceLocation(const torch::jit::Node& node);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_IDENTIFY_NODE_H_
