// CheckNodeShape: the arity and block structure each node family's handler
// relies on, checked once when the plan is built (graph_plan.cc calls it
// after classifying the node).
#include "interpreter/node_shape.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

namespace graphprof {

namespace jit = torch::jit;

absl::Status CheckNodeShape(const jit::Node& node, const NodePlan& plan, absl::string_view where) {
  const size_t in = node.inputs().size();
  const size_t out = node.outputs().size();
  auto malformed = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": malformed: ", why));
  };
  auto is = [&](size_t i, c10::TypeKind kind) { return node.input(i)->type()->kind() == kind; };
  switch (plan.family) {
    case NodeFamily::kIf: {
      const std::string shape = absl::StrCat("prim::If takes a bool and has two blocks () -> (", out, " values)");
      if (in != 1 || !is(0, c10::TypeKind::BoolType) || node.blocks().size() != 2) return malformed(shape);
      for (const jit::Block* block : node.blocks()) {
        if (!block->inputs().empty() || block->outputs().size() != out) return malformed(shape);
      }
      return absl::OkStatus();
    }
    case NodeFamily::kLoop: {
      const std::string shape = absl::StrCat(
          "prim::Loop takes an int, a bool and its carried values, returns as many (", out,
          " here), and has one block (int, carried) -> (bool, carried)");
      if (in < 2 || !is(0, c10::TypeKind::IntType) || !is(1, c10::TypeKind::BoolType) || node.blocks().size() != 1) {
        return malformed(shape);
      }
      const jit::Block* body = node.blocks()[0];
      if (out != in - 2 || body->inputs().size() != in - 1 || body->outputs().size() != in - 1) return malformed(shape);
      return absl::OkStatus();
    }
    case NodeFamily::kAttribute:
      if (plan.op == NodeOp::kGetAttr ? in != 1 || out != 1 : in != 2 || out != 0) {
        return malformed("prim::GetAttr takes an object and returns a value; prim::SetAttr takes both");
      }
      return absl::OkStatus();
    case NodeFamily::kContainer: {
      const bool one_input = plan.op == NodeOp::kListUnpack || plan.op == NodeOp::kTupleUnpack ||
                             plan.op == NodeOp::kTupleSlice || plan.op == NodeOp::kIsInstance;
      const bool one_output = plan.op != NodeOp::kListUnpack && plan.op != NodeOp::kTupleUnpack;
      if ((one_input && in != 1) || (one_output && out != 1)) {
        return malformed(absl::StrCat(node.kind().toQualString(), " has ", in, " inputs and ", out, " outputs"));
      }
      if (plan.op == NodeOp::kDictConstruct && in % 2 != 0) return malformed("prim::DictConstruct takes key, value pairs");
      if (plan.op == NodeOp::kCreateObject && in != 0) return malformed("prim::CreateObject takes no inputs");
      if (plan.op == NodeOp::kTupleSlice && (plan.slice_begin < 0 || plan.slice_end < plan.slice_begin)) {
        return malformed("prim::TupleSlice needs 0 <= beg <= end");
      }
      return absl::OkStatus();
    }
    case NodeFamily::kRaise:
      if (in == 0) return malformed("prim::RaiseException takes a message");
      return absl::OkStatus();
    case NodeFamily::kWarn:
      if (in == 0 || out != 0) return malformed("aten::warn takes a message (and a stack level) and returns nothing");
      return absl::OkStatus();
    case NodeFamily::kFork: {
      if (out != 1 || node.output()->type()->kind() != c10::TypeKind::FutureType) {
        return malformed("prim::fork returns one Future");
      }
      const std::shared_ptr<jit::Graph>& sub = node.g(jit::attr::Subgraph);
      if (sub->inputs().size() != in || sub->outputs().size() != 1) {
        return malformed("prim::fork's subgraph takes the fork's inputs and returns one value");
      }
      return absl::OkStatus();
    }
    case NodeFamily::kWait:
      if (in != 1 || out != 1 || node.input(0)->type()->kind() != c10::TypeKind::FutureType) {
        return malformed("aten::wait takes a Future and returns its value");
      }
      return absl::OkStatus();
    case NodeFamily::kConstant:  // node.output() checked there is one
    case NodeFamily::kOperator:  // its schema matched; the run checks what it returns
    case NodeFamily::kCall:      // the callee checks its arguments; the run what it returns
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace graphprof
