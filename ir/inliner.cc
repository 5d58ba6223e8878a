#include "ir/inliner.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>

#include <functional>
#include <unordered_map>

namespace torch::jit {
// What GraphFunction::optimized_graph() runs on a callee's graph; exported
// from libtorch_cpu but declared in no installed header.
TORCH_API void preoptimizeGraph(std::shared_ptr<Graph>& graph, bool disable_autocast);
}  // namespace torch::jit

// ModuleInstanceInfo's constructor is declared in ir/scope.h but not exported
// from LibTorch 1.13's libtorch_cpu.so (the struct lacks TORCH_API), so it is
// defined here, as in LibTorch's scope.cpp.
torch::jit::ModuleInstanceInfo::ModuleInstanceInfo(c10::ClassTypePtr module_type, std::string instance_name)
    : module_type_(std::move(module_type)), instance_name_(std::move(instance_name)) {}

namespace graphprof {
namespace {

namespace jit = torch::jit;

class Inliner {
 public:
  // `input_instances`: instance names for calls whose receiver is an input
  // of `top` ("" where none is known).
  Inliner(const jit::Graph* top, std::vector<std::string> input_instances)
      : top_(top), input_instances_(std::move(input_instances)) {}

  void InlineBlock(jit::Block* block) {
    for (auto it = block->nodes().begin(), end = block->nodes().end(); it != end;) {
      jit::Node* node = *it++;
      if (node->kind() == jit::prim::CallFunction || node->kind() == jit::prim::CallMethod) {
        if (jit::GraphFunction* callee = jit::tryToGraphFunction(node)) {
          c10::optional<jit::ModuleInstanceInfo> instance = Instance(node);
          InlineCall(node, callee, Body(callee), instance);
          continue;
        }
      }
      for (jit::Block* sub : node->blocks()) InlineBlock(sub);
    }
  }

 private:
  // The frame's module instance, named as LibTorch's inliner names it: the
  // attribute the callee was read from, "SELF" for the graph's own module.
  // A fork's subgraph receives its modules as inputs: they are named by
  // the caller (InlineCalls' input_instances).
  c10::optional<jit::ModuleInstanceInfo> Instance(jit::Node* call) const {
    if (call->kind() == jit::prim::CallFunction) {
      call->removeInput(0);  // the Function constant
      return c10::nullopt;
    }
    auto cls = call->input(0)->type()->cast<c10::ClassType>();
    // A method of a TorchScript class instance (torchvision's ImageList)
    // runs in its caller's module: no module level of its own.
    if (cls != nullptr && !cls->is_module()) return jit::ModuleInstanceInfo(cls, "SELF");
    const jit::Node* producer = call->input(0)->node();
    if (producer->kind() == jit::prim::GetAttr) return jit::ModuleInstanceInfo(cls, producer->s(jit::attr::name));
    if (call->owningGraph() == top_ && producer->kind() == jit::prim::Param) {
      const size_t k = call->input(0)->offset();
      if (k < input_instances_.size() && !input_instances_[k].empty()) {
        return jit::ModuleInstanceInfo(cls, input_instances_[k]);
      }
    }
    if (call->input(0) == call->owningGraph()->inputs().at(0)) return jit::ModuleInstanceInfo(cls, "SELF");
    return jit::ModuleInstanceInfo(cls, "INSTANCE_NAME_UNKNOWN");
  }

  // The callee's graph, inlined and pre-optimised as optimized_graph() would be.
  std::shared_ptr<jit::Graph> Body(jit::GraphFunction* callee) {
    auto it = bodies_.find(callee);
    if (it != bodies_.end()) return it->second;
    std::shared_ptr<jit::Graph> body = callee->graph()->copy();
    InlineBlock(body->block());
    if (jit::getGraphExecutorOptimize()) jit::preoptimizeGraph(body, /*disable_autocast=*/false);
    bodies_.emplace(callee, body);
    return body;
  }

  void InlineCall(jit::Node* call, jit::GraphFunction* callee, const std::shared_ptr<jit::Graph>& body,
                  const c10::optional<jit::ModuleInstanceInfo>& instance) {
    jit::WithInsertPoint guard(call);
    jit::Node* before = call->prev();
    std::unordered_map<jit::Value*, jit::Value*> value_map;
    std::vector<jit::Value*> outputs = jit::insertGraph(*call->owningGraph(), *body, call->inputs(), value_map);
    // One new frame per distinct inner stack, shared by the nodes that had it.
    std::unordered_map<jit::InlinedCallStack*, jit::InlinedCallStackPtr> frames;
    std::function<void(jit::Node*)> mark = [&](jit::Node* node) {
      c10::optional<jit::InlinedCallStackPtr> inner = node->callstack();
      jit::InlinedCallStack* key = inner ? inner->get() : nullptr;
      auto frame = frames.find(key);
      if (frame == frames.end()) {
        frame = frames
                    .emplace(key, inner ? c10::make_intrusive<jit::InlinedCallStack>(*inner, callee,
                                                                                    call->sourceRange(), instance)
                                        : c10::make_intrusive<jit::InlinedCallStack>(callee, call->sourceRange(),
                                                                                    instance))
                    .first;
      }
      node->setCallStack(frame->second);
      for (jit::Block* sub : node->blocks()) {
        for (jit::Node* nested : sub->nodes()) mark(nested);
      }
    };
    for (jit::Node* node = before->next(); node != call; node = node->next()) mark(node);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (call->outputs()[i]->hasDebugName()) outputs[i]->setDebugName(call->outputs()[i]->debugName());
      call->outputs()[i]->replaceAllUsesWith(outputs[i]);
    }
    call->destroy();
  }

  std::unordered_map<jit::GraphFunction*, std::shared_ptr<jit::Graph>> bodies_;
  const jit::Graph* top_;
  std::vector<std::string> input_instances_;
};

}  // namespace

void InlineCalls(torch::jit::Graph& graph) { Inliner(&graph, {}).InlineBlock(graph.block()); }

void InlineCalls(torch::jit::Graph& graph, std::vector<std::string> input_instances) {
  Inliner(&graph, std::move(input_instances)).InlineBlock(graph.block());
}

}  // namespace graphprof
