#include "profilers/report/table_columns.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/collective_kinds.h"
#include "profilers/report/rank_stragglers.h"
#include "profilers/report/roofline.h"

namespace graphprof {
namespace {

TableCell Int(int64_t value) { return TableCell{false, 0, value, ""}; }
TableCell Num(double value) { return TableCell{false, value, 0, ""}; }
TableCell Text(std::string value) { return TableCell{false, 0, 0, std::move(value)}; }
TableCell Empty(std::string shown_as = "") { return TableCell{true, 0, 0, std::move(shown_as)}; }

using Cell = std::function<TableCell(const ViewRow&)>;

// Merged reports: the smallest (0), median (1) or largest (2) of the row's
// per-report means.
Cell ReportMean(int which) {
  return [which](const ViewRow& r) {
    std::vector<double> means = r.source_means;
    if (means.empty()) return Empty();
    std::sort(means.begin(), means.end());
    return Num(means[which == 0 ? 0 : which == 1 ? means.size() / 2 : means.size() - 1]);
  };
}

// --- The columns every table can have, and where. ---

using T = ColumnType;

constexpr ViewSet kNode = ViewSet::Of(GroupBy::kNode);
constexpr ViewSet kNodeModule = ViewSet::Of(GroupBy::kNode).With(GroupBy::kModule);
constexpr ViewSet kNodeShape = ViewSet::Of(GroupBy::kNode).With(GroupBy::kShape);
constexpr ViewSet kGrouped = ViewSet::All().Without(GroupBy::kNode);
constexpr ViewSet kAll = ViewSet::All();
constexpr ViewSet kNone = ViewSet::None();

// A host-time statistic of a row; empty for a row without host time (a
// metric's "(unattributed)" row).
template <double (*get)(const ViewRow&)>
TableCell TimeCell(const ViewRow& r) {
  return r.time().total.count > 0 ? Num(get(r)) : Empty();
}
double Calls(const ViewRow& r) { return r.calls; }
double MeanNs(const ViewRow& r) { return r.time().total.mean; }
double Percent(const ViewRow& r) { return r.time().percent; }
double SelfNs(const ViewRow& r) { return r.time().self.mean; }
double SelfPercent(const ViewRow& r) { return r.time().self_percent; }
double StdNs(const ViewRow& r) { return r.time().total.std; }
double MinNs(const ViewRow& r) { return r.time().total.min; }
double MedianNs(const ViewRow& r) { return r.time().total.median; }
double P90Ns(const ViewRow& r) { return r.time().total.p90; }
double MaxNs(const ViewRow& r) { return r.time().total.max; }
double TotalNs(const ViewRow& r) { return r.time().total.total; }

// The naming columns. "name" is headed by the view's group and, in the
// text table, indented by depth (FixedColumnsFor adjusts both).
const FixedColumn kNamingColumns[] = {
    {"id", "id", T::kInt, {kNode, kNode, kAll}, false,
     [](const ViewRow& r) { return r.id >= 0 ? Int(r.id) : Empty(); }},
    {"depth", "depth", T::kInt, {kNone, kNodeModule, kAll}, false, [](const ViewRow& r) { return Int(r.depth); }},
    {"name", "name", T::kText, {kAll, kAll, kAll}, true, [](const ViewRow& r) { return Text(r.name); }},
    {"kind", "kind", T::kText, {kNode, kNodeShape, kAll}, false, [](const ViewRow& r) { return Text(r.kind); }},
    {"module", "module", T::kText, {kNone, kNode, kAll}, false, [](const ViewRow& r) { return Text(r.module); }},
    {"nodes", "nodes", T::kInt, {kGrouped, kGrouped, kAll}, true, [](const ViewRow& r) { return Int(r.members); }},
};

// Host time, empty for a row without it (a metric's "(unattributed)" row).
// "count": executions per run, the JSON's "calls" (the CSV's and pandas'
// name since the first release). "mean_us" is headed total_us in the
// module view.
const FixedColumn kTimeColumns[] = {
    {"count", "calls", T::kCount, {kAll, kAll, kAll}, true, TimeCell<Calls>},
    {"mean_us", "mean_us", T::kMicros, {kAll, kAll, kAll}, true, TimeCell<MeanNs>},
    {"percent", "%", T::kPercent, {kAll, kAll, kAll}, true, TimeCell<Percent>},
    {"self_us", "self_us", T::kMicros, {kNodeModule, kNodeModule, kAll}, true, TimeCell<SelfNs>},
    {"self_percent", "self_percent", T::kPercent, {kNone, kNone, kAll}, true, TimeCell<SelfPercent>},
    {"std_us", "std_us", T::kMicros, {kAll, kAll, kAll}, false, TimeCell<StdNs>},
    {"min_us", "min_us", T::kMicros, {kNone, kNone, kAll}, true, TimeCell<MinNs>},
    {"median_us", "median_us", T::kMicros, {kNone, kNone, kAll}, true, TimeCell<MedianNs>},
    {"p90_us", "p90_us", T::kMicros, {kAll, kAll, kAll}, false, TimeCell<P90Ns>},
    {"max_us", "max_us", T::kMicros, {kNone, kNone, kAll}, true, TimeCell<MaxNs>},
    {"total_us", "total_us", T::kMicros, {kNone, kNone, kAll}, true, TimeCell<TotalNs>},
};

// The last columns of every table.
const FixedColumn kTrailingColumns[] = {
    {"shapes", "input shapes", T::kText, {kNode, kNode, kAll}, false, [](const ViewRow& r) { return Text(r.shapes); }},
    {"source", "source", T::kText, {kNone, kNode, kAll}, false, [](const ViewRow& r) { return Text(r.source); }},
};

// The columns under construction, for one view and rendering.
class TableBuilder {
 public:
  TableBuilder(GroupBy group_by, Rendering rendering) : group_by_(group_by), rendering_(rendering) {}

  bool text() const { return rendering_ == Rendering::kText; }
  bool html() const { return rendering_ == Rendering::kHtml; }
  bool csv() const { return rendering_ == Rendering::kCsv; }
  GroupBy group_by() const { return group_by_; }

  // Adds the column when `shown`; returns it (valid until the next Add) or null.
  TableColumn* Add(bool shown, std::string key, std::string heading, ColumnType type, Cell cell, bool in_sums = true) {
    if (!shown) return nullptr;
    columns_.push_back(TableColumn{std::move(key), std::move(heading), type, std::move(cell), in_sums});
    return &columns_.back();
  }

  // Adds those of `fixed` this view and rendering have (their Presence).
  template <size_t n>
  void AddFixed(const FixedColumn (&fixed)[n]) {
    for (const FixedColumn& f : fixed) {
      if (TableColumn* c = Add(f.shown.In(rendering_).Has(group_by_), f.key, f.heading, f.type, f.cell, f.in_sums)) {
        Adjust(*c);
      }
    }
  }

  std::vector<TableColumn> Take() { return std::move(columns_); }

 private:
  // What a fixed column's view or rendering changes: the name column's
  // heading (and, on the page, its key) and indent, "mean_us"'s heading in
  // the module view, the text table's widths.
  void Adjust(TableColumn& c) const {
    const bool nodes = group_by_ == GroupBy::kNode, modules = group_by_ == GroupBy::kModule;
    if (c.key == "name") {
      const std::string group = nodes ? "name" : GroupByName(group_by_);
      c.heading = group;
      if (html() && (group_by_ == GroupBy::kKind || modules)) c.key = group;
      if (text() && (nodes || modules)) {
        c.cell = [](const ViewRow& r) {
          return Text(r.depth > 0 ? absl::StrCat(std::string(2 * r.depth, ' '), r.name) : r.name);
        };
      }
      c.width = text() ? 60 : 0;
    } else if (c.key == "mean_us" && modules) {
      c.heading = "total_us";
    } else if (c.key == "shapes") {
      c.width = text() ? 70 : 0;
    }
  }

  GroupBy group_by_;
  Rendering rendering_;
  std::vector<TableColumn> columns_;
};

// Every metric after host time: the mean per run of its total (and self) values.
void AddMetricColumns(const Report& report, TableBuilder& c) {
  for (int m : report.Metrics()) {
    if (m == 0) continue;  // time: kTimeColumns
    const Column& metric = report.columns[m];
    const bool ns = metric.unit == Unit::kNanoseconds;
    auto mean = [m](bool self) {
      return [m, self](const ViewRow& r) {
        if (static_cast<size_t>(m) >= r.metrics.size()) return Empty();
        const Summary& s = self ? r.metrics[m].self : r.metrics[m].total;
        return s.count == 0 ? Empty() : Num(s.mean);
      };
    };
    const std::string total = absl::StrCat(metric.name, ns ? "_us" : ""),
                      self = absl::StrCat(metric.name, ns ? "_self_us" : "_self");
    c.Add(true, total, total, ns ? T::kMicros : T::kCount, mean(false));
    c.Add(c.csv(), self, self, ns ? T::kMicros : T::kCount, mean(true));
  }
}

// Work: every quantity, summed over the row's nodes. A node whose work was
// not counted has no value (not a 0 that reads as "free"); a group counts
// what its counted nodes did.
void AddWorkColumns(const Report& report, TableBuilder& c) {
  for (int q : report.Quantities()) {
    const Column& quantity = report.columns[q];
    if (quantity.memory) continue;  // AddMemoryColumns
    const bool bytes = quantity.unit == Unit::kBytes;
    c.Add(c.csv() || !ShownByRoofline(quantity), quantity.name, quantity.name, bytes ? T::kBytes : T::kNumber,
          [q, bytes](const ViewRow& r) {
            const double v = static_cast<size_t>(q) < r.quantities.size() ? r.quantities[q] : 0;
            if (!r.work_counted && v == 0) return Empty();
            return bytes ? Int(static_cast<int64_t>(v)) : Num(v);
          });
  }
}

// The roofline (roofline.h), where flops were counted; the cells read `report`.
void AddRooflineColumns(const Report& report, const TableColumnsOptions& options, TableBuilder& c) {
  if (report.FindQuantity("flops") < 0 || !(c.csv() || (c.text() && options.roofline))) return;
  auto point = [&report](double RooflinePoint::*value) {
    return [&report, value](const ViewRow& r) {
      const RooflinePoint p = RooflineOf(report, r);
      return p.*value >= 0 && p.gflops >= 0 ? Num(p.*value) : Empty();
    };
  };
  c.Add(c.text(), "gflop", "GFLOP", T::kNumber, [&report](const ViewRow& r) {
    return r.work_counted ? Num(RooflineOf(report, r).flops / 1e9) : Empty("?");
  }, false);
  c.Add(true, "gflops", "GFLOP/s", T::kNumber, point(&RooflinePoint::gflops), false)->digits = 3;
  c.Add(true, "gbps", "GB/s", T::kNumber, point(&RooflinePoint::gbps), false)->digits = 3;
  c.Add(true, "intensity", "FLOP/B", T::kNumber, point(&RooflinePoint::intensity), false)->digits = 3;
  c.Add(true, "bound", "bound", T::kText, [&report](const ViewRow& r) {
    const RooflinePoint p = RooflineOf(report, r);
    return *p.bound != '\0' ? Text(p.bound) : Empty();
  }, false);
  c.Add(c.csv(), "roof_gbps", "roof_gbps", T::kNumber, [&report](const ViewRow& r) {
    const RooflinePoint p = RooflineOf(report, r);
    return p.roof_gbps > 0 && p.fraction >= 0 ? Num(p.roof_gbps) : Empty();
  }, false);
  c.Add(true, "attainable_fraction", "%roof", T::kFraction, point(&RooflinePoint::fraction), false);
  c.Add(c.csv(), "work_counted", "work_counted", T::kText,
        [](const ViewRow& r) { return Text(r.work_counted ? "true" : "false"); }, false);
}

// Memory (MemoryQuantities() with a heading): CSV has those always
// measured (empty without memory) and those measured only sometimes where
// they were; a row of no nodes (a metric's unattributed row) has none.
void AddMemoryColumns(const Report& report, const TableColumnsOptions& options, TableBuilder& c) {
  for (const Column& m : MemoryQuantities()) {
    if (m.heading.empty()) continue;
    const bool measured = HasMemoryColumn(report, m);
    const bool shown = c.csv() ? !m.training_only || measured : measured && (c.html() || options.memory);
    auto bytes = [q = measured ? report.FindQuantity(m.name) : -1](bool self) {
      return [q, self](const ViewRow& r) {
        const std::vector<double>& values = self ? r.self_quantities : r.quantities;
        if (q < 0 || static_cast<size_t>(q) >= values.size() || r.members == 0) return Empty();
        return Int(static_cast<int64_t>(values[q]));
      };
    };
    c.Add(shown, absl::StrCat(m.heading, "_bytes"), m.heading, T::kBytes, bytes(false), m.in_sums);
    c.Add(shown && c.text() && c.group_by() == GroupBy::kModule && m.module_self,
          absl::StrCat("self_", m.heading, "_bytes"), absl::StrCat("self_", m.heading), T::kBytes, bytes(true),
          m.in_sums);
  }
}

// Merged reports: the spread of the per-report means, and the straggler.
void AddMergedColumns(const Report& report, TableBuilder& c) {
  if (report.run_sources.size() <= 1) return;
  c.Add(true, "min_report_us", "min/report", T::kMicros, ReportMean(0));
  c.Add(true, "median_report_us", "median/report", T::kMicros, ReportMean(1));
  c.Add(true, "max_report_us", "max/report", T::kMicros, ReportMean(2));
  c.Add(true, "slowest_report", "slowest", T::kText, [&report](const ViewRow& r) {
    const int k = r.slowest_source();
    return k >= 0 ? Text(report.run_sources[k].name) : Empty();
  })->width = c.text() ? 30 : 0;
  auto straggler = [&report](bool name, bool excess) {
    return [&report, name, excess](const ViewRow& r) {
      const ViewRow::Straggler s = r.straggler();
      if (s.source < 0) return Empty();
      if (!excess) return Text(report.run_sources[s.source].name);
      if (!name) return Num(s.excess);
      return Text(absl::StrFormat("%s +%.1f%%", report.run_sources[s.source].name, 100 * s.excess));
    };
  };
  if (TableColumn* t = c.Add(c.text(), "straggler", "straggler", T::kText, straggler(true, true))) t->width = 40;
  c.Add(c.csv(), "straggler_report", "straggler_report", T::kText, straggler(true, false));
  c.Add(c.csv(), "straggler_excess", "straggler_excess", T::kNumber, straggler(false, true));
  // Ranks of one program: a collective's time split into the transfer (the
  // least rank's time in each step) and the waiting for the slowest rank.
  if (!RanksAligned(report)) return;
  auto split = [](bool transfer) {
    return [transfer](const ViewRow& r) {
      if (r.step_floor < 0 || !IsCollectiveOperator(r.kind) || r.members != 1) return Empty();
      return Num(transfer ? r.step_floor : std::max(0.0, r.time().total.mean - r.step_floor));
    };
  };
  c.Add(true, "transfer_us", "transfer", T::kMicros, split(true));
  c.Add(true, "waiting_us", "waiting", T::kMicros, split(false));
}

// "T H: node; C": the renderings that show a column, grouped by the views
// they show it in ("grouped": every view but node); "" when all show it in all.
std::string PresenceLegend(const Presence& p) {
  const std::pair<const char*, ViewSet> shown[] = {{"T", p.text}, {"H", p.html}, {"C", p.csv}};
  auto views = [](ViewSet v) -> std::string {
    if (v == kAll) return "";
    if (v == kGrouped) return "grouped";
    std::vector<std::string> names;
    for (GroupBy g : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
      if (v.Has(g)) names.push_back(GroupByName(g));
    }
    return absl::StrJoin(names, ", ");
  };
  if (p.text == kAll && p.html == kAll && p.csv == kAll) return "";
  std::vector<std::string> groups;
  std::string letters;
  for (size_t i = 0; i < 3; ++i) {
    if (shown[i].second == kNone) continue;
    letters += letters.empty() ? shown[i].first : absl::StrCat(" ", shown[i].first);
    const bool last = i == 2 || !(shown[i + 1].second == shown[i].second);
    if (!last) continue;
    const std::string v = views(shown[i].second);
    groups.push_back(v.empty() ? letters : absl::StrCat(letters, ": ", v));
    letters.clear();
  }
  return absl::StrJoin(groups, "; ");
}

}  // namespace

std::string FixedColumnsLegend() {
  std::vector<std::string> entries;
  auto add = [&entries](const auto& fixed) {
    for (const FixedColumn& f : fixed) {
      const std::string where = PresenceLegend(f.shown);
      entries.push_back(where.empty() ? f.key : absl::StrCat(f.key, " (", where, ")"));
    }
  };
  add(kNamingColumns);
  add(kTimeColumns);
  add(kTrailingColumns);
  return absl::StrJoin(entries, "  ");
}

std::vector<TableColumn> TableColumns(const Report& report, GroupBy group_by, Rendering rendering,
                                      const TableColumnsOptions& options) {
  TableBuilder c(group_by, rendering);
  c.AddFixed(kNamingColumns);
  c.AddFixed(kTimeColumns);
  AddMetricColumns(report, c);
  AddWorkColumns(report, c);
  AddRooflineColumns(report, options, c);
  AddMemoryColumns(report, options, c);
  AddMergedColumns(report, c);
  c.AddFixed(kTrailingColumns);
  return c.Take();
}

}  // namespace graphprof
