#include "interpreter/interpreter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "ir/ivalue_util.h"
#include "common/status_util.h"
#include "common/torch_compat.h"

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

const c10::IValue& NodeContext::input(size_t i) const {
  return interpreter_.values_[node_.inputs[i].slot];
}
c10::IValue NodeContext::TakeInput(size_t i) { return interpreter_.TakeInput(node_, i); }
void NodeContext::SetOutput(size_t i, c10::IValue value) { interpreter_.SetOutput(node_, i, std::move(value)); }
absl::Status NodeContext::RunDefault() { return interpreter_.DispatchFamily(node_); }

Interpreter::Interpreter(std::shared_ptr<const GraphPlan> plan) : Interpreter(std::move(plan), Options{}) {}

Interpreter::Interpreter(std::shared_ptr<const GraphPlan> plan, Options options)
    : plan_(std::move(plan)), options_(options) {
  values_.resize(plan_->num_slots());
  stack_.reserve(plan_->max_stack() + 16);
  if (options_.keep_arguments) arguments_.reserve(plan_->max_stack());
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
  arguments_.clear();
}

absl::StatusOr<c10::IValue> Interpreter::Run(std::vector<c10::IValue> inputs) {
  absl::Status status = BindInputs(inputs);
  if (status.ok()) status = RunRoot();
  return Finish(status);
}

absl::StatusOr<c10::IValue> Interpreter::Run(std::vector<c10::IValue> inputs, const Environment& initial_values) {
  std::vector<std::pair<Slot, c10::IValue>> given;
  for (const auto& [value, content] : initial_values) {
    c10::optional<Slot> slot = plan_->SlotOf(value);
    if (!slot.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("initial value %", value->debugName(), " is not a value of ",
                                                     plan_->name(), "'s planned graph"));
    }
    if (value->node()->owningBlock() != plan_->graph().block()) {
      return absl::InvalidArgumentError(absl::StrCat("initial value %", value->debugName(),
                                                     " is defined inside a block; only top-level values can be given"));
    }
    given.emplace_back(*slot, content);
  }
  skip_.assign(plan_->nodes().size(), false);
  for (int id : plan_->root().nodes) {
    const NodePlan& node = plan_->node(id);
    bool all = !node.outputs.empty();
    for (Slot out : node.outputs) {
      all = all && std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == out; });
    }
    skip_[id] = all;
  }
  absl::Status status = BindInputs(inputs);
  if (status.ok()) {
    for (auto& [slot, content] : given) values_[slot] = std::move(content);
    skipping_ = true;
    status = RunRoot();
    skipping_ = false;
  }
  return Finish(status);
}

absl::Status Interpreter::RunRoot() {
  try {
    return RunBlock(plan_->root());
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInternal, plan_->name(), e);
  }
}

absl::StatusOr<c10::IValue> Interpreter::Finish(const absl::Status& status) {
  if (!status.ok()) {
    ClearFrame();
    return status;
  }
  const BlockPlan& root = plan_->root();
  if (root.returns.size() == 1) return TakeBlockResult(root, 0);
  std::vector<c10::IValue> outputs;
  outputs.reserve(root.returns.size());
  for (size_t i = 0; i < root.returns.size(); ++i) outputs.push_back(TakeBlockResult(root, i));
  if (outputs.empty()) return c10::IValue();
  return c10::IValue(c10::ivalue::Tuple::create(std::move(outputs)));
}

absl::Status Interpreter::SetKindHandler(c10::Symbol kind, KindHandler handler) {
  int index = -1;
  for (size_t i = 0; i < kind_handlers_.size(); ++i) {
    if (kind_handlers_[i].first == kind) index = static_cast<int>(i);
  }
  if (index < 0) {
    index = static_cast<int>(kind_handlers_.size());
    kind_handlers_.emplace_back(kind, nullptr);
  }
  const bool removing = handler == nullptr;
  kind_handlers_[index].second = std::move(handler);
  if (handler_of_.empty()) handler_of_.assign(plan_->nodes().size(), -1);
  int matched = 0;
  for (const NodePlan& node : plan_->nodes()) {
    if (node.kind != kind) continue;
    handler_of_[node.id] = removing ? -1 : index;
    ++matched;
  }
  if (matched == 0 && !removing) {
    return absl::NotFoundError(absl::StrCat(plan_->name(), " has no node of kind ", kind.toQualString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Interpreter::ValueOf(const torch::jit::Value* value) const {
  c10::optional<Slot> slot = plan_->SlotOf(value);
  if (!slot.has_value()) {
    return absl::NotFoundError(absl::StrCat("%", value->debugName(), " is not a value of ", plan_->name(),
                                            "'s planned graph"));
  }
  const c10::IValue& content = values_[*slot];
  const c10::TypeKind type = value->type()->kind();
  if (content.isNone() && type != c10::TypeKind::NoneType && type != c10::TypeKind::OptionalType) {
    return absl::FailedPreconditionError(absl::StrCat(
        "%", value->debugName(), " is not alive after the run (values die at their last use; plan with "
        "PlanOptions::garbage_collect_values = false to keep them)"));
  }
  return content;
}

void Interpreter::CaptureArguments(const NodePlan& node) {
  arguments_.clear();
  for (const NodeInput& in : node.inputs) arguments_.push_back(values_[in.slot]);
}

void Interpreter::Skip(const NodePlan& node) {
  for (const NodeInput& in : node.inputs) {
    if (in.move) values_[in.slot] = c10::IValue();
  }
  ReleaseDeadValues(node);
}

void Interpreter::CheckNotMovedOut(const NodePlan& node, size_t i) const {
  const NodeInput& in = node.inputs[i];
  if (!in.move || !values_[in.slot].isNone() || node.node == nullptr) return;
  const c10::TypeKind type = node.node->inputs()[i]->type()->kind();
  if (type == c10::TypeKind::NoneType || type == c10::TypeKind::OptionalType) return;
  std::fprintf(stderr,
               "graphprof: InputValue(node %d %s, %zu) read after the input was moved into the node; read "
               "inputs before calling the base handler, or use Options::keep_arguments and Arguments()\n",
               node.id, node.identity.label.c_str(), i);
  std::abort();
}

absl::Status Interpreter::RunBlock(const BlockPlan& block) {
  EnterBlock(block);
  const std::vector<NodePlan>& nodes = plan_->nodes();
  const bool slow = skipping_ || options_.keep_arguments;
  for (int id : block.nodes) {
    const NodePlan& node = nodes[id];
    if (ABSL_PREDICT_FALSE(slow)) {
      if (skipping_ && skip_[id]) {
        Skip(node);
        continue;
      }
      if (options_.keep_arguments) CaptureArguments(node);
    }
    absl::Status status = RunNode(node);
    if (ABSL_PREDICT_FALSE(!status.ok())) return status;
  }
  return absl::OkStatus();
}

// Dispatch's and DispatchFamily's bodies, inline in RunNode: two call levels
// fewer between the block loop and a node's handler (the return-address
// predictor is easily exhausted by LibTorch's deep kernel calls below them).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Interpreter::DispatchInline(const NodePlan& node) {
  if (ABSL_PREDICT_FALSE(!handler_of_.empty()) && handler_of_[node.id] >= 0) {
    NodeContext context(*this, node);
    return kind_handlers_[handler_of_[node.id]].second(context);
  }
  return DispatchFamilyInline(node);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Interpreter::DispatchFamilyInline(const NodePlan& node) {
  switch (node.family) {
    case NodeFamily::kOperator: return RunOperator(node);
    case NodeFamily::kConstant: return RunConstant(node);
    case NodeFamily::kAttribute: return RunAttribute(node);
    case NodeFamily::kIf: return RunIf(node);
    case NodeFamily::kLoop: return RunLoop(node);
    case NodeFamily::kCall: return RunCall(node);
    case NodeFamily::kContainer: return RunContainer(node);
    case NodeFamily::kRaise: return RunRaise(node);
    case NodeFamily::kWarn: return RunWarn(node);
    case NodeFamily::kFork: return RunFork(node);
    case NodeFamily::kWait: return RunWait(node);
  }
  return NodeError(node, "unknown node family");
}

absl::Status Interpreter::RunNode(const NodePlan& node) {
  absl::Status status = DispatchInline(node);
  ReleaseDeadValues(node);
  return status;
}

absl::Status Interpreter::Dispatch(const NodePlan& node) { return DispatchInline(node); }

absl::Status Interpreter::DispatchFamily(const NodePlan& node) { return DispatchFamilyInline(node); }

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

absl::Status Interpreter::MoveStackToOutputs(const NodePlan& node, const char* what) {
  if (ABSL_PREDICT_FALSE(stack_.size() != node.outputs.size())) {
    const size_t got = stack_.size();
    stack_.clear();
    return NodeError(node, absl::StrCat(what, " left ", got, " values, expected ", node.outputs.size()));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) values_[node.outputs[i]] = std::move(stack_[i]);
  stack_.clear();
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
  return MoveStackToOutputs(node, "operator");
}

absl::Status Interpreter::RunIf(const NodePlan& node) {
  const bool condition = TakeInput(node, 0).toBool();
  const BlockPlan& block = plan_->blocks()[node.blocks[condition ? 0 : 1]];
  absl::Status status = RunBlock(block);
  if (!status.ok()) return status;
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, TakeBlockResult(block, i));
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
  for (size_t j = 0; j < num_carried; ++j) SetBlockParameter(body, j + 1, TakeInput(node, j + 2));
  for (int64_t trip = 0; condition && trip < max_trips; ++trip) {
    SetBlockParameter(body, 0, trip);
    absl::Status status = RunBlock(body);
    if (!status.ok()) return status;
    condition = TakeBlockResult(body, 0).toBool();
    // Through the stack: a body may return its carried values permuted.
    for (size_t j = 0; j < num_carried; ++j) stack_.push_back(TakeBlockResult(body, j + 1));
    for (size_t j = 0; j < num_carried; ++j) SetBlockParameter(body, j + 1, std::move(stack_[j]));
    stack_.clear();
  }
  SetBlockParameter(body, 0, c10::IValue());
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
  // __exit__(self, type, value, traceback): no exception, so three Nones.
  if (node.op == NodeOp::kExit) stack_.insert(stack_.end(), 3, c10::IValue());
  try {
    torch::jit::Function* callee = node.callee;
    if (callee == nullptr) callee = &stack_[0].toObjectRef().type()->getMethod(node.method_name);
    callee->run(stack_);
  } catch (const std::exception& e) {
    stack_.clear();
    return NodeException(node, e);
  }
  // prim::Exit has no output: __exit__'s result is dropped (as EXIT does).
  if (node.op == NodeOp::kExit && node.outputs.empty()) stack_.clear();
  return MoveStackToOutputs(node, "call");
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
