// GraphPlan: everything the interpreter needs to know about a graph, computed
// once and then shared read-only by any number of interpreters and threads.
//
//   * Values live in dense slots (0..num_slots-1), not in maps.
//   * Nodes are numbered in execution order over the whole graph, nested
//     blocks included; NodePlan::id indexes GraphPlan::nodes and is the node
//     identity reports key on.
//   * Each node knows its family (which interpreter handler runs it), its
//     cached torch::jit::Operation, whether it is a vararg operator (the
//     native interpreter pushes the input count after the inputs), and which
//     values die with it: inputs whose last use it is are moved out of their
//     slots ("move"), values used last inside its blocks are released after
//     it ("release"). Frees therefore happen where the native interpreter
//     frees, and peak memory matches module.forward.
//   * Unsupported node kinds, and nodes without the inputs, outputs and
//     blocks their kind implies (IR text can write anything), are rejected by
//     Build with the kind and source location, never at run time.
#ifndef GRAPHPROF_INTERPRETER_GRAPH_PLAN_H_
#define GRAPHPROF_INTERPRETER_GRAPH_PLAN_H_

#include <torch/script.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
// Not absl::flat_hash_map: GCC 14 refuses Abseil 20240722's (Debian 13) in
// constant expressions under -fsanitize=null, CI's UBSan build on LibTorch 2.6.
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/identify_node.h"
#include "ir/prepared_graph.h"

namespace graphprof {

using Slot = uint32_t;

// Which handler of the Interpreter runs a node.
enum class NodeFamily : uint8_t {
  kConstant,   // prim::Constant
  kAttribute,  // prim::GetAttr, prim::SetAttr
  kOperator,   // any node with a registered operator
  kIf,         // prim::If
  kLoop,       // prim::Loop
  kCall,       // prim::CallMethod, prim::CallFunction (graphs prepared without inlining),
               // prim::Enter / prim::Exit (`with` statements: __enter__ / __exit__)
  kContainer,  // list/tuple/dict construction and unpacking, prim::isinstance, prim::CreateObject
  kRaise,      // prim::RaiseException (its registered kernel in 1.13 is the
               // deprecated one-argument form; the native interpreter runs it
               // as an instruction taking the message and the class name)
  kWarn,       // aten::warn (warnings.warn): its registered kernel only throws
               // "implemented directly in the interpreter"; warns once per node
  kFork,       // prim::fork: runs its subgraph (a block of the plan), returns a Future
  kWait,       // aten::wait: the Future's value (also "implemented directly in the interpreter")
};

// The exact operation within the kAttribute and kContainer families.
enum class NodeOp : uint8_t {
  kNone,
  kGetAttr,
  kSetAttr,
  kCallMethod,
  kCallFunction,
  kEnter,  // prim::Enter: `with obj:` calls obj.__enter__()
  kExit,   // prim::Exit: obj.__exit__(None, None, None) at the block's end
  kListConstruct,
  kListUnpack,
  kTupleConstruct,
  kTupleUnpack,
  kTupleSlice,
  kDictConstruct,
  kIsInstance,
  kCreateObject,  // prim::CreateObject: a new instance of a TorchScript class (attributes unset)
};

const char* NodeFamilyName(NodeFamily family);

struct NodeInput {
  Slot slot;
  // This is the value's last use: the handler takes it out of its slot.
  bool move;
};

// One node, as the interpreter runs it. The fields read on every execution
// come first and the lists are views into pools the GraphPlan owns, so that
// walking the nodes touches little memory.
struct alignas(64) NodePlan {
  // --- Hot: read on every execution; exactly one cache line. ---
  NodeFamily family = NodeFamily::kOperator;
  NodeOp op = NodeOp::kNone;
  // kOperator: push the input count after the inputs (vararg schema).
  bool vararg = false;
  int id = -1;
  absl::Span<const NodeInput> inputs;
  absl::Span<const Slot> outputs;
  // Slots to clear after the node ran (values whose last use was inside it).
  absl::Span<const Slot> release;
  // kOperator: the cached operation, shared by all nodes of the same operator
  // (as the native interpreter's operator table does). Non-const because
  // Operation::operator() is non-const in LibTorch 1.13, yet calling it does
  // not modify it, so a const plan can be run from many threads.
  torch::jit::Operation* operation = nullptr;

  // Indices into GraphPlan::blocks (If: then, else; Loop: body).
  absl::Span<const int> blocks;

  // --- Family data. ---
  // kConstant: the value (None for Function-typed constants, which only feed calls).
  c10::IValue constant;
  // kAttribute: the attribute's slot in the object.
  size_t attribute_slot = 0;
  // kCall: the callee if known statically, else looked up by `method_name`.
  torch::jit::Function* callee = nullptr;
  std::string method_name;
  // kContainer: element / key / value / tuple type, isinstance candidates, slice bounds.
  c10::TypePtr type;
  c10::TypePtr value_type;
  std::vector<c10::TypePtr> candidate_types;
  int64_t slice_begin = 0;
  int64_t slice_end = 0;

  // --- Cold: for reports, messages and kind handlers. ---
  c10::Symbol kind;
  const torch::jit::Node* node = nullptr;
  NodeIdentity identity;
};

struct BlockExit {
  Slot slot;
  // The value is defined inside the block and returned once: move it out.
  bool move;
};

struct BlockPlan {
  std::vector<int> nodes;  // node ids, in order
  std::vector<Slot> params;
  std::vector<BlockExit> returns;
  // Parameters nobody reads: cleared when the block starts.
  std::vector<Slot> release_on_entry;
};

struct PlanOptions {
  // Free every value after its last use (as the native interpreter does).
  // false keeps all of them alive after a run, for Interpreter::ValueOf
  // (torch.fx's garbage_collect_values=False): peak memory grows.
  bool garbage_collect_values = true;
  // Run operators that act outside the process (interpreter/side_effects.h:
  // aten::save writes a file, collectives talk to other processes). Off by
  // default: Build refuses such a node, naming it and its source line.
  bool allow_side_effects = false;
  // Run c10d collectives (IsCollectiveOperator) though side effects are
  // refused: the process group they talk to is the ranks' own, which
  // profile_graph's ranks registered (profilers/session/ranks.h), and every
  // rank repeats them in step.
  bool allow_collectives = false;
};

class GraphPlan {
 public:
  // Plans `prepared`. Fails on node kinds the interpreter cannot run.
  static absl::StatusOr<std::shared_ptr<const GraphPlan>> Build(PreparedGraph prepared,
                                                                const PlanOptions& options = {});

  const std::string& name() const { return prepared_.name; }
  const PreparedGraph& prepared() const { return prepared_; }
  const torch::jit::Graph& graph() const { return *prepared_.graph; }
  // The module object bound to `self`, if any.
  const c10::optional<c10::IValue>& self() const { return self_; }

  size_t num_slots() const { return num_slots_; }
  size_t num_user_inputs() const { return prepared_.num_user_inputs(); }
  const std::vector<NodePlan>& nodes() const { return nodes_; }
  const NodePlan& node(int id) const { return nodes_[id]; }
  const std::vector<BlockPlan>& blocks() const { return blocks_; }
  const BlockPlan& root() const { return blocks_[0]; }
  // Largest number of inputs any node pushes (sizes the interpreter's stack).
  size_t max_stack() const { return max_stack_; }

  // "x: Tensor, edge_index: Tensor" for messages.
  std::string DescribeUserInputs() const { return prepared_.DescribeUserInputs(); }

  // The slot of a value of the planned graph, if it has one.
  c10::optional<Slot> SlotOf(const torch::jit::Value* value) const;

  // The node of the graph given to PrepareMethod/PrepareGraph that a plan
  // node was copied from (null for nodes the preparation created, e.g.
  // inlined callee bodies), and the plan node id of such an original node
  // (-1 if it has none). A pass author holds nodes of their own graph; these
  // map them to the plan's ids, and so to a Report's rows.
  const torch::jit::Node* OriginalNode(int id) const;
  int NodeIdOf(const torch::jit::Node* original) const;

  // False when the graph writes module attributes (prim::SetAttr): then
  // interpreters sharing this plan on several threads would race on the
  // module object, so run them one at a time.
  bool shareable() const { return shareable_; }

  // aten::warn warns once per node, as LibTorch's interpreter does (once
  // per node of its code, however many runs and threads): true for the
  // first caller for node `id`, false after.
  bool ClaimWarning(int id) const { return !warned_[id].exchange(true, std::memory_order_relaxed); }

 private:
  GraphPlan(PreparedGraph prepared, const PlanOptions& options);
  class Builder;

  PreparedGraph prepared_;
  PlanOptions options_;
  c10::optional<c10::IValue> self_;
  bool shareable_ = true;
  std::unordered_map<const torch::jit::Value*, Slot> slot_of_;
  std::unordered_map<const torch::jit::Node*, int> id_of_original_;
  size_t num_slots_ = 0;
  size_t max_stack_ = 0;
  std::vector<NodePlan> nodes_;
  // Storage behind the NodePlan spans, contiguous in node order.
  std::vector<NodeInput> input_pool_;
  std::vector<Slot> slot_pool_;
  std::vector<int> block_pool_;
  std::deque<torch::jit::Operation> operations_;
  std::vector<BlockPlan> blocks_;
  std::unique_ptr<std::atomic<bool>[]> warned_;  // [node id], for ClaimWarning
};

}  // namespace graphprof

#endif  // GRAPHPROF_INTERPRETER_GRAPH_PLAN_H_
