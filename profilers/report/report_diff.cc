#include "profilers/report/report_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/stats.h"
#include "profilers/report/format.h"

namespace graphprof {
namespace {

double MeanSelf(const NodeRecord& node) { return Summarize(node.time().self).mean; }

bool SameKey(const NodeRecord& a, const NodeRecord& b) {
  return a.identity.kind == b.identity.kind && a.identity.module == b.identity.module;
}

NodeDelta MakeDelta(const NodeRecord* base, const NodeRecord* current, NodeDelta::Match match) {
  NodeDelta d;
  d.match = match;
  const NodeRecord& any = current != nullptr ? *current : *base;
  d.name = any.identity.label;
  d.kind = any.identity.kind;
  d.module = any.identity.module;
  if (base != nullptr) {
    d.base_id = base->identity.id;
    d.base_ns = MeanSelf(*base);
  }
  if (current != nullptr) {
    d.current_id = current->identity.id;
    d.current_ns = MeanSelf(*current);
  }
  return d;
}

double Ratio(double base, double current) { return base > 0 && current > 0 ? base / current : 0; }


}  // namespace

double NodeDelta::speedup() const { return Ratio(base_ns, current_ns); }
double KindDelta::speedup() const { return Ratio(base_ns, current_ns); }

const char* MatchName(NodeDelta::Match match) {
  switch (match) {
    case NodeDelta::Match::kById: return "id";
    case NodeDelta::Match::kByKindAndModule: return "kind+module";
    case NodeDelta::Match::kAdded: return "added";
    case NodeDelta::Match::kRemoved: return "removed";
  }
  return "?";
}

ReportDiff DiffReports(const Report& base, const Report& current) {
  ReportDiff diff;
  diff.base_model = base.model;
  diff.current_model = current.model;
  diff.base_total_ns = base.total_us() * 1e3;
  diff.current_total_ns = current.total_us() * 1e3;

  std::vector<bool> base_used(base.nodes.size(), false), current_used(current.nodes.size(), false);
  // 1. Same id, same kind and module path.
  for (const NodeRecord& node : current.nodes) {
    const int id = node.identity.id;
    if (id >= 0 && id < static_cast<int>(base.nodes.size()) && SameKey(base.nodes[id], node)) {
      diff.nodes.push_back(MakeDelta(&base.nodes[id], &node, NodeDelta::Match::kById));
      base_used[id] = current_used[id] = true;
      ++diff.matched_by_id;
    }
  }
  // 2. The rest by (kind, module path), in execution order.
  std::map<std::pair<std::string, std::string>, std::vector<int>> unmatched_base;
  for (const NodeRecord& node : base.nodes) {
    if (!base_used[node.identity.id]) {
      unmatched_base[{node.identity.kind, node.identity.module}].push_back(node.identity.id);
    }
  }
  std::map<std::pair<std::string, std::string>, size_t> next;
  for (const NodeRecord& node : current.nodes) {
    if (current_used[node.identity.id]) continue;
    const auto key = std::make_pair(node.identity.kind, node.identity.module);
    auto it = unmatched_base.find(key);
    size_t& k = next[key];
    if (it != unmatched_base.end() && k < it->second.size()) {
      const int base_id = it->second[k++];
      diff.nodes.push_back(MakeDelta(&base.nodes[base_id], &node, NodeDelta::Match::kByKindAndModule));
      base_used[base_id] = true;
      ++diff.matched_by_kind_and_module;
    } else {
      diff.nodes.push_back(MakeDelta(nullptr, &node, NodeDelta::Match::kAdded));
      ++diff.added;
    }
    current_used[node.identity.id] = true;
  }
  for (const NodeRecord& node : base.nodes) {
    if (base_used[node.identity.id]) continue;
    diff.nodes.push_back(MakeDelta(&node, nullptr, NodeDelta::Match::kRemoved));
    ++diff.removed;
  }
  std::stable_sort(diff.nodes.begin(), diff.nodes.end(), [](const NodeDelta& a, const NodeDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });

  std::map<std::string, KindDelta> kinds;
  for (const NodeRecord& node : base.nodes) {
    KindDelta& k = kinds[node.identity.kind];
    k.kind = node.identity.kind;
    ++k.base_nodes;
    k.base_ns += MeanSelf(node);
  }
  for (const NodeRecord& node : current.nodes) {
    KindDelta& k = kinds[node.identity.kind];
    k.kind = node.identity.kind;
    ++k.current_nodes;
    k.current_ns += MeanSelf(node);
  }
  for (auto& [name, k] : kinds) diff.kinds.push_back(k);
  std::stable_sort(diff.kinds.begin(), diff.kinds.end(), [](const KindDelta& a, const KindDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });
  return diff;
}

std::string RenderDiff(const ReportDiff& diff, int top) {
  std::string out = absl::StrCat("graphprof diff: ", diff.base_model, " (base) -> ", diff.current_model,
                                  " (current)\n");
  absl::StrAppend(&out, "  run time   ", FormatMicros(diff.base_total_ns), " us -> ",
                  FormatMicros(diff.current_total_ns), " us  (", FormatSignedMicros(diff.current_total_ns - diff.base_total_ns),
                  " us, speedup ", FormatSpeedup(diff.speedup()), ")\n");
  absl::StrAppend(&out, "  nodes      ", diff.matched_by_id, " matched by id, ", diff.matched_by_kind_and_module,
                  " by kind+module, ", diff.added, " added, ", diff.removed, " removed\n\n");

  absl::StrAppendFormat(&out, "%-28s %7s %7s %12s %12s %12s %9s\n", "kind", "nodes", "->", "base_us",
                        "current_us", "delta_us", "speedup");
  for (const KindDelta& k : diff.kinds) {
    absl::StrAppendFormat(&out, "%-28s %7d %7d %12s %12s %12s %9s\n", k.kind, k.base_nodes, k.current_nodes,
                          FormatMicros(k.base_ns), FormatMicros(k.current_ns), FormatSignedMicros(k.delta_ns()),
                          FormatSpeedup(k.speedup()));
  }
  out += "\n";
  absl::StrAppendFormat(&out, "%-44s %-11s %6s %6s %12s %12s %12s %9s\n", "node", "match", "base", "cur",
                        "base_us", "current_us", "delta_us", "speedup");
  int shown = 0;
  for (const NodeDelta& d : diff.nodes) {
    if (top > 0 && shown++ >= top) break;
    std::string name = d.name.size() > 44 ? d.name.substr(0, 41) + "..." : d.name;
    absl::StrAppendFormat(&out, "%-44s %-11s %6s %6s %12s %12s %12s %9s\n", name, MatchName(d.match),
                          d.base_id >= 0 ? absl::StrCat(d.base_id) : "-",
                          d.current_id >= 0 ? absl::StrCat(d.current_id) : "-", FormatMicros(d.base_ns),
                          FormatMicros(d.current_ns), FormatSignedMicros(d.delta_ns()), FormatSpeedup(d.speedup()));
  }
  if (top > 0 && static_cast<int>(diff.nodes.size()) > top) {
    absl::StrAppend(&out, "(top ", top, " of ", diff.nodes.size(), " nodes by impact)\n");
  }
  return out;
}

std::string DiffToCsv(const ReportDiff& diff) {
  std::string out = "name,kind,module,match,base_id,current_id,base_us,current_us,delta_us,speedup\n";
  for (const NodeDelta& d : diff.nodes) {
    absl::StrAppend(&out, CsvField(d.name), ",", CsvField(d.kind), ",", CsvField(d.module), ",",
                    MatchName(d.match), ",", d.base_id >= 0 ? absl::StrCat(d.base_id) : "", ",",
                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "", ",",
                    absl::StrFormat("%.3f,%.3f,%.3f,%.4f", d.base_ns / 1e3, d.current_ns / 1e3, d.delta_ns() / 1e3,
                                    d.speedup()),
                    "\n");
  }
  return out;
}

std::string DiffToJson(const ReportDiff& diff) {
  using nlohmann::json;
  json nodes = json::array();
  for (const NodeDelta& d : diff.nodes) {
    nodes.push_back({{"name", d.name}, {"kind", d.kind}, {"module", d.module}, {"match", MatchName(d.match)},
                     {"base_id", d.base_id}, {"current_id", d.current_id}, {"base_us", d.base_ns / 1e3},
                     {"current_us", d.current_ns / 1e3}, {"delta_us", d.delta_ns() / 1e3},
                     {"speedup", d.speedup()}});
  }
  json kinds = json::array();
  for (const KindDelta& k : diff.kinds) {
    kinds.push_back({{"kind", k.kind}, {"base_nodes", k.base_nodes}, {"current_nodes", k.current_nodes},
                     {"base_us", k.base_ns / 1e3}, {"current_us", k.current_ns / 1e3},
                     {"delta_us", k.delta_ns() / 1e3}, {"speedup", k.speedup()}});
  }
  json j{{"base_model", diff.base_model},
         {"current_model", diff.current_model},
         {"base_total_us", diff.base_total_ns / 1e3},
         {"current_total_us", diff.current_total_ns / 1e3},
         {"speedup", diff.speedup()},
         {"matched_by_id", diff.matched_by_id},
         {"matched_by_kind_and_module", diff.matched_by_kind_and_module},
         {"added", diff.added},
         {"removed", diff.removed},
         {"kinds", kinds},
         {"nodes", nodes}};
  return j.dump(1) + "\n";
}

}  // namespace graphprof
