#include "profilers/report/merge.h"

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

absl::Status CheckSameGraph(const Report& merged, const Report& report, const std::string& name) {
  if (report.model != merged.model) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is a report of ", report.model, ", not of ", merged.model));
  }
  if (report.nodes.size() != merged.nodes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " has ", report.nodes.size(), " nodes, the others ",
                                                   merged.nodes.size(), ": not the same graph"));
  }
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    const NodeIdentity& a = merged.nodes[i].identity;
    const NodeIdentity& b = report.nodes[i].identity;
    if (a.kind != b.kind || a.module != b.module) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": node ", i, " is ", b.label, ", not ", a.label,
                                                     ": not the same graph"));
    }
  }
  return absl::OkStatus();
}

void Append(std::vector<int64_t>& into, const std::vector<int64_t>& values) {
  into.insert(into.end(), values.begin(), values.end());
}

}  // namespace

absl::Status ReportMerger::Add(Report report, const std::string& name) {
  if (merged_.run_sources.empty()) {
    report.events.clear();
    report.dropped_events = 0;
    report.device_events.clear();
    report.backward_events.clear();
    report.run_sources = {RunSource{name, 0, report.runs, report.process}};
    merged_ = std::move(report);
    return absl::OkStatus();
  }
  if (absl::Status same = CheckSameGraph(merged_, report, name); !same.ok()) return same;
  // Metrics: the merged report's, in its order; a metric one side lacks
  // makes the other side's runs zero for it.
  for (const Metric& m : report.metrics) {
    if (merged_.FindMetric(m.name) < 0) {
      Metric added = m;
      added.run_total.assign(merged_.runs, 0);
      added.unattributed.clear();
      merged_.AddMetric(added);
    }
  }
  const int first_run = merged_.runs;
  for (size_t m = 0; m < merged_.metrics.size(); ++m) {
    Metric& into = merged_.metrics[m];
    const int theirs = report.FindMetric(into.name);
    const std::vector<int64_t> zeros(report.runs, 0);
    Append(into.run_total, theirs >= 0 && !report.metrics[theirs].run_total.empty() ? report.metrics[theirs].run_total
                                                                                     : zeros);
    if (!into.unattributed.empty()) {
      Append(into.unattributed, theirs >= 0 && !report.metrics[theirs].unattributed.empty()
                                    ? report.metrics[theirs].unattributed
                                    : zeros);
    }
    for (size_t i = 0; i < merged_.nodes.size(); ++i) {
      Series& s = merged_.nodes[i].metrics[m];
      std::vector<int64_t>& recorded = into.recorded == Metric::Recorded::kInclusive ? s.total : s.self;
      recorded.resize(first_run, 0);
      if (theirs >= 0) {
        const Series& t = report.nodes[i].metrics[theirs];
        Append(recorded, into.recorded == Metric::Recorded::kInclusive ? t.total : t.self);
      } else {
        Append(recorded, zeros);
      }
    }
  }
  for (size_t i = 0; i < merged_.nodes.size(); ++i) Append(merged_.nodes[i].calls, report.nodes[i].calls);
  const int64_t offset = merged_.run_start_ns.empty() ? 0 : merged_.run_start_ns.back() + merged_.run_ns().back();
  for (int64_t start : report.run_start_ns) merged_.run_start_ns.push_back(offset + start);
  merged_.runs += report.runs;
  merged_.warmup = std::max(merged_.warmup, report.warmup);
  merged_.run_sources.push_back(RunSource{name, first_run, report.runs, report.process});
  if (merged_.gradient_verification.has_value() && report.gradient_verification.has_value() &&
      !report.gradient_verification->passed()) {
    merged_.gradient_verification = report.gradient_verification;
  }
  if (merged_.verification.has_value() && report.verification.has_value() && !report.verification->passed()) {
    merged_.verification = report.verification;
  }
  return absl::OkStatus();
}

absl::StatusOr<Report> ReportMerger::Finish() {
  if (merged_.run_sources.empty()) return absl::InvalidArgumentError("no reports to merge");
  merged_.notes.push_back(absl::StrCat("merged from ", merged_.run_sources.size(), " reports, ", merged_.runs,
                                       " timed runs in all"));
  merged_.Finalize();
  return std::move(merged_);
}

}  // namespace graphprof
