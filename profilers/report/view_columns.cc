#include "profilers/report/view_columns.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "profilers/report/roofline.h"

namespace graphprof {

std::vector<std::string> ViewColumnNames(const Report& report) {
  std::vector<std::string> names = {"id",       "name",    "kind",      "module",      "shapes",       "count",
                                    "mean_us",  "std_us",  "min_us",    "median_us",   "p90_us",       "max_us",
                                    "total_us", "percent", "self_us",   "self_percent", "source"};
  // Memory columns (kNodeMemoryFields): those always measured here (empty
  // without memory), those measured only sometimes after the metrics.
  for (const NodeMemoryField& f : kNodeMemoryFields) {
    if (f.column != nullptr && !f.optional) names.push_back(absl::StrCat(f.column, "_bytes"));
  }
  for (size_t m = 1; m < report.metrics.size(); ++m) {
    const Metric& metric = report.metrics[m];
    const bool ns = metric.unit == Metric::Unit::kNanoseconds;
    names.push_back(absl::StrCat(metric.name, ns ? "_us" : ""));
    names.push_back(absl::StrCat(metric.name, ns ? "_self_us" : "_self"));
  }
  for (const NodeMemoryField& f : kNodeMemoryFields) {
    if (f.optional && HasMemoryColumn(report, f)) names.push_back(absl::StrCat(f.column, "_bytes"));
  }
  if (report.run_sources.size() > 1) {
    for (const char* column : {"min_report_us", "median_report_us", "max_report_us", "slowest_report",
                               "straggler_report", "straggler_excess"}) {
      names.push_back(column);
    }
  }
  // The work and the roofline (roofline.h): every quantity, then the rates.
  for (const Quantity& q : report.quantities) names.push_back(q.name);
  if (report.FindQuantity("flops") >= 0) {
    for (const char* column :
         {"gflops", "gbps", "intensity", "bound", "roof_gbps", "attainable_fraction", "work_counted"}) {
      names.push_back(column);
    }
  }
  return names;
}

std::vector<ViewCell> ViewRowCells(const Report& report, const ViewRow& row) {
  using K = ViewCell::Kind;
  std::vector<ViewCell> cells;
  auto text = [&](std::string value) { cells.push_back(ViewCell{K::kText, 0, 0, std::move(value)}); };
  auto number = [&](K kind, double value) { cells.push_back(ViewCell{kind, value, 0, ""}); };
  auto integer = [&](int64_t value) { cells.push_back(ViewCell{K::kInt, 0, value, ""}); };
  auto empty = [&] { cells.push_back(ViewCell{}); };
  const MetricStats& time = row.time();
  row.id >= 0 ? integer(row.id) : empty();
  text(row.name);
  text(row.kind);
  text(row.module);
  text(row.shapes);
  number(K::kNumber, row.calls);
  for (double ns : {time.total.mean, time.total.std, time.total.min, time.total.median, time.total.p90,
                    time.total.max, time.total.total}) {
    number(K::kMicros, ns);
  }
  number(K::kPercent, time.percent);
  number(K::kMicros, time.self.mean);
  number(K::kPercent, time.self_percent);
  text(row.source);
  for (const NodeMemoryField& f : kNodeMemoryFields) {
    if (f.column != nullptr && !f.optional) row.memory ? integer((*row.memory).*f.value) : empty();
  }
  for (size_t m = 1; m < report.metrics.size(); ++m) {
    const bool ns = report.metrics[m].unit == Metric::Unit::kNanoseconds;
    for (const Summary* s : {&row.metrics[m].total, &row.metrics[m].self}) {
      s->count == 0 ? empty() : number(ns ? K::kMicros : K::kNumber, s->mean);
    }
  }
  for (const NodeMemoryField& f : kNodeMemoryFields) {
    if (f.optional && HasMemoryColumn(report, f)) row.memory ? integer((*row.memory).*f.value) : empty();
  }
  if (report.run_sources.size() > 1) {
    std::vector<double> means = row.source_means;
    std::sort(means.begin(), means.end());
    for (size_t at : {size_t{0}, means.size() / 2, means.empty() ? size_t{0} : means.size() - 1}) {
      means.empty() ? empty() : number(K::kMicros, means[at]);
    }
    const int slowest = row.slowest_source();
    slowest >= 0 ? text(report.run_sources[slowest].name) : empty();
    const ViewRow::Straggler straggler = row.straggler();
    straggler.source >= 0 ? text(report.run_sources[straggler.source].name) : empty();
    straggler.source >= 0 ? number(K::kNumber, straggler.excess) : empty();
  }
  // A node whose work was not counted has no value (not a 0 that reads as
  // "free"); a group counts what its counted nodes did.
  for (size_t q = 0; q < report.quantities.size(); ++q) {
    const double v = q < row.quantities.size() ? row.quantities[q] : 0;
    !row.work_counted && v == 0 ? empty() : number(K::kNumber, v);
  }
  if (report.FindQuantity("flops") >= 0) {
    const RooflinePoint p = RooflineOf(report, row);
    for (double v : {p.gflops, p.gbps, p.intensity}) v >= 0 ? number(K::kNumber, v) : empty();
    *p.bound != '\0' ? text(p.bound) : empty();
    p.roof_gbps > 0 && p.fraction >= 0 ? number(K::kNumber, p.roof_gbps) : empty();
    p.fraction >= 0 ? number(K::kNumber, p.fraction) : empty();
    text(row.work_counted ? "true" : "false");
  }
  return cells;
}

}  // namespace graphprof
