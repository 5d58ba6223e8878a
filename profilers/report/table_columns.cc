#include "profilers/report/table_columns.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/roofline.h"

namespace graphprof {
namespace {

TableCell Int(int64_t value) { return TableCell{false, 0, value, ""}; }
TableCell Num(double value) { return TableCell{false, value, 0, ""}; }
TableCell Text(std::string value) { return TableCell{false, 0, 0, std::move(value)}; }
TableCell Empty(std::string shown_as = "") { return TableCell{true, 0, 0, std::move(shown_as)}; }

using Cell = std::function<TableCell(const ViewRow&)>;

// A host-time statistic of a row; empty for a row without host time (a
// metric's "(unattributed)" row).
Cell Time(double (*get)(const ViewRow&)) {
  return [get](const ViewRow& r) { return r.time().total.count > 0 ? Num(get(r)) : Empty(); };
}

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

}  // namespace

std::vector<TableColumn> TableColumns(const Report& report, GroupBy group_by, Rendering rendering,
                                      const TableColumnsOptions& options) {
  using T = ColumnType;
  const bool text = rendering == Rendering::kText, html = rendering == Rendering::kHtml,
             csv = rendering == Rendering::kCsv;
  const bool nodes = group_by == GroupBy::kNode, modules = group_by == GroupBy::kModule;
  std::vector<TableColumn> c;
  // Adds the column when `shown`; returns it (valid until the next Add) or null.
  auto add = [&c](bool shown, std::string key, std::string heading, ColumnType type, Cell cell,
                  bool in_sums = true) -> TableColumn* {
    if (!shown) return nullptr;
    c.push_back(TableColumn{std::move(key), std::move(heading), type, std::move(cell), in_sums});
    return &c.back();
  };

  // Names.
  add(nodes || csv, "id", "id", T::kInt, [](const ViewRow& r) { return r.id >= 0 ? Int(r.id) : Empty(); }, false);
  add((html && (nodes || modules)) || csv, "depth", "depth", T::kInt,
      [](const ViewRow& r) { return Int(r.depth); }, false);
  const std::string group = nodes ? "name" : GroupByName(group_by);
  // The page keys a kind's or a module's name column by its group.
  add(true, html && (group_by == GroupBy::kKind || modules) ? group : "name", group, T::kText,
      [indent = text && (nodes || modules)](const ViewRow& r) {
        return Text(indent && r.depth > 0 ? absl::StrCat(std::string(2 * r.depth, ' '), r.name) : r.name);
      })->width = text ? 60 : 0;
  add((nodes && !html) || (html && (nodes || group_by == GroupBy::kShape)) || csv, "kind", "kind", T::kText,
      [](const ViewRow& r) { return Text(r.kind); }, false);
  add((html && nodes) || csv, "module", "module", T::kText, [](const ViewRow& r) { return Text(r.module); }, false);
  add(!nodes || csv, "nodes", "nodes", T::kInt, [](const ViewRow& r) { return Int(r.members); });

  // Host time.
  // Executions per run, the JSON's "calls"; "count" in CSV and pandas (their name since the first release).
  add(true, "count", "calls", T::kCount, Time([](const ViewRow& r) { return r.calls; }));
  add(true, "mean_us", modules ? "total_us" : "mean_us", T::kMicros,
      Time([](const ViewRow& r) { return r.time().total.mean; }));
  add(true, "percent", "%", T::kPercent, Time([](const ViewRow& r) { return r.time().percent; }));
  add(nodes || modules || csv, "self_us", "self_us", T::kMicros,
      Time([](const ViewRow& r) { return r.time().self.mean; }));
  add(csv, "self_percent", "self_percent", T::kPercent, Time([](const ViewRow& r) { return r.time().self_percent; }));
  add(true, "std_us", "std_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.std; }), false);
  add(csv, "min_us", "min_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.min; }));
  add(csv, "median_us", "median_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.median; }));
  add(true, "p90_us", "p90_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.p90; }), false);
  add(csv, "max_us", "max_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.max; }));
  add(csv, "total_us", "total_us", T::kMicros, Time([](const ViewRow& r) { return r.time().total.total; }));

  // Every other metric: the mean per run of its total (and self) values.
  for (int m : report.Metrics()) {
    if (m == 0) continue;  // time: above
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
    add(true, total, total, ns ? T::kMicros : T::kCount, mean(false));
    add(csv, self, self, ns ? T::kMicros : T::kCount, mean(true));
  }

  // Work: every quantity, summed over the row's nodes. A node whose work was
  // not counted has no value (not a 0 that reads as "free"); a group counts
  // what its counted nodes did.
  for (int q : report.Quantities()) {
    const Column& quantity = report.columns[q];
    if (quantity.memory) continue;  // below
    const bool bytes = quantity.unit == Unit::kBytes;
    add(csv || !ShownByRoofline(quantity), quantity.name, quantity.name, bytes ? T::kBytes : T::kNumber,
        [q, bytes](const ViewRow& r) {
          const double v = static_cast<size_t>(q) < r.quantities.size() ? r.quantities[q] : 0;
          if (!r.work_counted && v == 0) return Empty();
          return bytes ? Int(static_cast<int64_t>(v)) : Num(v);
        });
  }
  if (report.FindQuantity("flops") >= 0 && (csv || (text && options.roofline))) {
    // The roofline (roofline.h); the cells read `report`.
    auto point = [&report](double RooflinePoint::*value) {
      return [&report, value](const ViewRow& r) {
        const RooflinePoint p = RooflineOf(report, r);
        return p.*value >= 0 && p.gflops >= 0 ? Num(p.*value) : Empty();
      };
    };
    add(text, "gflop", "GFLOP", T::kNumber, [&report](const ViewRow& r) {
      return r.work_counted ? Num(RooflineOf(report, r).flops / 1e9) : Empty("?");
    }, false);
    add(true, "gflops", "GFLOP/s", T::kNumber, point(&RooflinePoint::gflops), false)->digits = 3;
    add(true, "gbps", "GB/s", T::kNumber, point(&RooflinePoint::gbps), false)->digits = 3;
    add(true, "intensity", "FLOP/B", T::kNumber, point(&RooflinePoint::intensity), false)->digits = 3;
    add(true, "bound", "bound", T::kText, [&report](const ViewRow& r) {
      const RooflinePoint p = RooflineOf(report, r);
      return *p.bound != '\0' ? Text(p.bound) : Empty();
    }, false);
    add(csv, "roof_gbps", "roof_gbps", T::kNumber, [&report](const ViewRow& r) {
      const RooflinePoint p = RooflineOf(report, r);
      return p.roof_gbps > 0 && p.fraction >= 0 ? Num(p.roof_gbps) : Empty();
    }, false);
    add(true, "attainable_fraction", "%roof", T::kFraction, point(&RooflinePoint::fraction), false);
    add(csv, "work_counted", "work_counted", T::kText,
        [](const ViewRow& r) { return Text(r.work_counted ? "true" : "false"); }, false);
  }

  // Memory (MemoryQuantities() with a heading): CSV has those always
  // measured (empty without memory) and those measured only sometimes where
  // they were; a row of no nodes (a metric's unattributed row) has none.
  for (const Column& m : MemoryQuantities()) {
    if (m.heading.empty()) continue;
    const bool measured = HasMemoryColumn(report, m);
    const bool shown = csv ? !m.training_only || measured : measured && (html || options.memory);
    auto bytes = [q = measured ? report.FindQuantity(m.name) : -1](bool self) {
      return [q, self](const ViewRow& r) {
        const std::vector<double>& values = self ? r.self_quantities : r.quantities;
        if (q < 0 || static_cast<size_t>(q) >= values.size() || r.members == 0) return Empty();
        return Int(static_cast<int64_t>(values[q]));
      };
    };
    add(shown, absl::StrCat(m.heading, "_bytes"), m.heading, T::kBytes, bytes(false), m.in_sums);
    add(shown && text && modules && m.module_self, absl::StrCat("self_", m.heading, "_bytes"),
        absl::StrCat("self_", m.heading), T::kBytes, bytes(true), m.in_sums);
  }

  // Merged reports: the spread of the per-report means, and the straggler.
  if (report.run_sources.size() > 1) {
    add(true, "min_report_us", "min/report", T::kMicros, ReportMean(0));
    add(true, "median_report_us", "median/report", T::kMicros, ReportMean(1));
    add(true, "max_report_us", "max/report", T::kMicros, ReportMean(2));
    add(true, "slowest_report", "slowest", T::kText, [&report](const ViewRow& r) {
      const int k = r.slowest_source();
      return k >= 0 ? Text(report.run_sources[k].name) : Empty();
    })->width = text ? 30 : 0;
    auto straggler = [&report](bool name, bool excess) {
      return [&report, name, excess](const ViewRow& r) {
        const ViewRow::Straggler s = r.straggler();
        if (s.source < 0) return Empty();
        if (!excess) return Text(report.run_sources[s.source].name);
        if (!name) return Num(s.excess);
        return Text(absl::StrFormat("%s +%.1f%%", report.run_sources[s.source].name, 100 * s.excess));
      };
    };
    if (TableColumn* t = add(text, "straggler", "straggler", T::kText, straggler(true, true))) t->width = 40;
    add(csv, "straggler_report", "straggler_report", T::kText, straggler(true, false));
    add(csv, "straggler_excess", "straggler_excess", T::kNumber, straggler(false, true));
  }

  if (TableColumn* t = add(nodes || csv, "shapes", "input shapes", T::kText,
                           [](const ViewRow& r) { return Text(r.shapes); }, false)) {
    t->width = text ? 70 : 0;
  }
  add((html && nodes) || csv, "source", "source", T::kText, [](const ViewRow& r) { return Text(r.source); }, false);
  return c;
}

}  // namespace graphprof
