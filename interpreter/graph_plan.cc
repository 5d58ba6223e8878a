#include "interpreter/graph_plan.h"

#include <torch/csrc/jit/ir/constants.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"
#include "interpreter/node_shape.h"
#include "interpreter/side_effects.h"
#include "ir/collective_kinds.h"

namespace graphprof {

namespace jit = torch::jit;

const char* NodeFamilyName(NodeFamily family) {
  switch (family) {
    case NodeFamily::kConstant: return "constant";
    case NodeFamily::kAttribute: return "attribute";
    case NodeFamily::kOperator: return "operator";
    case NodeFamily::kIf: return "if";
    case NodeFamily::kLoop: return "loop";
    case NodeFamily::kCall: return "call";
    case NodeFamily::kContainer: return "container";
    case NodeFamily::kRaise: return "raise";
    case NodeFamily::kWarn: return "warn";
    case NodeFamily::kFork: return "fork";
    case NodeFamily::kWait: return "wait";
  }
  return "?";
}

// Nesting graphprof's own recursion (planning, running) handles.
constexpr int kMaxPlanDepth = 20000;

class GraphPlan::Builder {
 public:
  explicit Builder(GraphPlan& plan) : plan_(plan) {}

  absl::Status Build() {
    // Sizes first, so that the maps and vectors never rehash or regrow.
    size_t nodes = 0, values = plan_.prepared_.graph->inputs().size();
    CountNodes(plan_.prepared_.graph->block(), nodes, values);
    slots_.reserve(values);
    values_.reserve(values);
    node_id_.reserve(nodes);
    position_.reserve(nodes);
    plan_.nodes_.reserve(nodes);
    lists_.reserve(nodes);
    absl::Status status = PlanBlock(plan_.prepared_.graph->block(), /*parent=*/-1, /*depth=*/0);
    if (!status.ok()) return status;
    if (plan_.options_.garbage_collect_values) PlanLifetimes();
    plan_.num_slots_ = slots_.size();
    plan_.slot_of_ = std::move(slots_);
    Flatten();
    return absl::OkStatus();
  }

 private:
  Slot SlotOf(const jit::Value* value) {
    auto [it, inserted] = slots_.emplace(value, static_cast<Slot>(slots_.size()));
    if (inserted) values_.push_back(value);
    return it->second;
  }

  // A node's blocks as the plan runs them: If/Loop blocks, and a fork's
  // subgraph (one block whose parameters are the fork's inputs).
  static std::vector<const jit::Block*> BlocksOf(const jit::Node* node) {
    std::vector<const jit::Block*> blocks(node->blocks().begin(), node->blocks().end());
    if (node->kind() == jit::prim::fork && node->hasAttribute(jit::attr::Subgraph)) {
      blocks.push_back(node->g(jit::attr::Subgraph)->block());
    }
    return blocks;
  }

  static void CountNodes(const jit::Block* block, size_t& nodes, size_t& values) {
    values += block->inputs().size();
    for (const jit::Node* node : block->nodes()) {
      ++nodes;
      values += node->outputs().size();
      for (const jit::Block* sub : BlocksOf(node)) CountNodes(sub, nodes, values);
    }
  }

  // `module_prefix`: the module path of the fork whose subgraph this block
  // is ("" elsewhere); the subgraph's nodes name their modules from there.
  absl::Status PlanBlock(const jit::Block* block, int parent, int depth, const std::string& module_prefix = "") {
    if (depth > kMaxPlanDepth) {
      return absl::UnimplementedError(
          absl::StrCat("blocks nest deeper than ", kMaxPlanDepth, " levels; graphprof plans up to that"));
    }
    const int index = static_cast<int>(plan_.blocks_.size());
    block_index_[block] = index;
    plan_.blocks_.emplace_back();
    for (const jit::Value* param : block->inputs()) {
      plan_.blocks_[index].params.push_back(SlotOf(param));
    }
    int position = 0;
    for (const jit::Node* node : block->nodes()) {
      const int id = static_cast<int>(plan_.nodes_.size());
      node_id_[node] = id;
      position_[node] = position++;
      plan_.nodes_.emplace_back();
      lists_.emplace_back();
      plan_.blocks_[index].nodes.push_back(id);
      absl::Status status = PlanNode(*node, id, parent, depth, module_prefix);
      if (!status.ok()) return status;
      const bool fork = plan_.nodes_[id].family == NodeFamily::kFork;
      const std::string inner_prefix = fork ? plan_.nodes_[id].identity.module : module_prefix;
      for (const jit::Block* sub : BlocksOf(node)) {
        const int sub_index = static_cast<int>(plan_.blocks_.size());
        status = PlanBlock(sub, id, depth + 1, inner_prefix);
        if (!status.ok()) return status;
        lists_[id].blocks.push_back(sub_index);
      }
    }
    for (const jit::Value* output : block->outputs()) {
      plan_.blocks_[index].returns.push_back(BlockExit{SlotOf(output), false});
    }
    return absl::OkStatus();
  }

  absl::Status PlanNode(const jit::Node& node, int id, int parent, int depth, const std::string& module_prefix) {
    NodePlan& plan = plan_.nodes_[id];
    plan.id = id;
    plan.node = &node;
    plan.kind = node.kind();
    plan.identity = IdentifyNode(node, plan_.prepared_.module_paths.get(), &schema_texts_);
    if (auto origin = plan_.prepared_.origins.find(&node); origin != plan_.prepared_.origins.end()) {
      NodeIdentity& identity = plan.identity;
      identity.module = origin->second.module;
      identity.source = origin->second.source;
      identity.archive_source.clear();
      identity.label = identity.module.empty() ? origin->second.name : absl::StrCat(identity.module, "/", origin->second.name);
    }
    if (!module_prefix.empty()) {
      NodeIdentity& identity = plan.identity;
      const std::string kind = identity.module.empty() ? identity.label : identity.label.substr(identity.module.size() + 1);
      identity.module = identity.module.empty() ? module_prefix : absl::StrCat(module_prefix, ".", identity.module);
      identity.label = absl::StrCat(identity.module, "/", kind);
    }
    plan.identity.id = id;
    plan.identity.parent = parent;
    plan.identity.depth = depth;
    NodeLists& lists = lists_[id];
    lists.inputs.reserve(node.inputs().size());
    lists.outputs.reserve(node.outputs().size());
    for (const jit::Value* input : node.inputs()) lists.inputs.push_back(NodeInput{SlotOf(input), false});
    for (const jit::Value* output : node.outputs()) lists.outputs.push_back(SlotOf(output));
    try {
      absl::Status status = Classify(node, plan);
      if (!status.ok()) return status;
      return CheckNodeShape(node, plan, Where(plan));
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, Where(plan), e);
    }
  }

  static std::string Where(const NodePlan& plan) {
    return absl::StrCat("node ", plan.id, " ", plan.identity.kind,
                        plan.identity.source.empty() ? "" : absl::StrCat(" at ", plan.identity.source));
  }

  static absl::Status Unsupported(const NodePlan& plan, absl::string_view why) {
    return absl::UnimplementedError(absl::StrCat(Where(plan), ": ", why));
  }

  absl::Status Classify(const jit::Node& node, NodePlan& plan) {
    const jit::NodeKind kind = node.kind();
    if (!plan_.options_.allow_side_effects &&
        !(plan_.options_.allow_collectives && IsCollectiveOperator(kind.toQualString()))) {
      // Profiling runs the graph many times: refused before anything runs.
      if (absl::string_view what = SideEffectOf(kind.toQualString()); !what.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            Where(plan), ": ", what, ", which profiling would repeat on every run: refused (allow side effects, "
            "--allow_side_effects or allow_side_effects=True, to run it)"));
      }
    }
    if (kind == jit::prim::Constant) {
      plan.family = NodeFamily::kConstant;
      if (node.output()->type()->kind() == c10::TypeKind::FunctionType) return absl::OkStatus();
      c10::optional<c10::IValue> value = jit::toIValue(node.output());
      if (!value.has_value()) return Unsupported(plan, "constant of an unsupported type");
      plan.constant = *std::move(value);
      return absl::OkStatus();
    }
    if (kind == jit::prim::GetAttr || kind == jit::prim::SetAttr) {
      plan.family = NodeFamily::kAttribute;
      plan.op = kind == jit::prim::GetAttr ? NodeOp::kGetAttr : NodeOp::kSetAttr;
      if (kind == jit::prim::SetAttr) plan_.shareable_ = false;
      auto cls = node.input(0)->type()->cast<c10::ClassType>();
      if (!cls) return Unsupported(plan, "attribute access on a non-class value");
      const std::string& name = node.s(jit::attr::name);
      c10::optional<size_t> slot = cls->findAttributeSlot(name);
      if (!slot.has_value()) return Unsupported(plan, absl::StrCat("no attribute '", name, "'"));
      plan.attribute_slot = *slot;
      return absl::OkStatus();
    }
    if (kind == jit::prim::If) {
      plan.family = NodeFamily::kIf;
      return absl::OkStatus();
    }
    if (kind == jit::prim::Loop) {
      plan.family = NodeFamily::kLoop;
      return absl::OkStatus();
    }
    if (kind == jit::prim::CallMethod) {
      plan.family = NodeFamily::kCall;
      plan.op = NodeOp::kCallMethod;
      plan.method_name = node.s(jit::attr::name);
      if (auto cls = node.input(0)->type()->cast<c10::ClassType>()) {
        plan.callee = cls->findMethod(plan.method_name);
      }
      return absl::OkStatus();
    }
    if (kind == jit::prim::CallFunction) {
      plan.family = NodeFamily::kCall;
      plan.op = NodeOp::kCallFunction;
      auto fn = node.input(0)->type()->cast<c10::FunctionType>();
      if (!fn) return Unsupported(plan, "call of a non-function value");
      plan.callee = fn->function();
      return absl::OkStatus();
    }
    if (kind == jit::prim::RaiseException) {
      plan.family = NodeFamily::kRaise;
      return absl::OkStatus();
    }
    // Kernels LibTorch registers only to throw "implemented directly in the
    // interpreter": run by their own handlers.
    if (kind == jit::aten::warn) {
      plan.family = NodeFamily::kWarn;
      return absl::OkStatus();
    }
    if (kind == jit::prim::fork) {
      if (!node.hasAttribute(jit::attr::Subgraph)) return Unsupported(plan, "prim::fork without a subgraph");
      plan.family = NodeFamily::kFork;
      const auto future = node.output()->type()->cast<c10::FutureType>();
      plan.type = future != nullptr ? future->getElementType() : c10::AnyType::get();
      return absl::OkStatus();
    }
    if (kind == jit::aten::wait) {
      plan.family = NodeFamily::kWait;
      return absl::OkStatus();
    }
    if (kind == jit::prim::Enter || kind == jit::prim::Exit) {
      // `with obj:` (torch.no_grad() in torchvision's RetinaNet): the
      // object's __enter__ and __exit__, as LibTorch's ENTER / EXIT do.
      plan.family = NodeFamily::kCall;
      plan.op = kind == jit::prim::Enter ? NodeOp::kEnter : NodeOp::kExit;
      plan.method_name = kind == jit::prim::Enter ? "__enter__" : "__exit__";
      auto cls = node.input(0)->type()->cast<c10::ClassType>();
      if (!cls) return Unsupported(plan, "`with` on a value that is not a class instance");
      plan.callee = cls->findMethod(plan.method_name);
      if (plan.callee == nullptr) return Unsupported(plan, absl::StrCat("`with` on a class without ", plan.method_name));
      return absl::OkStatus();
    }
    // Other instructions of LibTorch's interpreter that graphprof does not
    // run: refused here, at plan time, with the kind and source line.
    if (kind == c10::Symbol::fromQualString("prim::awaitable")) {
      return Unsupported(plan, "torch.jit._awaitable is not supported");
    }
    if (absl::string_view why = InterpreterOnly(kind); !why.empty()) return Unsupported(plan, why);
    if (ClassifyContainer(node, plan)) {
      plan.family = NodeFamily::kContainer;
      return absl::OkStatus();
    }
    if (node.maybeOperator() != nullptr) {
      plan.family = NodeFamily::kOperator;
      const jit::Operator& op = node.getOperator();
      plan.vararg = op.hasOperation() && op.schema().is_vararg();
      plan.operation = OperationFor(node, op);
      return absl::OkStatus();
    }
    return Unsupported(plan, "unsupported node kind (no operator and no interpreter handler)");
  }

  // Kinds LibTorch's interpreter turns into instructions of its own, some of
  // them registered as operators only to throw when run ("must be lowered"):
  // refused here, why given, so that they fail before anything runs
  // (docs/cpp.md, "Node kinds"; tests/node_kinds_test.cc).
  static absl::string_view InterpreterOnly(jit::NodeKind kind) {
    static const auto* const kinds = new std::vector<std::pair<c10::Symbol, absl::string_view>>{
        {c10::Symbol::fromQualString("prim::Drop"), "emitted by LibTorch's code generator only"},
        {c10::Symbol::fromQualString("prim::PythonOp"), "Python code, which LibTorch cannot run from C++"},
        {c10::Symbol::fromQualString("prim::profile"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::profile_ivalue"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::TypeCheck"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::RequiresGradCheck"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::BailOut"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::BailoutTemplate"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::Guard"), "the profiling executor's instrumentation"},
        {c10::Symbol::fromQualString("prim::DifferentiableGraph"), "a fused subgraph of the optimizing executor"},
        {c10::Symbol::fromQualString("prim::TensorExprGroup"), "a fused subgraph of the optimizing executor"},
        {c10::Symbol::fromQualString("prim::FusionGroup"), "a fused subgraph of the optimizing executor"},
        {c10::Symbol::fromQualString("prim::CudaFusionGroup"), "a fused subgraph of the optimizing executor"},
    };
    for (const auto& [symbol, why] : *kinds) {
      if (symbol == kind) return why;
    }
    return {};
  }

  // One Operation per operator; operators built by an OperationCreator
  // (e.g. prim::ConstantChunk) depend on their node and get their own.
  jit::Operation* OperationFor(const jit::Node& node, const jit::Operator& op) {
    if (op.hasOperation()) {
      auto it = operation_index_.find(&op);
      if (it != operation_index_.end()) return it->second;
      jit::Operation* shared = &plan_.operations_.emplace_back(op.getOperation(&node));
      operation_index_.emplace(&op, shared);
      return shared;
    }
    return &plan_.operations_.emplace_back(node.getOperation());
  }

  static bool ClassifyContainer(const jit::Node& node, NodePlan& plan) {
    const jit::NodeKind kind = node.kind();
    if (kind == jit::prim::ListConstruct) {
      plan.op = NodeOp::kListConstruct;
      plan.type = node.output()->type()->expectRef<c10::ListType>().getElementType();
    } else if (kind == jit::prim::ListUnpack) {
      plan.op = NodeOp::kListUnpack;
    } else if (kind == jit::prim::TupleConstruct) {
      plan.op = NodeOp::kTupleConstruct;
      plan.type = node.output()->type();
    } else if (kind == jit::prim::TupleUnpack) {
      plan.op = NodeOp::kTupleUnpack;
    } else if (kind == jit::prim::TupleSlice) {
      plan.op = NodeOp::kTupleSlice;
      plan.slice_begin = node.i(jit::attr::beg);
      plan.slice_end = node.i(jit::attr::end);
    } else if (kind == jit::prim::DictConstruct) {
      plan.op = NodeOp::kDictConstruct;
      const auto& dict = node.output()->type()->expectRef<c10::DictType>();
      plan.type = dict.getKeyType();
      plan.value_type = dict.getValueType();
    } else if (kind == jit::prim::isinstance) {
      plan.op = NodeOp::kIsInstance;
      plan.candidate_types = node.tys(jit::attr::types);
    } else if (kind == jit::prim::CreateObject) {
      // A TorchScript class instance (@torch.jit.script classes, e.g.
      // torchvision's ImageList): its __init__ follows as SetAttr nodes.
      if (!node.output()->type()->cast<c10::ClassType>()) return false;
      plan.op = NodeOp::kCreateObject;
      plan.type = node.output()->type();
    } else {
      return false;
    }
    return true;
  }

  // Decides, for every value, where it dies: moved out by its last direct
  // user, released after the node whose block uses it last, released on
  // block entry (unused parameters), or handed over by a block return.
  void PlanLifetimes() {
    for (const jit::Value* value : values_) {
      const Slot slot = slots_.at(value);
      const jit::Block* home = value->node()->owningBlock();
      bool returned = false;
      const jit::Node* last = nullptr;
      int last_position = -1;
      bool nested_at_last = false;
      int last_offset = -1;
      for (const jit::Use& use : value->uses()) {
        const jit::Node* user = use.user;
        bool nested = false;
        while (user->owningBlock() != home) {
          user = user->owningBlock()->owningNode();
          nested = true;
        }
        if (user == home->return_node()) {
          returned = true;
          continue;
        }
        const int position = position_.at(user);
        if (position > last_position) {
          last_position = position;
          last = user;
          nested_at_last = nested;
          last_offset = nested ? -1 : static_cast<int>(use.offset);
        } else if (position == last_position) {
          nested_at_last = nested_at_last || nested;
          if (!nested) last_offset = std::max(last_offset, static_cast<int>(use.offset));
        }
      }
      if (returned) continue;
      if (last == nullptr) {
        if (value->node()->kind() == jit::prim::Param) {
          plan_.blocks_[block_index_.at(home)].release_on_entry.push_back(slot);
        } else {
          lists_[node_id_.at(value->node())].release.push_back(slot);
        }
      } else if (!nested_at_last) {
        lists_[node_id_.at(last)].inputs[last_offset].move = true;
      } else {
        lists_[node_id_.at(last)].release.push_back(slot);
      }
    }
    // A value defined in a block and returned from it is moved out by its last
    // occurrence in the return list; earlier occurrences copy.
    for (auto [block, index] : block_index_) {
      BlockPlan& plan = plan_.blocks_[index];
      for (size_t j = 0; j < plan.returns.size(); ++j) {
        const jit::Value* value = block->outputs()[j];
        bool later_duplicate = false;
        for (size_t k = j + 1; k < plan.returns.size(); ++k) {
          later_duplicate = later_duplicate || block->outputs()[k] == value;
        }
        plan.returns[j].move = value->node()->owningBlock() == block && !later_duplicate;
      }
    }
  }

  // Copies the per-node lists into the plan's pools and points the spans at them.
  void Flatten() {
    size_t num_inputs = 0, num_slots = 0, num_blocks = 0;
    for (const NodeLists& l : lists_) {
      num_inputs += l.inputs.size();
      num_slots += l.outputs.size() + l.release.size();
      num_blocks += l.blocks.size();
    }
    plan_.input_pool_.reserve(num_inputs);  // reserved: spans must not move
    plan_.slot_pool_.reserve(num_slots);
    plan_.block_pool_.reserve(num_blocks);
    for (size_t id = 0; id < lists_.size(); ++id) {
      const NodeLists& l = lists_[id];
      NodePlan& node = plan_.nodes_[id];
      node.inputs = Append(plan_.input_pool_, l.inputs);
      node.outputs = Append(plan_.slot_pool_, l.outputs);
      node.release = Append(plan_.slot_pool_, l.release);
      node.blocks = Append(plan_.block_pool_, l.blocks);
      plan_.max_stack_ = std::max({plan_.max_stack_, l.inputs.size() + 1, l.outputs.size()});
    }
  }

  template <typename T>
  static absl::Span<const T> Append(std::vector<T>& pool, const std::vector<T>& items) {
    const size_t begin = pool.size();
    pool.insert(pool.end(), items.begin(), items.end());
    return absl::Span<const T>(pool.data() + begin, items.size());
  }

  // A node's lists while planning (flattened into the plan at the end).
  struct NodeLists {
    std::vector<NodeInput> inputs;
    std::vector<Slot> outputs;
    std::vector<Slot> release;
    std::vector<int> blocks;
  };

  GraphPlan& plan_;
  std::vector<NodeLists> lists_;
  std::unordered_map<const jit::Value*, Slot> slots_;
  std::vector<const jit::Value*> values_;
  std::unordered_map<const jit::Node*, int> node_id_;
  std::unordered_map<const jit::Node*, int> position_;
  std::unordered_map<const jit::Block*, int> block_index_;
  std::unordered_map<const jit::Operator*, jit::Operation*> operation_index_;
  SchemaTexts schema_texts_;
};

GraphPlan::GraphPlan(PreparedGraph prepared, const PlanOptions& options)
    : prepared_(std::move(prepared)), options_(options) {
  if (prepared_.module.has_value()) self_ = c10::IValue(prepared_.module->_ivalue());
}

c10::optional<Slot> GraphPlan::SlotOf(const torch::jit::Value* value) const {
  auto it = slot_of_.find(value);
  if (it == slot_of_.end()) return c10::nullopt;
  return it->second;
}

const torch::jit::Node* GraphPlan::OriginalNode(int id) const {
  if (id < 0 || id >= static_cast<int>(nodes_.size())) return nullptr;
  auto it = prepared_.original_of.find(nodes_[id].node);
  return it == prepared_.original_of.end() ? nullptr : it->second;
}

int GraphPlan::NodeIdOf(const torch::jit::Node* original) const {
  auto it = id_of_original_.find(original);
  return it == id_of_original_.end() ? -1 : it->second;
}

absl::StatusOr<std::shared_ptr<const GraphPlan>> GraphPlan::Build(PreparedGraph prepared, const PlanOptions& options) {
  if (prepared.graph == nullptr) return absl::InvalidArgumentError("GraphPlan::Build: no graph");
  std::shared_ptr<GraphPlan> plan(new GraphPlan(std::move(prepared), options));
  if (plan->self_.has_value() && plan->prepared_.graph->inputs().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(plan->name(), ": method graph has no self input"));
  }
  absl::Status status = Builder(*plan).Build();
  if (!status.ok()) return Annotate(status, plan->name());
  plan->warned_ = std::make_unique<std::atomic<bool>[]>(plan->nodes_.size());
  for (size_t i = 0; i < plan->nodes_.size(); ++i) plan->warned_[i].store(false, std::memory_order_relaxed);
  for (const NodePlan& node : plan->nodes_) {
    auto it = plan->prepared_.original_of.find(node.node);
    if (it != plan->prepared_.original_of.end()) plan->id_of_original_.emplace(it->second, node.id);
  }
  return std::shared_ptr<const GraphPlan>(std::move(plan));
}

}  // namespace graphprof
