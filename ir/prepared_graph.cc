#include "ir/prepared_graph.h"

#include <torch/csrc/jit/passes/tensorexpr_fuser.h>

#include <mutex>

#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"
#include "ir/inliner.h"

namespace graphprof {
namespace {

// Inline leaves the Function-typed constants of inlined calls behind, unused.
void RemoveDeadFunctionConstants(torch::jit::Block* block) {
  for (auto it = block->nodes().rbegin(); it != block->nodes().rend();) {
    torch::jit::Node* node = *it;
    ++it;
    for (torch::jit::Block* sub : node->blocks()) RemoveDeadFunctionConstants(sub);
    if (node->kind() == torch::jit::prim::Constant && !node->output()->hasUses() &&
        node->output()->type()->kind() == c10::TypeKind::FunctionType) {
      node->destroy();
    }
  }
}

// Graph::copy() keeps the structure, so walking both in step pairs the nodes.
void MapCopiedNodes(const torch::jit::Block* copy, const torch::jit::Block* original,
                    std::unordered_map<const torch::jit::Node*, const torch::jit::Node*>& out) {
  auto c = copy->nodes().begin();
  auto o = original->nodes().begin();
  for (; c != copy->nodes().end() && o != original->nodes().end(); ++c, ++o) {
    out[*c] = *o;
    for (size_t b = 0; b < c->blocks().size() && b < o->blocks().size(); ++b) {
      MapCopiedNodes(c->blocks()[b], o->blocks()[b], out);
    }
  }
}

// Keeps the entries of nodes still in the graph. A destroyed node's address
// may be reused by a node the inliner created; such a node has another kind
// (the inliner destroys call nodes, and inlines every call it creates).
void KeepLiveNodes(const torch::jit::Block* block,
                   const std::unordered_map<const torch::jit::Node*, const torch::jit::Node*>& all,
                   std::unordered_map<const torch::jit::Node*, const torch::jit::Node*>& live) {
  for (const torch::jit::Node* node : block->nodes()) {
    auto it = all.find(node);
    if (it != all.end() && it->second->kind() == node->kind()) live.insert(*it);
    for (const torch::jit::Block* sub : node->blocks()) KeepLiveNodes(sub, all, live);
  }
}

void InlineAndClean(torch::jit::Graph& graph, bool inline_calls);

std::shared_ptr<torch::jit::Graph> CopyForInterpretation(
    const torch::jit::Graph& graph, bool inline_calls,
    std::unordered_map<const torch::jit::Node*, const torch::jit::Node*>* original_of) {
  std::shared_ptr<torch::jit::Graph> copy = const_cast<torch::jit::Graph&>(graph).copy();
  std::unordered_map<const torch::jit::Node*, const torch::jit::Node*> all;
  all.reserve(static_cast<size_t>(std::distance(graph.nodes().begin(), graph.nodes().end())));
  MapCopiedNodes(copy->block(), graph.block(), all);
  InlineAndClean(*copy, inline_calls);
  original_of->clear();
  KeepLiveNodes(copy->block(), all, *original_of);
  return copy;
}

// True when dead-code elimination would remove nothing, found in one pass
// over the nodes (the pass itself builds an AliasDb: about 2 us a node): no
// node has blocks or a subgraph (their outputs and inputs may be pruned), and
// every node has an output that is used. Then the last node's used output is
// used by the return, and by induction backwards every node feeds a live one.
bool NothingDead(const torch::jit::Graph& graph) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (!node->blocks().empty() || node->hasAttribute(torch::jit::attr::Subgraph)) return false;
    const auto outputs = node->outputs();
    if (std::none_of(outputs.begin(), outputs.end(), [](const torch::jit::Value* v) { return v->hasUses(); })) {
      return false;
    }
  }
  return true;
}

// torch.jit.fork's closure is the prim::fork node's Subgraph attribute,
// which Inline does not enter: its calls are inlined here (on a copy), so
// that the forked nodes run as nodes with module paths of their own.
void InlineForkSubgraphs(torch::jit::Block* block) {
  for (torch::jit::Node* node : block->nodes()) {
    for (torch::jit::Block* sub : node->blocks()) InlineForkSubgraphs(sub);
    if (node->kind() != torch::jit::prim::fork || !node->hasAttribute(torch::jit::attr::Subgraph)) continue;
    std::shared_ptr<torch::jit::Graph> subgraph = node->g(torch::jit::attr::Subgraph)->copy();
    // The modules the fork passes in are named by the attributes they came from.
    std::vector<std::string> instances;
    for (const torch::jit::Value* input : node->inputs()) {
      instances.push_back(input->node()->kind() == torch::jit::prim::GetAttr ? input->node()->s(torch::jit::attr::name)
                                                                             : "");
    }
    InlineCalls(*subgraph, std::move(instances));
    InlineForkSubgraphs(subgraph->block());
    RemoveDeadFunctionConstants(subgraph->block());
    node->g_(torch::jit::attr::Subgraph, subgraph);
  }
}

void InlineAndClean(torch::jit::Graph& graph, bool inline_calls) {
  if (inline_calls) {
    InlineCalls(graph);
    InlineForkSubgraphs(graph.block());
  }
  if (NothingDead(graph)) return;
  std::shared_ptr<torch::jit::Graph> shared(&graph, [](torch::jit::Graph*) {});
  try {
    // Drops what the graph executor would drop too (it runs the same pass).
    torch::jit::EliminateDeadCode(shared);
  } catch (const std::exception&) {
    // Alias analysis rejects node kinds LibTorch does not know; GraphPlan
    // reports those clearly. Only the inliner's leftovers must go.
    RemoveDeadFunctionConstants(graph.block());
  }
}

}  // namespace

absl::StatusOr<PreparedGraph> PrepareOwnedGraph(std::shared_ptr<torch::jit::Graph> graph, std::string name) {
  if (graph == nullptr) return absl::InvalidArgumentError("PrepareOwnedGraph: no graph");
  PreparedGraph prepared;
  prepared.name = std::move(name);
  try {
    InlineAndClean(*graph, /*inline_calls=*/true);
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("preparing ", prepared.name), e);
  }
  prepared.graph = std::move(graph);
  return prepared;
}

size_t PreparedGraph::num_user_inputs() const {
  return graph->inputs().size() - (has_self() ? 1 : 0);
}

std::string PreparedGraph::DescribeUserInputs() const {
  std::vector<std::string> parts;
  const auto inputs = graph->inputs();
  for (size_t i = has_self() ? 1 : 0; i < inputs.size(); ++i) {
    parts.push_back(absl::StrCat(inputs[i]->debugNameBase(), ": ", inputs[i]->type()->annotation_str()));
  }
  return absl::StrJoin(parts, ", ");
}

void UseUnfusedNativeExecution() {
  static std::once_flag once;
  std::call_once(once, [] { torch::jit::setTensorExprFuserEnabled(false); });
}

absl::StatusOr<PreparedGraph> PrepareMethod(const torch::jit::Module& module,
                                            const PrepareOptions& options) {
  UseUnfusedNativeExecution();
  const std::string type_name = module.type()->name() ? module.type()->name()->name() : "module";
  PreparedGraph prepared;
  prepared.name = absl::StrCat(type_name, ".", options.method);
  prepared.method = options.method;
  std::vector<Pass> passes = options.passes;
  if (options.freeze) {
    absl::StatusOr<std::vector<Pass>> freeze = ParsePasses("freeze");
    if (!freeze.ok()) return freeze.status();
    passes.insert(passes.begin(), freeze->begin(), freeze->end());
  }
  try {
    if (!module.find_method(options.method).has_value()) {
      return absl::NotFoundError(absl::StrCat(type_name, " has no method '", options.method, "'"));
    }
    prepared.module_paths = ModulePaths::Build(module);
    torch::jit::Module source = module;
    if (!passes.empty()) {
      absl::StatusOr<torch::jit::Module> transformed = ApplyPasses(module, passes, options.method);
      if (!transformed.ok()) return Annotate(transformed.status(), type_name);
      source = *std::move(transformed);
      prepared.passes = DescribePasses(passes);
    }
    c10::optional<torch::jit::Method> method = source.find_method(options.method);
    if (!method.has_value()) {
      return absl::NotFoundError(absl::StrCat(type_name, " has no method '", options.method, "' after ",
                                              prepared.passes));
    }
    prepared.graph = CopyForInterpretation(*method->graph(), options.inline_calls, &prepared.original_of);
    prepared.module = source;
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument,
                               absl::StrCat("preparing ", prepared.name), e);
  }
  return prepared;
}

absl::StatusOr<PreparedGraph> PrepareGraph(const torch::jit::Graph& graph, std::string name,
                                           bool inline_calls) {
  PreparedGraph prepared;
  prepared.name = std::move(name);
  try {
    prepared.graph = CopyForInterpretation(graph, inline_calls, &prepared.original_of);
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument,
                               absl::StrCat("preparing ", prepared.name), e);
  }
  return prepared;
}

}  // namespace graphprof
