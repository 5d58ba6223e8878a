#include "profilers/report/csv_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace graphprof {

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\n\r") == absl::string_view::npos) return std::string(text);
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string RenderCsv(const Report& report, const View& view) {
  std::vector<std::string> header = {"id",       "name",    "kind",      "module",      "shapes",       "count",
                                     "mean_us",  "std_us",  "min_us",    "median_us",   "p90_us",       "max_us",
                                     "total_us", "percent", "self_us",   "self_percent", "source",      "alloc_bytes",
                                     "peak_bytes", "output_bytes"};
  for (size_t m = 1; m < report.metrics.size(); ++m) {
    const Metric& metric = report.metrics[m];
    const bool ns = metric.unit == Metric::Unit::kNanoseconds;
    header.push_back(absl::StrCat(metric.name, ns ? "_us" : ""));
    header.push_back(absl::StrCat(metric.name, ns ? "_self_us" : "_self"));
  }
  const bool saved = report.memory.has_value() && report.memory->backward;
  if (saved) header.push_back("saved_bytes");
  const bool spread = report.run_sources.size() > 1;
  if (spread) {
    for (const char* column : {"min_report_us", "median_report_us", "max_report_us", "slowest_report"}) {
      header.push_back(column);
    }
  }
  std::string out = absl::StrCat(absl::StrJoin(header, ","), "\n");
  auto us = [](double ns) { return absl::StrFormat("%.3f", ns / 1e3); };
  for (const ViewRow& row : view.rows) {
    const MetricStats& time = row.time();
    std::vector<std::string> f = {
        row.id >= 0 ? absl::StrCat(row.id) : "",
        CsvField(row.name),
        CsvField(row.kind),
        CsvField(row.module),
        CsvField(row.shapes),
        absl::StrFormat("%g", row.calls),
        us(time.total.mean),
        us(time.total.std),
        us(time.total.min),
        us(time.total.median),
        us(time.total.p90),
        us(time.total.max),
        us(time.total.total),
        absl::StrFormat("%.4f", time.percent),
        us(time.self.mean),
        absl::StrFormat("%.4f", time.self_percent),
        CsvField(row.source),
        row.memory ? absl::StrCat(row.memory->allocated_bytes) : "",
        row.memory ? absl::StrCat(row.memory->peak_bytes) : "",
        row.memory ? absl::StrCat(row.memory->output_bytes) : "",
    };
    for (size_t m = 1; m < report.metrics.size(); ++m) {
      const bool ns = report.metrics[m].unit == Metric::Unit::kNanoseconds;
      for (const Summary* s : {&row.metrics[m].total, &row.metrics[m].self}) {
        f.push_back(s->count == 0 ? "" : ns ? us(s->mean) : absl::StrFormat("%g", s->mean));
      }
    }
    if (saved) f.push_back(row.memory ? absl::StrCat(row.memory->saved_bytes) : "");
    if (spread) {
      std::vector<double> means = row.source_means;
      std::sort(means.begin(), means.end());
      f.push_back(means.empty() ? "" : us(means.front()));
      f.push_back(means.empty() ? "" : us(means[means.size() / 2]));
      f.push_back(means.empty() ? "" : us(means.back()));
      const int slowest = row.slowest_source();
      f.push_back(slowest >= 0 ? CsvField(report.run_sources[slowest].name) : "");
    }
    absl::StrAppend(&out, absl::StrJoin(f, ","), "\n");
  }
  return out;
}

}  // namespace graphprof
