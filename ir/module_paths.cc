#include "ir/module_paths.h"

#include <torch/csrc/jit/api/function_impl.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphprof {
namespace {

namespace jit = torch::jit;

void Append(std::string& path, const std::string& part) {
  if (part.empty()) return;
  path = path.empty() ? part : absl::StrCat(path, ".", part);
}

bool IsSelfFrame(const jit::ModuleInstanceInfo& instance) {
  return instance.instance_name() == "SELF" || instance.instance_name() == "self" ||
         instance.instance_name().empty();
}

}  // namespace

std::shared_ptr<const ModulePaths> ModulePaths::Build(const torch::jit::Module& root) {
  auto paths = std::shared_ptr<ModulePaths>(new ModulePaths());
  std::set<const c10::ClassType*> seen;
  for (const jit::Module& module : root.modules()) {  // the root included
    if (!seen.insert(module.type().get()).second) continue;
    for (jit::Function* method : module.type()->methods()) {
      if (jit::GraphFunction* function = jit::tryToGraphFunction(*method)) {
        const std::shared_ptr<jit::Graph>& graph = function->graph();
        if (!graph->inputs().empty()) paths->Scan(graph->block(), graph->inputs()[0]);
      }
    }
  }
  return paths;
}

namespace {

// The attribute chain from one of `roots` (self, or a fork subgraph's module
// inputs) to `value` through prim::GetAttr, or nullopt when it is not reached.
c10::optional<std::vector<std::string>> ChainFrom(
    const jit::Value* value, const std::map<const jit::Value*, std::vector<std::string>>& roots) {
  std::vector<std::string> tail;
  while (roots.count(value) == 0) {
    if (value->node()->kind() != jit::prim::GetAttr) return c10::nullopt;
    tail.insert(tail.begin(), value->node()->s(jit::attr::name));
    value = value->node()->input(0);
  }
  std::vector<std::string> chain = roots.at(value);
  chain.insert(chain.end(), tail.begin(), tail.end());
  return chain;
}

}  // namespace

void ModulePaths::Scan(const torch::jit::Block* block, const torch::jit::Value* self) {
  Scan(block, std::map<const jit::Value*, std::vector<std::string>>{{self, {}}});
}

void ModulePaths::Scan(const torch::jit::Block* block,
                       const std::map<const torch::jit::Value*, std::vector<std::string>>& roots) {
  for (const jit::Node* node : block->nodes()) {
    for (const jit::Block* sub : node->blocks()) Scan(sub, roots);
    // torch.jit.fork's closure: its inputs are the caller's values, so the
    // modules it calls are named from the caller's self (InlineCalls names
    // their frames by the same attributes).
    if (node->kind() == jit::prim::fork && node->hasAttribute(jit::attr::Subgraph)) {
      const std::shared_ptr<jit::Graph>& sub = node->g(jit::attr::Subgraph);
      std::map<const jit::Value*, std::vector<std::string>> inner;
      for (size_t k = 0; k < node->inputs().size() && k < sub->inputs().size(); ++k) {
        if (auto chain = ChainFrom(node->input(k), roots)) inner[sub->inputs()[k]] = *chain;
      }
      Scan(sub->block(), inner);
      continue;
    }
    if (node->kind() != jit::prim::CallMethod) continue;
    c10::optional<std::vector<std::string>> chain = ChainFrom(node->input(0), roots);
    if (!chain.has_value()) continue;  // not reached from self (an interface call, say)
    const jit::SourceRange& range = node->sourceRange();
    CallSite site{range.source().get(), range.start(), range.end(), chain->empty() ? "SELF" : chain->back()};
    chains_[site].insert(absl::StrJoin(*chain, "."));
  }
}

std::string ModulePaths::PathOf(const torch::jit::Node& node) const {
  c10::optional<jit::InlinedCallStackPtr> stack = node.callstack();
  if (!stack.has_value()) return "";
  std::string path;
  for (const jit::InlinedCallStackEntry& entry : (*stack)->vec()) {  // outermost first
    const c10::optional<jit::ModuleInstanceInfo>& instance = std::get<2>(entry);
    if (!instance.has_value() || IsSelfFrame(*instance)) continue;
    const jit::SourceRange& range = std::get<1>(entry);
    auto it = chains_.find(CallSite{range.source().get(), range.start(), range.end(), instance->instance_name()});
    Append(path, it != chains_.end() && it->second.size() == 1 ? *it->second.begin() : instance->instance_name());
  }
  return path;
}

std::string ModulePaths::FromCallStack(const torch::jit::Node& node) {
  c10::optional<jit::InlinedCallStackPtr> stack = node.callstack();
  if (!stack.has_value()) return "";
  std::string path;
  for (const jit::InlinedCallStackEntry& entry : (*stack)->vec()) {
    const c10::optional<jit::ModuleInstanceInfo>& instance = std::get<2>(entry);
    if (instance.has_value() && !IsSelfFrame(*instance)) Append(path, instance->instance_name());
  }
  return path;
}

}  // namespace graphprof
