// The diff's node matching (diff_matching.h).
#include "profilers/report/diff_matching.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/module_path.h"
#include "profilers/report/views.h"

namespace graphprof::diff_internal {
namespace {

// Op families whose members passes turn into one another (a conv into its
// MKLDNN or fused form, a linear into matmul + add), or null.
const char* OpFamily(const std::string& kind) {
  const std::string name = kind.substr(kind.find(':') == std::string::npos ? 0 : kind.rfind(':') + 1);
  for (const char* family : {"conv", "linear", "matmul", "addmm", "pool", "norm", "relu", "lstm", "gru"}) {
    if (name.find(family) != std::string::npos) {
      const std::string f = family;
      if (f == "matmul" || f == "addmm") return "linear";
      return family;
    }
  }
  return nullptr;
}

std::string ParentModule(const std::string& module) {
  const size_t dot = module.rfind('.');
  return dot == std::string::npos ? "" : module.substr(0, dot);
}

// The nodes of one side that take part, in execution order.
std::vector<const NodeRecord*> Participants(const Report& report, const DiffOptions& options, int* left_out) {
  std::vector<const NodeRecord*> nodes;
  for (const NodeRecord& node : report.nodes) {
    if (options.include_unexecuted || node.executed()) {
      nodes.push_back(&node);
    } else {
      ++*left_out;
    }
  }
  return nodes;
}

class Matcher {
 public:
  Matcher(const Report& base, const Report& current, const DiffOptions& options, ReportDiff& diff)
      : diff_(diff), base_report_(base), current_report_(current) {
    base_nodes_ = Participants(base, options, &diff.unexecuted);
    current_nodes_ = Participants(current, options, &diff.unexecuted);
    base_partner_.assign(base.nodes.size(), -1);
    current_partner_.assign(current.nodes.size(), -1);
    gain_.assign(current.nodes.size(), 0);
    replaced_.assign(current.nodes.size(), false);
    current_nodes_by_id_.assign(current.nodes.size(), nullptr);
    for (const NodeRecord* c : current_nodes_) {
      gain_[c->identity.id] = MeanSelf(*c);
      current_nodes_by_id_[c->identity.id] = c;
    }
  }

  void Run() {
    Pair(NodeDelta::Match::kSame,
         [](const NodeRecord& n) { return absl::StrCat(n.identity.kind, "|", n.identity.module, "|", n.identity.source); });
    Pair(NodeDelta::Match::kKindAndModule,
         [](const NodeRecord& n) { return absl::StrCat(n.identity.kind, "|", n.identity.module); });
    // A module's nodes whose op changed into an op of the same family
    // (aten::conv2d -> prim::mkldnn_convolution): by family first, so that
    // timing noise between a conv and its batch norm cannot swap them.
    Pair(NodeDelta::Match::kReplaced, [](const NodeRecord& n) {
      const char* family = OpFamily(n.identity.kind);
      return n.identity.module.empty() || family == nullptr ? std::string()
                                                            : absl::StrCat(n.identity.module, "|", family);
    });
    // Then a module's nodes whose op changed, heaviest with heaviest (the op
    // a pass rewrites is the one that costs); not at the root, where every
    // node of a bare graph lives and only the kind could tell them apart.
    Pair(NodeDelta::Match::kReplaced,
         [](const NodeRecord& n) { return n.identity.module.empty() ? std::string() : n.identity.module; },
         /*by_time=*/true);
    MergeOrRemove();
    for (const NodeRecord* c : current_nodes_) {
      if (current_partner_[c->identity.id] >= 0) continue;
      NodeDelta d = Delta(nullptr, c, NodeDelta::Match::kAdded);
      diff_.nodes.push_back(d);
      ++diff_.added;
    }
  }

  double matched_base_ns() const { return matched_base_ns_; }

 private:
  // Pairs still unmatched nodes with equal keys, k-th with k-th in execution
  // order (or in descending self time). An empty key takes no part.
  void Pair(NodeDelta::Match match, const std::function<std::string(const NodeRecord&)>& key, bool by_time = false) {
    auto heavier = [](const NodeRecord* a, const NodeRecord* b) { return MeanSelf(*a) > MeanSelf(*b); };
    std::unordered_map<std::string, std::deque<const NodeRecord*>> waiting;
    for (const NodeRecord* b : base_nodes_) {
      if (base_partner_[b->identity.id] >= 0) continue;
      std::string k = key(*b);
      if (!k.empty()) waiting[k].push_back(b);
    }
    std::vector<const NodeRecord*> order = current_nodes_;
    if (by_time) {
      for (auto& [k, queue] : waiting) std::stable_sort(queue.begin(), queue.end(), heavier);
      std::stable_sort(order.begin(), order.end(), heavier);
    }
    for (const NodeRecord* c : order) {
      if (current_partner_[c->identity.id] >= 0) continue;
      const std::string k = key(*c);
      if (k.empty()) continue;
      auto it = waiting.find(k);
      if (it == waiting.end() || it->second.empty()) continue;
      const NodeRecord* b = it->second.front();
      it->second.pop_front();
      base_partner_[b->identity.id] = c->identity.id;
      current_partner_[c->identity.id] = b->identity.id;
      gain_[c->identity.id] -= MeanSelf(*b);
      matched_base_ns_ += MeanSelf(*b);
      if (match == NodeDelta::Match::kReplaced) replaced_[c->identity.id] = true;
      diff_.nodes.push_back(Delta(b, c, match));
      Count(match);
    }
  }

  // A base node left over merged into a node the pass created or changed
  // (added or replaced) in its module or its parent module. Fusions fold a
  // node into what produced its input (batch norm into the conv before it),
  // so when the nearest earlier matched node of the scope was replaced, its
  // replacement wins; else the changed node whose time grew most. Nodes that merely kept their
  // op are never merge targets, so timing noise cannot attract merges.
  // Without a candidate the node was removed.
  //
  // A current row that says which modules' nodes it computes (a compiled
  // kernel's fused_modules) takes the base nodes of those modules first,
  // wherever its own module is: that is what it computes, not a guess.
  void MergeOrRemove() {
    for (size_t i = 0; i < base_nodes_.size(); ++i) {
      const NodeRecord* b = base_nodes_[i];
      if (base_partner_[b->identity.id] >= 0) continue;
      const std::string& module = b->identity.module;
      std::vector<std::string> scopes = {module};
      if (!module.empty()) scopes.push_back(ParentModule(module));
      const NodeRecord* into = FusingRow(module);
      for (const std::string& scope : scopes) {
        if (into != nullptr || (scope.empty() && !module.empty())) break;
        auto candidate = [&](int id) {
          return id >= 0 && (current_partner_[id] < 0 || replaced_[id]) &&
                 InModule(current_nodes_by_id_[id]->identity.module, scope);
        };
        // The nearest earlier base node of this scope that has a partner.
        for (size_t j = i; j-- > 0;) {
          const NodeRecord* earlier = base_nodes_[j];
          const int partner = base_partner_[earlier->identity.id];
          if (partner < 0 || !InModule(earlier->identity.module, scope)) continue;
          if (replaced_[partner] && candidate(partner)) into = current_nodes_by_id_[partner];
          break;
        }
        for (const NodeRecord* c : current_nodes_) {
          if (into != nullptr && replaced_[into->identity.id]) break;
          if (!candidate(c->identity.id)) continue;
          if (into == nullptr || gain_[c->identity.id] > gain_[into->identity.id]) into = c;
        }
      }
      const double ns = MeanSelf(*b);
      if (into != nullptr) {
        gain_[into->identity.id] -= ns;
        matched_base_ns_ += ns;
        NodeDelta d = Delta(b, nullptr, NodeDelta::Match::kMerged);
        d.current_id = into->identity.id;
        d.name = absl::StrCat(b->identity.label, " -> ", into->identity.label);
        diff_.nodes.push_back(d);
        ++diff_.merged;
      } else {
        diff_.nodes.push_back(Delta(b, nullptr, NodeDelta::Match::kRemoved));
        ++diff_.removed;
      }
    }
  }

  // The current row fusing `module`'s nodes (fused_modules naming it or a
  // module holding it; the root's own nodes only by the root itself), or
  // nullptr: of several, one naming `module` itself before one naming a
  // module holding it, then the one charged to the deepest module (a
  // block's batch norm and relu rather than a kernel of the root that also
  // works for the block), then the one whose time grew most.
  const NodeRecord* FusingRow(const std::string& module) const {
    const NodeRecord* into = nullptr;
    int into_exact = 0;
    auto depth = [](const NodeRecord* n) { return ModuleDepth(n->identity.module); };
    for (const NodeRecord* c : current_nodes_) {
      int exact = -1;  // -1: does not fuse it; 0: through a module holding it; 1: names it
      for (const std::string& fused : c->identity.fused_modules) {
        if (fused == module) exact = 1;
        if (exact < 0 && !fused.empty() && InModule(module, fused)) exact = 0;
      }
      if (exact < 0) continue;
      const bool better = into == nullptr || exact > into_exact ||
                          (exact == into_exact && (depth(c) > depth(into) ||
                                                   (depth(c) == depth(into) &&
                                                    gain_[c->identity.id] > gain_[into->identity.id])));
      if (better) into = c, into_exact = exact;
    }
    return into;
  }

  void Count(NodeDelta::Match match) {
    switch (match) {
      case NodeDelta::Match::kSame: ++diff_.same; break;
      case NodeDelta::Match::kKindAndModule: ++diff_.kind_and_module; break;
      case NodeDelta::Match::kReplaced: ++diff_.replaced; break;
      default: break;
    }
  }

  NodeDelta Delta(const NodeRecord* base, const NodeRecord* current, NodeDelta::Match match) const {
    NodeDelta d;
    d.match = match;
    const NodeRecord& any = current != nullptr ? *current : *base;
    d.name = any.identity.label;
    d.kind = any.identity.kind;
    d.module = any.identity.module;
    if (base != nullptr && current != nullptr && base->identity.kind != current->identity.kind) {
      d.kind = absl::StrCat(base->identity.kind, " -> ", current->identity.kind);
    }
    d.values.resize(diff_.columns.size());
    if (base != nullptr) {
      d.base_id = base->identity.id;
      d.base_ns = MeanSelf(*base);
      for (size_t k = 0; k < diff_.columns.size(); ++k) {
        d.values[k].base = ColumnValue(base_report_, *base, diff_.columns[k], true);
      }
    }
    if (current != nullptr) {
      d.current_id = current->identity.id;
      d.current_ns = MeanSelf(*current);
      for (size_t k = 0; k < diff_.columns.size(); ++k) {
        d.values[k].current = ColumnValue(current_report_, *current, diff_.columns[k], false);
      }
    }
    return d;
  }

  ReportDiff& diff_;
  const Report& base_report_;
  const Report& current_report_;
  std::vector<const NodeRecord*> base_nodes_;
  std::vector<const NodeRecord*> current_nodes_;
  std::vector<int> base_partner_;
  std::vector<int> current_partner_;
  std::vector<double> gain_;  // current node's time not yet explained by base nodes
  std::vector<bool> replaced_;  // current nodes matched as kReplaced
  std::vector<const NodeRecord*> current_nodes_by_id_;  // participants by id (else null)
  double matched_base_ns_ = 0;
};

}  // namespace

double MatchNodes(const Report& base, const Report& current, const DiffOptions& options, ReportDiff& diff) {
  Matcher matcher(base, current, options, diff);
  matcher.Run();
  return matcher.matched_base_ns();
}

}  // namespace graphprof::diff_internal
