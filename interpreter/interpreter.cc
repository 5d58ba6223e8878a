#include "interpreter/interpreter.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "ir/ivalue_util.h"
#include "ir/status_util.h"

namespace graphprof {
namespace {

// Cheap checks for the common input types; the general subtype test otherwise.
bool MatchesType(const c10::IValue& value, const c10::Type& type) {
  switch (type.kind()) {
    case c10::TypeKind::TensorType: return value.isTensor();
    case c10::TypeKind::IntType: return value.isInt();
    case c10::TypeKind::FloatType: return value.isDouble();
    case c10::TypeKind::BoolType: return value.isBool();
    case c10::TypeKind::StringType: return value.isString();
    case c10::TypeKind::AnyType: return true;
    default: return value.type()->isSubtypeOf(type);
  }
}

}  // namespace

Interpreter::Interpreter(std::shared_ptr<const GraphPlan> plan) : plan_(std::move(plan)) {
  values_.resize(plan_->num_slots());
  stack_.reserve(plan_->max_stack() + 16);
}

absl::Status Interpreter::BindInputs(std::vector<c10::IValue>& inputs) {
  const size_t expected = plan_->num_user_inputs();
  if (inputs.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(plan_->name(), " takes ", expected, " input",
                                                   expected == 1 ? "" : "s", " (",
                                                   plan_->DescribeUserInputs(), ") but got ",
                                                   inputs.size()));
  }
  const BlockPlan& root = plan_->root();
  const auto graph_inputs = plan_->graph().inputs();
  size_t first = 0;
  if (plan_->self().has_value()) {
    values_[root.params[0]] = *plan_->self();
    first = 1;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const torch::jit::Value* param = graph_inputs[first + i];
    if (!MatchesType(inputs[i], *param->type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          plan_->name(), ": input ", i + 1, " (", param->debugNameBase(), ") must be ",
          param->type()->annotation_str(), " but got ", DescribeIValue(inputs[i])));
    }
    values_[root.params[first + i]] = std::move(inputs[i]);
  }
  return absl::OkStatus();
}

void Interpreter::ClearFrame() {
  for (c10::IValue& value : values_) value = c10::IValue();
  stack_.clear();
}

absl::StatusOr<c10::IValue> Interpreter::Run(std::vector<c10::IValue> inputs) {
  absl::Status status = BindInputs(inputs);
  if (status.ok()) {
    try {
      status = RunBlock(plan_->root());
    } catch (const std::exception& e) {
      status = StatusFromException(absl::StatusCode::kInternal, plan_->name(), e);
    }
  }
  if (!status.ok()) {
    ClearFrame();
    return status;
  }
  const BlockPlan& root = plan_->root();
  if (root.returns.size() == 1) return TakeExit(root.returns[0]);
  std::vector<c10::IValue> outputs;
  outputs.reserve(root.returns.size());
  for (const BlockExit& exit : root.returns) outputs.push_back(TakeExit(exit));
  if (outputs.empty()) return c10::IValue();
  return c10::IValue(c10::ivalue::Tuple::create(std::move(outputs)));
}

absl::Status Interpreter::RunBlock(const BlockPlan& block) {
  for (Slot slot : block.release_on_entry) values_[slot] = c10::IValue();
  const std::vector<NodePlan>& nodes = plan_->nodes();
  for (int id : block.nodes) {
    absl::Status status = RunNode(nodes[id]);
    if (ABSL_PREDICT_FALSE(!status.ok())) return status;
  }
  return absl::OkStatus();
}

absl::Status Interpreter::RunNode(const NodePlan& node) {
  absl::Status status = Dispatch(node);
  ReleaseDeadValues(node);
  return status;
}

absl::Status Interpreter::Dispatch(const NodePlan& node) {
  switch (node.family) {
    case NodeFamily::kOperator: return RunOperator(node);
    case NodeFamily::kConstant: return RunConstant(node);
    case NodeFamily::kAttribute: return RunAttribute(node);
    case NodeFamily::kIf: return RunIf(node);
    case NodeFamily::kLoop: return RunLoop(node);
    case NodeFamily::kCall: return RunCall(node);
    case NodeFamily::kContainer: return RunContainer(node);
    case NodeFamily::kRaise: return RunRaise(node);
  }
  return NodeError(node, "unknown node family");
}

absl::Status Interpreter::RunConstant(const NodePlan& node) {
  SetOutput(node, 0, node.constant);
  return absl::OkStatus();
}

absl::Status Interpreter::RunAttribute(const NodePlan& node) {
  const NodeInput& object = node.inputs[0];
  if (node.op == NodeOp::kGetAttr) {
    c10::IValue value = values_[object.slot].toObjectRef().getSlot(node.attribute_slot);
    if (object.move) values_[object.slot] = c10::IValue();
    SetOutput(node, 0, std::move(value));
  } else {
    c10::IValue value = TakeInput(node, 1);
    values_[object.slot].toObjectRef().setSlot(node.attribute_slot, std::move(value));
    if (object.move) values_[object.slot] = c10::IValue();
  }
  return absl::OkStatus();
}

absl::Status Interpreter::RunOperator(const NodePlan& node) {
  for (const NodeInput& in : node.inputs) {
    if (in.move) {
      stack_.emplace_back(std::move(values_[in.slot]));
    } else {
      stack_.emplace_back(values_[in.slot]);
    }
  }
  if (node.vararg) stack_.emplace_back(static_cast<int64_t>(node.inputs.size()));
  try {
    (*node.operation)(stack_);
  } catch (const std::exception& e) {
    stack_.clear();
    return NodeException(node, e);
  }
  if (ABSL_PREDICT_FALSE(stack_.size() != node.outputs.size())) {
    const size_t got = stack_.size();
    stack_.clear();
    return NodeError(node, absl::StrCat("operator left ", got, " values, expected ", node.outputs.size()));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) values_[node.outputs[i]] = std::move(stack_[i]);
  stack_.clear();
  return absl::OkStatus();
}

absl::Status Interpreter::RunIf(const NodePlan& node) {
  const bool condition = TakeInput(node, 0).toBool();
  const BlockPlan& block = plan_->blocks()[node.blocks[condition ? 0 : 1]];
  absl::Status status = RunBlock(block);
  if (!status.ok()) return status;
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, TakeExit(block.returns[i]));
  return absl::OkStatus();
}

// prim::Loop: inputs (max_trip_count, initial_condition, carried...), body
// parameters (iteration, carried...), body returns (condition, carried...),
// outputs (carried...).
absl::Status Interpreter::RunLoop(const NodePlan& node) {
  const BlockPlan& body = plan_->blocks()[node.blocks[0]];
  const int64_t max_trips = TakeInput(node, 0).toInt();
  bool condition = TakeInput(node, 1).toBool();
  const size_t num_carried = node.outputs.size();
  for (size_t j = 0; j < num_carried; ++j) values_[body.params[j + 1]] = TakeInput(node, j + 2);
  for (int64_t trip = 0; condition && trip < max_trips; ++trip) {
    values_[body.params[0]] = trip;
    absl::Status status = RunBlock(body);
    if (!status.ok()) return status;
    condition = TakeExit(body.returns[0]).toBool();
    // Through the stack: a body may return its carried values permuted.
    for (size_t j = 0; j < num_carried; ++j) stack_.push_back(TakeExit(body.returns[j + 1]));
    for (size_t j = 0; j < num_carried; ++j) values_[body.params[j + 1]] = std::move(stack_[j]);
    stack_.clear();
  }
  values_[body.params[0]] = c10::IValue();
  for (size_t j = 0; j < num_carried; ++j) SetOutput(node, j, std::move(values_[body.params[j + 1]]));
  return absl::OkStatus();
}

absl::Status Interpreter::RunCall(const NodePlan& node) {
  size_t first = 0;
  if (node.op == NodeOp::kCallFunction) {
    TakeInput(node, 0);  // the Function constant
    first = 1;
  }
  for (size_t i = first; i < node.inputs.size(); ++i) stack_.push_back(TakeInput(node, i));
  try {
    torch::jit::Function* callee = node.callee;
    if (callee == nullptr) callee = &stack_[0].toObjectRef().type()->getMethod(node.method_name);
    callee->run(stack_);
  } catch (const std::exception& e) {
    stack_.clear();
    return NodeException(node, e);
  }
  if (stack_.size() != node.outputs.size()) {
    const size_t got = stack_.size();
    stack_.clear();
    return NodeError(node, absl::StrCat("call left ", got, " values, expected ", node.outputs.size()));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, std::move(stack_[i]));
  stack_.clear();
  return absl::OkStatus();
}

absl::Status Interpreter::ListUnpack(const NodePlan& node) {
  c10::List<c10::IValue> list = TakeInput(node, 0).toList();
  if (list.size() != node.outputs.size()) {
    return NodeError(node, absl::StrCat("cannot unpack a list of ", list.size(), " elements into ",
                                        node.outputs.size(), " values"));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, list.get(i));
  return absl::OkStatus();
}

absl::Status Interpreter::TupleUnpack(const NodePlan& node) {
  c10::IValue value = TakeInput(node, 0);
  const auto& elements = value.toTupleRef().elements();
  if (elements.size() != node.outputs.size()) {
    return NodeError(node, absl::StrCat("cannot unpack a tuple of ", elements.size(),
                                        " elements into ", node.outputs.size(), " values"));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, elements[i]);
  return absl::OkStatus();
}

absl::Status Interpreter::RunContainer(const NodePlan& node) {
  const size_t n = node.inputs.size();
  switch (node.op) {
    case NodeOp::kListConstruct: {
      c10::impl::GenericList list(node.type);
      list.reserve(n);
      for (size_t i = 0; i < n; ++i) list.push_back(TakeInput(node, i));
      SetOutput(node, 0, std::move(list));
      return absl::OkStatus();
    }
    case NodeOp::kListUnpack:
      return ListUnpack(node);
    case NodeOp::kTupleConstruct: {
      std::vector<c10::IValue> elements;
      elements.reserve(n);
      for (size_t i = 0; i < n; ++i) elements.push_back(TakeInput(node, i));
      auto tuple_type = node.type->cast<c10::TupleType>();
      if (tuple_type && tuple_type->schema()) {
        SetOutput(node, 0, c10::ivalue::Tuple::createNamed(std::move(elements), tuple_type));
      } else {
        SetOutput(node, 0, c10::ivalue::Tuple::create(std::move(elements)));
      }
      return absl::OkStatus();
    }
    case NodeOp::kTupleUnpack:
      return TupleUnpack(node);
    case NodeOp::kTupleSlice: {
      c10::IValue value = TakeInput(node, 0);
      const auto& elements = value.toTupleRef().elements();
      std::vector<c10::IValue> slice;
      for (int64_t i = node.slice_begin; i < node.slice_end; ++i) slice.push_back(elements[i]);
      SetOutput(node, 0, c10::ivalue::Tuple::create(std::move(slice)));
      return absl::OkStatus();
    }
    case NodeOp::kDictConstruct: {
      c10::impl::GenericDict dict(node.type, node.value_type);
      dict.reserve(n / 2);
      for (size_t i = 0; i + 1 < n; i += 2) {
        c10::IValue key = TakeInput(node, i);
        dict.insert_or_assign(std::move(key), TakeInput(node, i + 1));
      }
      SetOutput(node, 0, std::move(dict));
      return absl::OkStatus();
    }
    case NodeOp::kIsInstance: {
      c10::IValue value = TakeInput(node, 0);
      bool result = false;
      for (const c10::TypePtr& candidate : node.candidate_types) {
        if (value.type()->isSubtypeOf(*candidate)) {
          result = true;
          break;
        }
      }
      SetOutput(node, 0, result);
      return absl::OkStatus();
    }
    default:
      return NodeError(node, "not a container operation");
  }
}

// prim::RaiseException(str msg, str? cls=None): the message already carries
// the exception name for asserts ("AssertionError: ..."); a raised class
// arrives separately as its qualified name ("builtins.ValueError").
absl::Status Interpreter::RunRaise(const NodePlan& node) {
  c10::IValue message = TakeInput(node, 0);
  std::string text = message.isString() ? message.toStringRef() : DescribeIValue(message);
  if (node.inputs.size() > 1) {
    c10::IValue cls = TakeInput(node, 1);
    if (cls.isString()) {
      absl::string_view name = cls.toStringRef();
      absl::ConsumePrefix(&name, "builtins.");
      text = absl::StrCat(name, ": ", text);
    }
  }
  return NodeError(node, text);
}

absl::Status Interpreter::NodeError(const NodePlan& node, absl::string_view message) const {
  const NodeIdentity& id = node.identity;
  return absl::InvalidArgumentError(absl::StrCat(
      "node ", node.id, " ", id.label, id.source.empty() ? "" : absl::StrCat(" (", id.source, ")"),
      ": ", message));
}

absl::Status Interpreter::NodeException(const NodePlan& node, const std::exception& e) const {
  return NodeError(node, ExceptionMessage(e));
}

}  // namespace graphprof
