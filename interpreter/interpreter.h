// Interpreter: runs a planned TorchScript graph node by node.
//
// The output is identical to module.forward (same structure, torch::equal
// tensors): nodes run through the same registered operations, values die at
// the same points. Like torch.fx's Interpreter, every step is a virtual hook,
// so a subclass can observe or replace any part of execution:
//
//   Run(inputs)          one whole execution: binds inputs, runs the root
//                        block, returns the output (a tuple if several)
//   RunBlock(block)      the nodes of one block in order: the root block and
//                        every If/Loop block (so it sees nested blocks)
//   RunNode(node)        one node, nested ones included: dispatches to the
//                        family's handler (or a kind handler), then releases
//                        the values whose last use was inside the node. Wrap
//                        it to time or observe every node.
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
//   RunWarn(node)        aten::warn: warns through c10's warning handler
//                        once per node of the plan (as LibTorch does), and
//                        records it (warnings())
//   RunFork(node)        prim::fork: runs its subgraph (the node's block)
//                        here, on this thread, and returns a completed Future
//   RunWait(node)        aten::wait: the Future's value
//
// One op kind can be replaced without subclassing: SetKindHandler(kind, fn)
// runs `fn` instead of the family handler for every node of that kind (the
// nodes are found once, when the handler is set; XLA's evaluator offers the
// same for custom calls).
//
// Values and moves. Inputs whose last use is a node are *moved* into it, so
// after the base handler ran, InputValue of such an input is empty (reading
// it is a checked error in debug builds). To look at a node's arguments
// around the base handler, construct with Options::keep_arguments and use
// Arguments(), a stable copy taken before the node runs. To keep every
// intermediate value after a run (torch.fx's garbage_collect_values=False),
// plan with PlanOptions::garbage_collect_values = false and read them with
// ValueOf(). Run(inputs, initial_values) starts from a partial environment:
// nodes whose outputs are all given are skipped.
//
// Handlers return absl::Status; an operator that throws becomes a Status
// naming the node (label, source location) with the original message, and
// the interpreter stays usable. Nothing throws out of Run.
//
// An Interpreter is not thread-safe, but it is cheap: any number of them, on
// any threads, can share one GraphPlan (unless plan.shareable() is false:
// graphs that write module attributes). Per node the default path allocates
// nothing beyond what the operation itself allocates.
#ifndef GRAPHPROF_INTERPRETER_INTERPRETER_H_
#define GRAPHPROF_INTERPRETER_INTERPRETER_H_

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "interpreter/graph_plan.h"

namespace graphprof {

class Interpreter;

// What a kind handler sees: one node's inputs and outputs, and the default
// handler to fall back to.
class NodeContext {
 public:
  const NodePlan& node() const { return node_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  // The i-th input (not moved; valid until TakeInput(i) or RunDefault()).
  const c10::IValue& input(size_t i) const;
  // The i-th input, moved out if this is its last use.
  c10::IValue TakeInput(size_t i);
  void SetOutput(size_t i, c10::IValue value);
  // Runs the node with its family's handler (consumes the inputs).
  absl::Status RunDefault();

 private:
  friend class Interpreter;
  NodeContext(Interpreter& interpreter, const NodePlan& node) : interpreter_(interpreter), node_(node) {}
  Interpreter& interpreter_;
  const NodePlan& node_;
};

class Interpreter {
 public:
  struct Options {
    // Copy every node's arguments before it runs, for Arguments().
    bool keep_arguments = false;
  };
  // Values to start from: graph values (of this plan's graph) and their contents.
  using Environment = std::vector<std::pair<const torch::jit::Value*, c10::IValue>>;
  using KindHandler = std::function<absl::Status(NodeContext&)>;

  explicit Interpreter(std::shared_ptr<const GraphPlan> plan);
  Interpreter(std::shared_ptr<const GraphPlan> plan, Options options);
  virtual ~Interpreter() = default;
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs the graph on the caller's inputs (without `self`, which the plan
  // binds). Fails on a wrong input count or type, and when a node fails.
  virtual absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue> inputs);
  // The same, starting from `initial_values`: nodes whose outputs are all in
  // it are skipped, their outputs taken from it.
  absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue> inputs, const Environment& initial_values);

  // Runs `handler` instead of the family handler for every node of `kind`
  // (e.g. c10::Symbol::fromQualString("aten::gelu")); a null handler removes
  // it. Fails when no node of the graph has that kind.
  absl::Status SetKindHandler(c10::Symbol kind, KindHandler handler);

  // The value of `value` after the last Run. Only values still alive are
  // available: all of them with PlanOptions::garbage_collect_values = false,
  // else graph inputs and what no node consumed. Loop body values hold the
  // last iteration's.
  absl::StatusOr<c10::IValue> ValueOf(const torch::jit::Value* value) const;

  // A warning this interpreter raised (aten::warn, the first time its node ran).
  struct RaisedWarning {
    int node = -1;
    std::string message;
  };
  const std::vector<RaisedWarning>& warnings() const { return warnings_; }

  const GraphPlan& plan() const { return *plan_; }
  const std::shared_ptr<const GraphPlan>& shared_plan() const { return plan_; }

 protected:
  friend class NodeContext;

  virtual absl::Status RunBlock(const BlockPlan& block);
  virtual absl::Status RunNode(const NodePlan& node);
  virtual absl::Status RunConstant(const NodePlan& node);
  virtual absl::Status RunAttribute(const NodePlan& node);
  virtual absl::Status RunOperator(const NodePlan& node);
  virtual absl::Status RunIf(const NodePlan& node);
  virtual absl::Status RunLoop(const NodePlan& node);
  virtual absl::Status RunCall(const NodePlan& node);
  virtual absl::Status RunContainer(const NodePlan& node);
  virtual absl::Status RunRaise(const NodePlan& node);
  virtual absl::Status RunWarn(const NodePlan& node);
  virtual absl::Status RunFork(const NodePlan& node);
  virtual absl::Status RunWait(const NodePlan& node);

  // RunNode is Dispatch (the kind handler or the family's handler) followed
  // by ReleaseDeadValues. An override that must see a node's outputs before
  // they may be released (unused outputs die right away) calls these two itself.
  absl::Status Dispatch(const NodePlan& node);
  // The family's handler, ignoring kind handlers.
  absl::Status DispatchFamily(const NodePlan& node);

  // The arguments of the node being run, copied before it ran (empty span
  // unless Options::keep_arguments). Valid until the next node starts.
  absl::Span<const c10::IValue> Arguments() const { return arguments_; }

  // The current value of a node's i-th input / output slot. An input moved
  // into the node is empty once the node's handler took it (checked in
  // debug builds).
  const c10::IValue& InputValue(const NodePlan& node, size_t i) const {
#ifndef NDEBUG
    CheckNotMovedOut(node, i);
#endif
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
  // The i-th value a block returns, moved out if the block defined it.
  c10::IValue TakeBlockResult(const BlockPlan& block, size_t i) {
    const BlockExit& exit = block.returns[i];
    return exit.move ? std::move(values_[exit.slot]) : values_[exit.slot];
  }
  // Sets a block parameter (e.g. a loop's iteration number).
  void SetBlockParameter(const BlockPlan& block, size_t i, c10::IValue value) {
    values_[block.params[i]] = std::move(value);
  }
  // What RunBlock does before a block's first node: clears the block
  // parameters nobody reads.
  void EnterBlock(const BlockPlan& block) {
    for (Slot slot : block.release_on_entry) values_[slot] = c10::IValue();
  }
  // True when RunBlock runs each node of a block through RunNode, in order,
  // stopping at the first failure (no node skipped, no arguments kept): an
  // override of RunBlock that replaces that loop must fall back to
  // Interpreter::RunBlock otherwise.
  bool RunsEveryNode() const { return !skipping_ && !options_.keep_arguments; }
  // Clears the slots listed in node.release (RunNode does this).
  void ReleaseDeadValues(const NodePlan& node) {
    for (Slot slot : node.release) values_[slot] = c10::IValue();
  }

  // "node 12 layer1.0.conv1/conv2d (file.py:33): <message>".
  absl::Status NodeError(const NodePlan& node, absl::string_view message) const;
  absl::Status NodeException(const NodePlan& node, const std::exception& e) const;

 private:
  absl::Status RunRoot();
  // Dispatch's and DispatchFamily's bodies, inline in RunNode (interpreter.cc).
  inline absl::Status DispatchInline(const NodePlan& node);
  inline absl::Status DispatchFamilyInline(const NodePlan& node);
  // The run's output on success; on failure the frame is cleared.
  absl::StatusOr<c10::IValue> Finish(const absl::Status& status);
  absl::Status BindInputs(std::vector<c10::IValue>& inputs);
  void ClearFrame();
  // Runs the operation in stack_ and moves its results into the node's outputs.
  absl::Status MoveStackToOutputs(const NodePlan& node, const char* what);
  absl::Status Unpack(const NodePlan& node, absl::Span<const c10::IValue> elements, const char* what);
  void CaptureArguments(const NodePlan& node);
  void Skip(const NodePlan& node);
  void CheckNotMovedOut(const NodePlan& node, size_t i) const;

  std::shared_ptr<const GraphPlan> plan_;
  Options options_;
  std::vector<c10::IValue> values_;
  torch::jit::Stack stack_;
  std::vector<c10::IValue> arguments_;
  // Kind handlers: per node id, an index into kind_handlers_ or -1.
  std::vector<std::pair<c10::Symbol, KindHandler>> kind_handlers_;
  std::vector<int> handler_of_;
  // Partial-environment runs: nodes to skip.
  std::vector<bool> skip_;
  bool skipping_ = false;
  std::vector<RaisedWarning> warnings_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_INTERPRETER_INTERPRETER_H_
