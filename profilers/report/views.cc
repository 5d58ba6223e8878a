#include "profilers/report/views.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace graphprof {
namespace {

// A row under construction: per-run series (one per metric) to summarise at the end.
struct Accumulator {
  ViewRow row;
  std::vector<Series> series;  // parallel to Report::columns (metrics'; empty for quantities)
  int64_t calls = 0;
  int64_t subtree_calls = 0;  // every node's, a module's subtree included
};

Accumulator NewAccumulator(const Report& report) {
  Accumulator acc;
  acc.series.resize(report.columns.size());
  acc.row.members = 0;
  return acc;
}

// Adds `node`'s self values (what groups add up; levels: the maximum of its
// values) to the row's totals, and to its self values when the node is
// `direct`ly in the row's group (always for kinds and shapes; for modules,
// only nodes of the module itself, not of a submodule).
void AddSelf(const Report& report, Accumulator& acc, const NodeRecord& node, bool direct = true) {
  ViewRow& row = acc.row;
  const size_t n = report.columns.size();
  row.quantities.resize(n, 0);
  row.self_quantities.resize(n, 0);
  for (size_t c = 0; c < n && c < node.metrics.size() && c < node.quantities.size(); ++c) {
    const Column::Scope scope = report.columns[c].scope;
    if (report.columns[c].per_run()) {
      AddPerRun(acc.series[c].total, node.metrics[c].self);
      if (direct) AddPerRun(acc.series[c].self, node.metrics[c].self);
    } else if (scope == Column::Scope::kLevel) {
      row.quantities[c] = std::max(row.quantities[c], node.quantities[c]);
      if (direct) row.self_quantities[c] = std::max(row.self_quantities[c], node.quantities[c]);
    } else {
      // Own values are their self values; the others' are derived (Finalize).
      const double self = scope == Column::Scope::kOwn ? node.quantities[c]
                          : c < node.self_quantities.size() ? node.self_quantities[c] : 0;
      row.quantities[c] += self;
      if (direct) row.self_quantities[c] += self;
    }
  }
  if (node.executed() && !node.work_counted) row.work_counted = false;
  const int64_t calls = std::accumulate(node.calls.begin(), node.calls.end(), int64_t{0});
  if (direct) acc.calls += calls;
  acc.subtree_calls += calls;
  ++row.members;
}

ViewRow Finish(Accumulator& acc, const Report& report) {
  ViewRow row = std::move(acc.row);
  row.metrics.resize(acc.series.size());
  for (size_t m = 0; m < acc.series.size() && m < report.columns.size(); ++m) {
    if (!report.columns[m].per_run()) continue;
    MetricStats& s = row.metrics[m];
    s.total = Summarize(acc.series[m].total);
    s.self = Summarize(acc.series[m].self);
    s.percent = report.PercentOf(static_cast<int>(m), s.total.mean);
    s.self_percent = report.PercentOf(static_cast<int>(m), s.self.mean);
  }
  row.calls = report.runs > 0 ? static_cast<double>(acc.calls) / report.runs : 0;
  row.subtree_calls = report.runs > 0 ? static_cast<double>(acc.subtree_calls) / report.runs : 0;
  if (report.run_sources.size() > 1 && !acc.series.empty()) {
    const absl::Span<const int64_t> total = acc.series[0].total;
    for (const RunSource& source : report.run_sources) {
      const absl::Span<const int64_t> runs = total.subspan(std::min<size_t>(source.first_run, total.size()), source.runs);
      row.source_means.push_back(Mean(runs));
      row.source_medians.push_back(Summarize(runs).median);  // 0 for no runs
    }
    row.rank_test = TestRanks(report, total);
    row.step_floor = StepFloorMean(report, total);
  }
  return row;
}

// In one of `modules` (all, when there are none).
bool Selected(const std::string& module, const std::vector<std::string>& modules) {
  return modules.empty() ||
         std::any_of(modules.begin(), modules.end(), [&](const std::string& m) { return InModule(module, m); });
}

// Groups nodes by a key; rows keep the order of first appearance.
std::vector<Accumulator> GroupNodes(const Report& report, const ViewOptions& options,
                                    const std::function<std::string(const NodeRecord&)>& key,
                                    bool by_shape) {
  std::vector<Accumulator> groups;
  std::unordered_map<std::string, size_t> index;
  for (const NodeRecord& node : report.nodes) {
    if (!Selected(node.identity.module, options.modules)) continue;
    std::string k = key(node);
    auto [it, inserted] = index.emplace(k, groups.size());
    if (inserted) {
      Accumulator acc = NewAccumulator(report);
      acc.row.name = std::move(k);
      acc.row.kind = node.identity.kind;
      if (by_shape) acc.row.shapes = node.input_shapes;
      groups.push_back(std::move(acc));
    }
    AddSelf(report, groups[it->second], node);
  }
  return groups;
}

std::vector<Accumulator> NodeRows(const Report& report, const ViewOptions& options) {
  std::vector<Accumulator> rows;
  rows.reserve(report.nodes.size());
  for (const NodeRecord& node : report.nodes) {
    if (!Selected(node.identity.module, options.modules)) continue;
    Accumulator acc;
    const NodeIdentity& id = node.identity;
    acc.row.name = id.label;
    acc.row.id = id.id;
    acc.row.depth = id.depth;
    acc.row.kind = id.kind;
    acc.row.module = id.module;
    acc.row.shapes = node.input_shapes;
    acc.row.source = id.source;
    acc.row.quantities = node.quantities;
    acc.row.self_quantities = node.self_quantities;
    acc.row.work_counted = !node.executed() || node.work_counted;
    acc.series = node.metrics;
    acc.calls = acc.subtree_calls = std::accumulate(node.calls.begin(), node.calls.end(), int64_t{0});
    rows.push_back(std::move(acc));
  }
  return rows;
}

// Module tree: every prefix of every module path, in order of first appearance.
std::vector<Accumulator> ModuleRows(const Report& report, const ViewOptions& options) {
  std::vector<Accumulator> rows;
  std::unordered_map<std::string, size_t> index;
  auto row_for = [&](const std::string& path, int depth) -> Accumulator& {
    auto [it, inserted] = index.emplace(path, rows.size());
    if (inserted) {
      Accumulator acc = NewAccumulator(report);
      acc.row.name = path.empty() ? "(root)" : path;
      acc.row.module = path;
      acc.row.depth = depth;
      acc.row.inclusive_work = true;
      rows.push_back(std::move(acc));
    }
    return rows[it->second];
  };
  for (const NodeRecord& node : report.nodes) {
    const std::string& module = node.identity.module;
    std::vector<std::string> parts;
    if (!module.empty()) parts = absl::StrSplit(module, '.');
    std::string path;
    for (size_t depth = 0; depth <= parts.size(); ++depth) {
      if (depth > 0) path = depth == 1 ? parts[0] : absl::StrCat(path, ".", parts[depth - 1]);
      AddSelf(report, row_for(path, static_cast<int>(depth)), node, depth == parts.size());
    }
  }
  // Tree order (depth first): a parent before its children, siblings by
  // first appearance. Rows were created parents-first, so indices work.
  std::vector<std::vector<size_t>> children(rows.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string& path = rows[i].row.module;
    const size_t dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    children[index.at(parent)].push_back(i);
  }
  std::vector<Accumulator> ordered;
  std::vector<size_t> stack;
  if (!rows.empty()) stack.push_back(0);
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    ordered.push_back(std::move(rows[i]));
    for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
  }
  std::vector<Accumulator> selected;
  for (Accumulator& acc : ordered) {
    if (Selected(acc.row.module, options.modules)) selected.push_back(std::move(acc));
  }
  return selected;
}

absl::Status CheckReportModules(const Report& report, const std::vector<std::string>& modules) {
  if (modules.empty()) return absl::OkStatus();
  std::vector<std::string> node_modules;
  node_modules.reserve(report.nodes.size());
  for (const NodeRecord& node : report.nodes) node_modules.push_back(node.identity.module);
  return CheckModules(node_modules, report.model, modules);
}

using Getter = std::function<double(const ViewRow&)>;

struct SortKey {
  std::string name;
  Getter get;
  bool descending;
};

std::vector<SortKey> SortKeyTable(const Report& report) {
  std::vector<SortKey> keys = {
      {"mean", [](const ViewRow& r) { return r.time().total.mean; }, true},
      {"self", [](const ViewRow& r) { return r.time().self.mean; }, true},
      {"std", [](const ViewRow& r) { return r.time().total.std; }, true},
      {"median", [](const ViewRow& r) { return r.time().total.median; }, true},
      {"p90", [](const ViewRow& r) { return r.time().total.p90; }, true},
      {"min", [](const ViewRow& r) { return r.time().total.min; }, true},
      {"max", [](const ViewRow& r) { return r.time().total.max; }, true},
      {"calls", [](const ViewRow& r) { return r.calls; }, true},
      {"percent", [](const ViewRow& r) { return r.time().percent; }, true},
      {"id", [](const ViewRow& r) { return double(r.id); }, false},
  };
  // Every quantity, by its name; memory quantities with a column by its
  // heading ("alloc", "peak"). A row without the value sorts last.
  for (int q : report.Quantities()) {
    const Column& quantity = report.columns[q];
    // Training-only memory (saved bytes) sorts reports of training steps.
    if (quantity.memory && (quantity.heading.empty() || (quantity.training_only && !report.training_steps()))) {
      continue;
    }
    keys.push_back({quantity.memory ? quantity.heading : quantity.name, [q](const ViewRow& r) {
                      return static_cast<size_t>(q) < r.quantities.size() && r.members > 0 ? r.quantities[q] : -1.0;
                    }, true});
  }
  if (const int flops = report.FindQuantity("flops"); flops >= 0) {  // the achieved rate in the row's self time
    keys.push_back({"gflops", [flops](const ViewRow& r) {
                      const double ns = r.time().self.mean;
                      return ns > 0 && static_cast<size_t>(flops) < r.quantities.size() ? r.quantities[flops] / ns : 0.0;
                    }, true});
  }
  for (int m : report.Metrics()) {
    if (m == 0) continue;  // time: the keys above
    keys.push_back({report.columns[m].name, [m](const ViewRow& r) { return r.metrics[m].total.mean; }, true});
    keys.push_back({absl::StrCat(report.columns[m].name, "_self"),
                    [m](const ViewRow& r) { return r.metrics[m].self.mean; }, true});
  }
  return keys;
}

}  // namespace

ViewRow::Straggler ViewRow::straggler() const {
  Straggler none;
  if (rank_comparisons > 0) {
    if (rank_test.source < 0 || rank_test.p * rank_comparisons > kRankStragglerAlpha) return none;
    return Straggler{rank_test.source, rank_test.excess};
  }
  if (source_medians.size() < 3) return none;
  const double center = Median(source_medians);
  std::vector<double> deviations;
  for (double m : source_medians) deviations.push_back(std::fabs(m - center));
  const double mad = Median(std::move(deviations));
  const size_t worst = static_cast<size_t>(std::max_element(source_medians.begin(), source_medians.end()) -
                                           source_medians.begin());
  const double m = source_medians[worst];
  if (!(center > 0) || m / center - 1 <= kStragglerMinExcess) return none;
  // A zero spread (all other reports alike) makes any excess stand out.
  const double sigma = 1.4826 * mad;
  if (sigma > 0 && (m - center) / sigma <= 3.5) return none;
  return Straggler{static_cast<int>(worst), m / center - 1};
}

int ViewRow::slowest_source() const {
  if (source_means.empty()) return -1;
  return static_cast<int>(std::max_element(source_means.begin(), source_means.end()) - source_means.begin());
}

absl::StatusOr<GroupBy> ParseGroupBy(absl::string_view name) {
  if (name == "node") return GroupBy::kNode;
  if (name == "kind") return GroupBy::kKind;
  if (name == "module") return GroupBy::kModule;
  if (name == "shape") return GroupBy::kShape;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown grouping '", name, "' (use node, kind, module or shape)"));
}

const char* GroupByName(GroupBy group_by) {
  switch (group_by) {
    case GroupBy::kNode: return "node";
    case GroupBy::kKind: return "kind";
    case GroupBy::kModule: return "module";
    case GroupBy::kShape: return "shape";
  }
  return "?";
}

std::vector<std::string> SortKeys(const Report& report) {
  std::vector<std::string> names;
  for (const SortKey& k : SortKeyTable(report)) names.push_back(k.name);
  names.push_back("name");
  names.push_back("order");
  return names;
}

absl::Status CheckModules(const std::vector<std::string>& node_modules, absl::string_view model,
                          const std::vector<std::string>& modules) {
  for (const std::string& m : modules) {
    if (!m.empty() && std::any_of(node_modules.begin(), node_modules.end(),
                                  [&](const std::string& module) { return InModule(module, m); })) {
      continue;
    }
    std::vector<std::string> top;
    for (const std::string& module : node_modules) {
      const std::string first = module.substr(0, module.find('.'));
      if (!first.empty() && std::find(top.begin(), top.end(), first) == top.end()) top.push_back(first);
    }
    return absl::InvalidArgumentError(absl::StrCat("no module '", m, "' in ", model, " (top-level modules: ",
                                                   top.empty() ? "none" : absl::StrJoin(top, ", "), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<View> MakeView(const Report& report, const ViewOptions& options) {
  if (options.top < 0) return absl::InvalidArgumentError("top must not be negative");
  if (absl::Status known = CheckReportModules(report, options.modules); !known.ok()) return known;
  std::string sort = options.sort;
  if (sort.empty()) sort = options.group_by == GroupBy::kModule ? "order" : "mean";
  const std::vector<SortKey> keys = SortKeyTable(report);
  const SortKey* key = nullptr;
  for (const SortKey& k : keys) {
    if (k.name == sort) key = &k;
  }
  if (key == nullptr && sort != "name" && sort != "order") {
    return absl::InvalidArgumentError(absl::StrCat("unknown sort column '", sort, "' (use ",
                                                   absl::StrJoin(SortKeys(report), ", "), ")"));
  }

  std::vector<Accumulator> groups;
  switch (options.group_by) {
    case GroupBy::kNode: groups = NodeRows(report, options); break;
    case GroupBy::kKind:
      groups = GroupNodes(report, options, [](const NodeRecord& n) { return n.identity.kind; }, false);
      break;
    case GroupBy::kShape:
      groups = GroupNodes(report, options,
                          [](const NodeRecord& n) { return absl::StrCat(n.identity.kind, " (", n.input_shapes, ")"); },
                          true);
      break;
    case GroupBy::kModule: groups = ModuleRows(report, options); break;
  }

  View view;
  view.group_by = options.group_by;

  // Sums: every node's self values once. Their total is the top-level totals
  // for nodes (the same number) and the roots of the module tree.
  Accumulator sums = NewAccumulator(report);
  sums.row.name = "(sum)";
  for (const NodeRecord& node : report.nodes) {
    if (Selected(node.identity.module, options.modules)) AddSelf(report, sums, node);
  }
  // What a metric measured for the whole run but no node accounts for
  // (backward's AccumulateGrad and engine work, unattributed kernels): one
  // row of its own, so the rows still add up to the run.
  if (options.modules.empty()) {
    Accumulator rest = NewAccumulator(report);
    rest.row.name = "(unattributed)";
    bool any = false;
    for (int m : report.Metrics()) {
      const std::vector<int64_t>& values = report.columns[m].unattributed;
      if (values.empty()) continue;
      any = true;
      AddPerRun(rest.series[m].total, values);
      AddPerRun(rest.series[m].self, values);
      AddPerRun(sums.series[m].total, values);
      AddPerRun(sums.series[m].self, values);
    }
    if (any) groups.push_back(std::move(rest));
  }
  view.sums = Finish(sums, report);

  view.rows.reserve(groups.size());
  for (Accumulator& g : groups) view.rows.push_back(Finish(g, report));
  view.total_rows = view.rows.size();
  if (RanksAligned(report)) {
    // Every (row, rank) test the view made, the sums row's too: each row's
    // straggler is corrected for all of them (rank_stragglers.h).
    int tested = view.sums.rank_test.tested ? 1 : 0;
    for (const ViewRow& row : view.rows) tested += row.rank_test.tested ? 1 : 0;
    const int comparisons = std::max(1, tested) * static_cast<int>(report.run_sources.size());
    view.sums.rank_comparisons = comparisons;
    for (ViewRow& row : view.rows) row.rank_comparisons = comparisons;
  }

  if (sort == "name") {
    std::stable_sort(view.rows.begin(), view.rows.end(),
                     [](const ViewRow& a, const ViewRow& b) { return a.name < b.name; });
  } else if (key != nullptr) {
    // Keys are read once per row, then the rows are permuted.
    const size_t n = view.rows.size();
    std::vector<double> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = key->get(view.rows[i]);
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return key->descending ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    std::vector<ViewRow> sorted;
    sorted.reserve(n);
    for (size_t i : order) sorted.push_back(std::move(view.rows[i]));
    view.rows = std::move(sorted);
  }
  if (options.top > 0 && view.rows.size() > static_cast<size_t>(options.top)) {
    view.rows.resize(options.top);
    view.rows.shrink_to_fit();
  }
  return view;
}

}  // namespace graphprof
