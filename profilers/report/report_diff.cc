#include "profilers/report/report_diff.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/format.h"
#include "profilers/report/stats.h"
#include "profilers/report/text_table.h"

namespace graphprof {
namespace {

double MeanSelf(const NodeRecord& node) { return Summarize(node.time().self).mean; }

// Mean self value of metric `m` (-1: the report lacks it: 0).
double MeanSelfOf(const NodeRecord& node, int m) {
  if (m < 0 || static_cast<size_t>(m) >= node.metrics.size()) return 0;
  return Summarize(node.metrics[m].self).mean;
}

double Ratio(double base, double current) { return base > 0 && current > 0 ? base / current : 0; }

std::string ParentModule(const std::string& module) {
  const size_t dot = module.rfind('.');
  return dot == std::string::npos ? "" : module.substr(0, dot);
}

bool InModulePrefix(const std::string& module, const std::string& prefix) {
  if (prefix.empty()) return true;
  return module.size() >= prefix.size() && module.compare(0, prefix.size(), prefix) == 0 &&
         (module.size() == prefix.size() || module[prefix.size()] == '.');
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
      : diff_(diff), base_backward_(base.FindMetric("backward")), current_backward_(current.FindMetric("backward")) {
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
    // A module's nodes whose op changed, heaviest with heaviest (the op a
    // pass rewrites is the one that costs); not at the root, where every
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
  void MergeOrRemove() {
    for (size_t i = 0; i < base_nodes_.size(); ++i) {
      const NodeRecord* b = base_nodes_[i];
      if (base_partner_[b->identity.id] >= 0) continue;
      const std::string& module = b->identity.module;
      std::vector<std::string> scopes = {module};
      if (!module.empty()) scopes.push_back(ParentModule(module));
      const NodeRecord* into = nullptr;
      for (const std::string& scope : scopes) {
        if (into != nullptr || (scope.empty() && !module.empty())) break;
        auto candidate = [&](int id) {
          return id >= 0 && (current_partner_[id] < 0 || replaced_[id]) &&
                 InModulePrefix(current_nodes_by_id_[id]->identity.module, scope);
        };
        // The nearest earlier base node of this scope that has a partner.
        for (size_t j = i; j-- > 0;) {
          const NodeRecord* earlier = base_nodes_[j];
          const int partner = base_partner_[earlier->identity.id];
          if (partner < 0 || !InModulePrefix(earlier->identity.module, scope)) continue;
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
    if (base != nullptr) {
      d.base_id = base->identity.id;
      d.base_ns = MeanSelf(*base);
      d.base_backward_ns = MeanSelfOf(*base, base_backward_);
    }
    if (current != nullptr) {
      d.current_id = current->identity.id;
      d.current_ns = MeanSelf(*current);
      d.current_backward_ns = MeanSelfOf(*current, current_backward_);
    }
    return d;
  }

  ReportDiff& diff_;
  const int base_backward_;
  const int current_backward_;
  std::vector<const NodeRecord*> base_nodes_;
  std::vector<const NodeRecord*> current_nodes_;
  std::vector<int> base_partner_;
  std::vector<int> current_partner_;
  std::vector<double> gain_;  // current node's time not yet explained by base nodes
  std::vector<bool> replaced_;  // current nodes matched as kReplaced
  std::vector<const NodeRecord*> current_nodes_by_id_;  // participants by id (else null)
  double matched_base_ns_ = 0;
};

// Adds each participating node's self time to its group(s) on one side.
void AddGroups(const Report& report, const DiffOptions& options, bool base,
               const std::function<std::vector<std::string>(const NodeRecord&)>& groups_of,
               std::map<std::string, GroupDelta>& groups) {
  const int backward = report.FindMetric("backward");
  for (const NodeRecord& node : report.nodes) {
    if (!options.include_unexecuted && !node.executed()) continue;
    const double ns = MeanSelf(node);
    const double backward_ns = MeanSelfOf(node, backward);
    for (const std::string& name : groups_of(node)) {
      GroupDelta& g = groups[name];
      g.name = name;
      (base ? g.base_nodes : g.current_nodes) += 1;
      (base ? g.base_ns : g.current_ns) += ns;
      (base ? g.base_backward_ns : g.current_backward_ns) += backward_ns;
    }
  }
}

std::vector<GroupDelta> ByImpact(std::map<std::string, GroupDelta>& groups) {
  std::vector<GroupDelta> out;
  for (auto& [name, g] : groups) out.push_back(g);
  std::stable_sort(out.begin(), out.end(), [](const GroupDelta& a, const GroupDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });
  return out;
}

std::vector<std::string> ModulePrefixes(const NodeRecord& node) {
  std::vector<std::string> prefixes = {"(root)"};
  std::string path;
  for (absl::string_view part : absl::StrSplit(node.identity.module, '.', absl::SkipEmpty())) {
    path = path.empty() ? std::string(part) : absl::StrCat(path, ".", part);
    prefixes.push_back(path);
  }
  return prefixes;
}

void WriteGroups(JsonWriter& w, const char* key, const char* name_key, const std::vector<GroupDelta>& groups,
                 bool backward) {
  w.Key(key);
  w.BeginArray();
  for (const GroupDelta& g : groups) {
    w.Newline();
    w.BeginObject();
    w.Key(name_key); w.String(g.name);
    w.Key("base_nodes"); w.Int(g.base_nodes);
    w.Key("current_nodes"); w.Int(g.current_nodes);
    w.Key("base_us"); w.Approx(g.base_ns / 1e3);
    w.Key("current_us"); w.Approx(g.current_ns / 1e3);
    w.Key("delta_us"); w.Approx(g.delta_ns() / 1e3);
    w.Key("speedup"); w.Approx(g.speedup());
    if (backward) {
      w.Key("base_backward_us"); w.Approx(g.base_backward_ns / 1e3);
      w.Key("current_backward_us"); w.Approx(g.current_backward_ns / 1e3);
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

double NodeDelta::speedup() const { return Ratio(base_ns, current_ns); }
double GroupDelta::speedup() const { return Ratio(base_ns, current_ns); }

const char* MatchName(NodeDelta::Match match) {
  switch (match) {
    case NodeDelta::Match::kSame: return "same";
    case NodeDelta::Match::kKindAndModule: return "kind+module";
    case NodeDelta::Match::kReplaced: return "replaced";
    case NodeDelta::Match::kMerged: return "merged";
    case NodeDelta::Match::kAdded: return "added";
    case NodeDelta::Match::kRemoved: return "removed";
  }
  return "?";
}

ReportDiff DiffReports(const Report& base, const Report& current, const DiffOptions& options) {
  ReportDiff diff;
  diff.base_model = base.model;
  diff.current_model = current.model;
  diff.base_total_ns = base.total_us() * 1e3;
  diff.current_total_ns = current.total_us() * 1e3;
  const int base_backward = base.FindMetric("backward");
  const int current_backward = current.FindMetric("backward");
  diff.backward = base_backward >= 0 && current_backward >= 0;
  if (diff.backward) {
    diff.base_backward_total_ns = Summarize(base.metrics[base_backward].run_total).mean;
    diff.current_backward_total_ns = Summarize(current.metrics[current_backward].run_total).mean;
  }
  Matcher matcher(base, current, options, diff);
  matcher.Run();
  std::stable_sort(diff.nodes.begin(), diff.nodes.end(), [](const NodeDelta& a, const NodeDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });
  double base_ns = 0;
  for (const NodeRecord& node : base.nodes) {
    if (options.include_unexecuted || node.executed()) base_ns += MeanSelf(node);
  }
  diff.matched_time_fraction = base_ns > 0 ? std::min(1.0, matcher.matched_base_ns() / base_ns) : 1.0;

  std::map<std::string, GroupDelta> modules, kinds;
  AddGroups(base, options, true, ModulePrefixes, modules);
  AddGroups(current, options, false, ModulePrefixes, modules);
  for (auto& [name, g] : modules) g.depth = name == "(root)" ? 0 : static_cast<int>(std::count(name.begin(), name.end(), '.')) + 1;
  auto kind_of = [](const NodeRecord& n) { return std::vector<std::string>{n.identity.kind}; };
  AddGroups(base, options, true, kind_of, kinds);
  AddGroups(current, options, false, kind_of, kinds);
  diff.modules = ByImpact(modules);
  diff.kinds = ByImpact(kinds);
  return diff;
}

std::string RenderDiff(const ReportDiff& diff, int top) {
  std::string out = absl::StrCat("graphprof diff: ", diff.base_model, " (base) -> ", diff.current_model,
                                  " (current)\n");
  absl::StrAppend(&out, "  run time   ", FormatMicros(diff.base_total_ns), " us -> ",
                  FormatMicros(diff.current_total_ns), " us  (", FormatSignedMicros(diff.current_total_ns - diff.base_total_ns),
                  " us, speedup ", FormatSpeedup(diff.speedup()), ")\n");
  if (diff.backward) {
    absl::StrAppend(&out, "  backward   ", FormatMicros(diff.base_backward_total_ns), " us -> ",
                    FormatMicros(diff.current_backward_total_ns), " us  (",
                    FormatSignedMicros(diff.current_backward_total_ns - diff.base_backward_total_ns), " us, speedup ",
                    FormatSpeedup(Ratio(diff.base_backward_total_ns, diff.current_backward_total_ns)), ")\n");
  }
  absl::StrAppend(&out, "  nodes      ", diff.same, " same, ", diff.kind_and_module, " kind+module, ", diff.replaced,
                  " replaced, ", diff.merged, " merged, ", diff.added, " added, ", diff.removed, " removed",
                  diff.unexecuted > 0 ? absl::StrCat("; ", diff.unexecuted, " never executed, not shown (--diff_all)")
                                      : "",
                  "\n");
  absl::StrAppendFormat(&out, "  matched    %.1f%% of the base's executed time\n", 100 * diff.matched_time_fraction);
  auto cut = [top](size_t n) { return top > 0 ? std::min<size_t>(n, top) : n; };
  auto note = [&](size_t shown, size_t all, const char* what) {
    if (shown < all) absl::StrAppend(&out, "(top ", shown, " of ", all, " ", what, " by impact)\n");
  };

  using C = TextTable::Column;
  auto group_table = [&](const std::vector<GroupDelta>& groups, const char* header, bool indent) {
    std::vector<C> columns = {C{header, TextTable::kLeft, 60}, C{"nodes", TextTable::kRight},
                              C{"->", TextTable::kRight},   C{"base_us", TextTable::kRight},
                              C{"current_us", TextTable::kRight}, C{"delta_us", TextTable::kRight},
                              C{"speedup", TextTable::kRight}};
    if (diff.backward) {
      columns.push_back(C{"base_bwd_us", TextTable::kRight});
      columns.push_back(C{"current_bwd_us", TextTable::kRight});
    }
    TextTable t(std::move(columns));
    const size_t n = cut(groups.size());
    for (size_t i = 0; i < n; ++i) {
      const GroupDelta& g = groups[i];
      std::vector<std::string> row = {indent ? std::string(2 * g.depth, ' ') + g.name : g.name,
                                      absl::StrCat(g.base_nodes),
                                      absl::StrCat(g.current_nodes),
                                      FormatMicros(g.base_ns),
                                      FormatMicros(g.current_ns),
                                      FormatSignedMicros(g.delta_ns()),
                                      FormatSpeedup(g.speedup())};
      if (diff.backward) {
        row.push_back(FormatMicros(g.base_backward_ns));
        row.push_back(FormatMicros(g.current_backward_ns));
      }
      t.AddRow(std::move(row));
    }
    out += "\n" + t.Render();
    note(n, groups.size(), header);
  };
  group_table(diff.modules, "module", false);
  group_table(diff.kinds, "kind", false);

  std::vector<C> node_columns = {C{"node", TextTable::kLeft, 60}, C{"match", TextTable::kLeft},
                                 C{"base", TextTable::kRight},       C{"cur", TextTable::kRight},
                                 C{"base_us", TextTable::kRight},    C{"current_us", TextTable::kRight},
                                 C{"delta_us", TextTable::kRight},   C{"speedup", TextTable::kRight}};
  if (diff.backward) {
    node_columns.push_back(C{"base_bwd_us", TextTable::kRight});
    node_columns.push_back(C{"current_bwd_us", TextTable::kRight});
  }
  TextTable nodes(std::move(node_columns));
  const size_t n = cut(diff.nodes.size());
  for (size_t i = 0; i < n; ++i) {
    const NodeDelta& d = diff.nodes[i];
    std::vector<std::string> row = {d.name,
                                    MatchName(d.match),
                                    d.base_id >= 0 ? absl::StrCat(d.base_id) : "-",
                                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "-",
                                    FormatMicros(d.base_ns),
                                    FormatMicros(d.current_ns),
                                    FormatSignedMicros(d.delta_ns()),
                                    FormatSpeedup(d.speedup())};
    if (diff.backward) {
      row.push_back(FormatMicros(d.base_backward_ns));
      row.push_back(FormatMicros(d.current_backward_ns));
    }
    nodes.AddRow(std::move(row));
  }
  out += "\n" + nodes.Render();
  note(n, diff.nodes.size(), "nodes");
  return out;
}

std::string DiffToCsv(const ReportDiff& diff) {
  std::string out = absl::StrCat("name,kind,module,match,base_id,current_id,base_us,current_us,delta_us,speedup",
                                 diff.backward ? ",base_backward_us,current_backward_us" : "", "\n");
  for (const NodeDelta& d : diff.nodes) {
    absl::StrAppend(&out, CsvField(d.name), ",", CsvField(d.kind), ",", CsvField(d.module), ",",
                    MatchName(d.match), ",", d.base_id >= 0 ? absl::StrCat(d.base_id) : "", ",",
                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "", ",",
                    absl::StrFormat("%.3f,%.3f,%.3f,%.4f", d.base_ns / 1e3, d.current_ns / 1e3, d.delta_ns() / 1e3,
                                    d.speedup()),
                    diff.backward
                        ? absl::StrFormat(",%.3f,%.3f", d.base_backward_ns / 1e3, d.current_backward_ns / 1e3)
                        : "",
                    "\n");
  }
  return out;
}

void WriteDiffJson(const ReportDiff& diff, JsonWriter& w) {
  w.BeginObject();
  w.Key("base_model"); w.String(diff.base_model);
  w.Key("current_model"); w.String(diff.current_model);
  w.Key("base_total_us"); w.Approx(diff.base_total_ns / 1e3);
  w.Key("current_total_us"); w.Approx(diff.current_total_ns / 1e3);
  w.Key("speedup"); w.Approx(diff.speedup());
  w.Key("matched_time_fraction"); w.Approx(diff.matched_time_fraction);
  if (diff.backward) {
    w.Key("base_backward_us"); w.Approx(diff.base_backward_total_ns / 1e3);
    w.Key("current_backward_us"); w.Approx(diff.current_backward_total_ns / 1e3);
  }
  const std::pair<const char*, int> counts[] = {{"same", diff.same},         {"kind_and_module", diff.kind_and_module},
                                                {"replaced", diff.replaced}, {"merged", diff.merged},
                                                {"added", diff.added},       {"removed", diff.removed},
                                                {"unexecuted", diff.unexecuted}};
  for (const auto& [key, value] : counts) {
    w.Key(key);
    w.Int(value);
  }
  WriteGroups(w, "modules", "module", diff.modules, diff.backward);
  WriteGroups(w, "kinds", "kind", diff.kinds, diff.backward);
  w.Key("nodes");
  w.BeginArray();
  for (const NodeDelta& d : diff.nodes) {
    w.Newline();
    w.BeginObject();
    w.Key("name"); w.String(d.name);
    w.Key("kind"); w.String(d.kind);
    w.Key("module"); w.String(d.module);
    w.Key("match"); w.String(MatchName(d.match));
    w.Key("base_id"); w.Int(d.base_id);
    w.Key("current_id"); w.Int(d.current_id);
    w.Key("base_us"); w.Approx(d.base_ns / 1e3);
    w.Key("current_us"); w.Approx(d.current_ns / 1e3);
    w.Key("delta_us"); w.Approx(d.delta_ns() / 1e3);
    w.Key("speedup"); w.Approx(d.speedup());
    if (diff.backward) {
      w.Key("base_backward_us"); w.Approx(d.base_backward_ns / 1e3);
      w.Key("current_backward_us"); w.Approx(d.current_backward_ns / 1e3);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

std::string DiffToJson(const ReportDiff& diff) {
  std::string out;
  JsonWriter w(&out);
  WriteDiffJson(diff, w);
  out += "\n";
  return out;
}

}  // namespace graphprof
