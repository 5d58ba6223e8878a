// The shape of a planned node: the interpreter's handlers index a node's
// inputs, outputs, blocks and block parameters and returns as its family
// implies (prim::If: one bool, two blocks; prim::Loop: int, bool, carried
// values; ...). Graphs from IR text can have any shape, so GraphPlan checks
// it once per node, here, and the handlers need not.
#ifndef GRAPHPROF_INTERPRETER_NODE_SHAPE_H_
#define GRAPHPROF_INTERPRETER_NODE_SHAPE_H_

#include <torch/csrc/jit/ir/ir.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "interpreter/graph_plan.h"

namespace graphprof {

// OK, or InvalidArgument "<where>: malformed: <the shape the family needs>".
// `plan` is the node's classified plan (family, op, slice bounds).
absl::Status CheckNodeShape(const torch::jit::Node& node, const NodePlan& plan, absl::string_view where);

}  // namespace graphprof

#endif  // GRAPHPROF_INTERPRETER_NODE_SHAPE_H_
