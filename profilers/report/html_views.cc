// The page's view tables (html_table.h): the columns of each grouping.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "profilers/report/html_table.h"
#include "profilers/report/roofline.h"
#include "profilers/report/stats.h"
#include "profilers/report/views.h"

namespace graphprof::html_internal {
namespace {

using ViewColumn = Column<ViewRow>;

ViewColumn IntColumn(std::string key, std::function<int64_t(const ViewRow&)> get, bool in_sums = true) {
  return {key, key, "int", [get, in_sums](JsonWriter& w, const ViewRow& r, bool sums) {
            if (sums && !in_sums) return w.Null();
            w.Int(get(r));
          }};
}

ViewColumn TextColumn(std::string key, std::string label, std::function<std::string(const ViewRow&)> get,
                      bool in_sums = false) {
  return {key, label, "text", [get, in_sums](JsonWriter& w, const ViewRow& r, bool sums) {
            if (sums && !in_sums) return w.Null();
            w.String(get(r));
          }};
}

ViewColumn UsColumn(std::string key, std::function<double(const ViewRow&)> get, bool in_sums = true) {
  return {key, key, "us", [get, in_sums](JsonWriter& w, const ViewRow& r, bool sums) {
            if (sums && !in_sums) return w.Null();
            Us(w, get(r));
          }};
}

// The columns every view shares after its name columns.
void AddCommonColumns(const Report& report, GroupBy group_by, std::vector<ViewColumn>& c) {
  const bool nodes = group_by == GroupBy::kNode;
  const bool modules = group_by == GroupBy::kModule;
  if (!nodes) c.push_back(IntColumn("nodes", [](const ViewRow& r) { return r.members; }));
  c.push_back({"calls", "calls", "num", [](JsonWriter& w, const ViewRow& r, bool) { w.Approx(r.calls); }});
  c.push_back(UsColumn(modules ? "total_us" : "mean_us", [](const ViewRow& r) { return r.time().total.mean; }));
  c.push_back({"percent", "%", "pct", [](JsonWriter& w, const ViewRow& r, bool) { w.Fixed(r.time().percent, 4); }});
  if (nodes || modules) c.push_back(UsColumn("self_us", [](const ViewRow& r) { return r.time().self.mean; }));
  c.push_back(UsColumn("std_us", [](const ViewRow& r) { return r.time().total.std; }, false));
  c.push_back(UsColumn("p90_us", [](const ViewRow& r) { return r.time().total.p90; }, false));
  for (size_t m = 1; m < report.metrics.size(); ++m) {
    const Metric& metric = report.metrics[m];
    const bool ns = metric.unit == Metric::Unit::kNanoseconds;
    c.push_back({ns ? absl::StrCat(metric.name, "_us") : metric.name, ns ? absl::StrCat(metric.name, "_us") : metric.name,
                 ns ? "us" : "num", [m, ns](JsonWriter& w, const ViewRow& r, bool) {
                   const Summary& s = r.metrics[m].total;
                   if (s.count == 0) return w.Null();
                   if (ns) return Us(w, s.mean);
                   w.Approx(s.mean);
                 }});
  }
  // Every quantity the roofline section does not show: summed over the row's nodes.
  for (size_t q = 0; q < report.quantities.size(); ++q) {
    const Quantity& quantity = report.quantities[q];
    if (ShownByRoofline(quantity)) continue;
    c.push_back({quantity.name, quantity.name, quantity.unit == Quantity::Unit::kBytes ? "bytes" : "num",
                 [q](JsonWriter& w, const ViewRow& r, bool) {
                   const double v = q < r.quantities.size() ? r.quantities[q] : 0;
                   if (!r.work_counted && v == 0) return w.Null();
                   w.Approx(v);
                 }});
  }
  for (const NodeMemoryField& f : kNodeMemoryFields) {
    if (!HasMemoryColumn(report, f)) continue;
    c.push_back(ViewColumn{f.column, f.column, "bytes", [&f](JsonWriter& w, const ViewRow& r, bool sums) {
                             if (!r.memory.has_value() || (sums && !f.in_sums)) return w.Null();
                             w.Int(*r.memory.*f.value);
                           }});
  }
  if (report.run_sources.size() > 1) {
    auto spread = [](std::string key, double where) {
      return UsColumn(key, [where](const ViewRow& r) {
        std::vector<double> means = r.source_means;
        if (means.empty()) return 0.0;
        std::sort(means.begin(), means.end());
        return means[static_cast<size_t>(where * static_cast<double>(means.size() - 1) + 0.5)];
      });
    };
    c.push_back(spread("min_report_us", 0));
    c.push_back(spread("median_report_us", 0.5));
    c.push_back(spread("max_report_us", 1));
    c.push_back(TextColumn("slowest", "slowest report", [&report](const ViewRow& r) {
      const int k = r.slowest_source();
      return k >= 0 ? report.run_sources[k].name : std::string();
    }, true));
  }
}

}  // namespace

void WriteView(JsonWriter& w, const Report& report, GroupBy group_by) {
  absl::StatusOr<View> view = MakeView(report, ViewOptions{group_by, group_by == GroupBy::kModule ? "order" : "", 0});
  if (!view.ok()) return w.Null();
  std::vector<ViewColumn> c;
  switch (group_by) {
    case GroupBy::kNode:
      c.push_back(IntColumn("id", [](const ViewRow& r) { return r.id; }, false));
      c.push_back(IntColumn("depth", [](const ViewRow& r) { return r.depth; }, false));
      c.push_back(TextColumn("name", "name", [](const ViewRow& r) { return r.name; }, true));
      c.push_back(TextColumn("kind", "kind", [](const ViewRow& r) { return r.kind; }));
      c.push_back(TextColumn("module", "module", [](const ViewRow& r) { return r.module; }));
      break;
    case GroupBy::kKind:
      c.push_back(TextColumn("kind", "kind", [](const ViewRow& r) { return r.name; }, true));
      break;
    case GroupBy::kModule:
      c.push_back(IntColumn("depth", [](const ViewRow& r) { return r.depth; }, false));
      c.push_back(TextColumn("module", "module", [](const ViewRow& r) { return r.name; }, true));
      break;
    case GroupBy::kShape:
      c.push_back(TextColumn("name", "kind (input shapes)", [](const ViewRow& r) { return r.name; }, true));
      c.push_back(TextColumn("kind", "kind", [](const ViewRow& r) { return r.kind; }));
      break;
  }
  AddCommonColumns(report, group_by, c);
  if (group_by == GroupBy::kNode) {
    c.push_back(TextColumn("shapes", "input shapes", [](const ViewRow& r) { return r.shapes; }));
    c.push_back(TextColumn("source", "source", [](const ViewRow& r) { return r.source; }));
  }
  const bool modules = group_by == GroupBy::kModule;
  WriteTable(w, c, view->rows, modules ? nullptr : &view->sums, modules ? nullptr : "mean_us", true,
             group_by == GroupBy::kNode || modules ? "depth" : nullptr);
}

}  // namespace graphprof::html_internal
