// Interpreter: runs a planned TorchScript graph node by node.
//
// The output is identical to module.forward (same structure, torch::equal
// tensors): nodes run through the same registered operations, values die at
// the same points. Like torch.fx's Interpreter, every step is a virtual hook,
// so a subclass can observe or replace any part of execution:
//
//   Run(inputs)          one whole execution; binds inputs, runs the root
//                        block, returns the output (a tuple if several)
//   RunNode(node)        one node: dispatches on NodePlan::family to the
//                        handler below, then releases the values whose last
//                        use was inside the node. Wrap it to time or observe
//                        every node, nested ones included.
//   RunConstant(node)    prim::Constant
//   RunAttribute(node)   prim::GetAttr / prim::SetAttr
//   RunOperator(node)    any registered operator (aten::*, most prim::*)
//   RunIf(node)          prim::If: runs one of its blocks via RunBlock
//   RunLoop(node)        prim::Loop: runs its body via RunBlock per iteration
//   RunCall(node)        prim::CallMethod / prim::CallFunction (not inlined):
//                        the callee runs natively, as one node
//   RunContainer(node)   List/Tuple/Dict construction, List/Tuple unpacking,
//                        TupleSlice, isinstance
//   RunRaise(node)       prim::RaiseException: fails the run with the
//                        model's message ("ValueError: ...")
//
// Inputs whose last use is a node are *moved* into it (NodeInput::move): an
// override that wants to look at a node's inputs must do so before calling
// the base handler. Handlers return absl::Status; an operator that throws
// becomes a Status naming the node (label, source location) with the original
// message, and the interpreter stays usable. Nothing throws out of Run.
//
// An Interpreter is not thread-safe, but it is cheap: any number of them, on
// any threads, can share one GraphPlan. Per node the default path allocates
// nothing beyond what the operation itself allocates.
#ifndef GRAPHPROF_INTERPRETER_INTERPRETER_H_
#define GRAPHPROF_INTERPRETER_INTERPRETER_H_

#include <torch/script.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "interpreter/graph_plan.h"

namespace graphprof {

class Interpreter {
 public:
  explicit Interpreter(std::shared_ptr<const GraphPlan> plan);
  virtual ~Interpreter() = default;
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs the graph on the caller's inputs (without `self`, which the plan
  // binds). Fails on a wrong input count or type, and when a node fails.
  virtual absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue> inputs);

  const GraphPlan& plan() const { return *plan_; }
  const std::shared_ptr<const GraphPlan>& shared_plan() const { return plan_; }

 protected:
  virtual absl::Status RunNode(const NodePlan& node);
  virtual absl::Status RunConstant(const NodePlan& node);
  virtual absl::Status RunAttribute(const NodePlan& node);
  virtual absl::Status RunOperator(const NodePlan& node);
  virtual absl::Status RunIf(const NodePlan& node);
  virtual absl::Status RunLoop(const NodePlan& node);
  virtual absl::Status RunCall(const NodePlan& node);
  virtual absl::Status RunContainer(const NodePlan& node);
  virtual absl::Status RunRaise(const NodePlan& node);

  // Runs the nodes of a block in order (If/Loop handlers call it).
  absl::Status RunBlock(const BlockPlan& block);

  // RunNode is Dispatch (the family's handler) followed by ReleaseDeadValues.
  // An override that must see a node's outputs before they may be released
  // (unused outputs die right away) calls these two itself.
  absl::Status Dispatch(const NodePlan& node);

  // The current value of a node's i-th input / output slot.
  const c10::IValue& InputValue(const NodePlan& node, size_t i) const {
    return values_[node.inputs[i].slot];
  }
  const c10::IValue& OutputValue(const NodePlan& node, size_t i) const {
    return values_[node.outputs[i]];
  }
  // The value in a slot (e.g. a block parameter or return).
  const c10::IValue& SlotValue(Slot slot) const { return values_[slot]; }

  // A node's i-th input, moved out of its slot if this is its last use.
  c10::IValue TakeInput(const NodePlan& node, size_t i) {
    const NodeInput& in = node.inputs[i];
    return in.move ? std::move(values_[in.slot]) : values_[in.slot];
  }
  void SetOutput(const NodePlan& node, size_t i, c10::IValue value) {
    values_[node.outputs[i]] = std::move(value);
  }
  // Clears the slots listed in node.release (RunNode does this).
  void ReleaseDeadValues(const NodePlan& node) {
    for (Slot slot : node.release) values_[slot] = c10::IValue();
  }

  // "node 12 layer1.0.conv1/conv2d (file.py:33): <message>".
  absl::Status NodeError(const NodePlan& node, absl::string_view message) const;
  absl::Status NodeException(const NodePlan& node, const std::exception& e) const;

 private:
  c10::IValue TakeExit(const BlockExit& exit) {
    return exit.move ? std::move(values_[exit.slot]) : values_[exit.slot];
  }
  absl::Status BindInputs(std::vector<c10::IValue>& inputs);
  void ClearFrame();
  absl::Status ListUnpack(const NodePlan& node);
  absl::Status TupleUnpack(const NodePlan& node);

  std::shared_ptr<const GraphPlan> plan_;
  std::vector<c10::IValue> values_;
  torch::jit::Stack stack_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_INTERPRETER_INTERPRETER_H_
