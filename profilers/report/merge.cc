#include "profilers/report/merge.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "profilers/report/report_checks.h"

namespace graphprof {
namespace {

// The sources of `report`'s runs: its own run_sources (a merged report), or
// the report itself.
std::vector<RunSource> SourcesOf(const Report& report, const std::string& name) {
  if (!report.run_sources.empty()) return report.run_sources;
  return {RunSource{name, 0, report.runs, report.process, report.report_id, report.rank, report.world_size}};
}

// The trace events of each source's first timed run (the lanes of a merged
// report's timeline: merge.h); none where the report has no run starts, or
// where a source's first run is outside the report's runs.
std::vector<TraceEvent> FirstRunEvents(const Report& report, const std::vector<RunSource>& sources) {
  std::vector<TraceEvent> kept;
  if (report.run_start_ns.size() != static_cast<size_t>(report.runs)) return kept;
  std::vector<bool> first(report.runs, false);
  for (const RunSource& s : sources) {
    if (s.runs > 0 && s.first_run >= 0 && s.first_run < report.runs) first[s.first_run] = true;
  }
  for (const TraceEvent& e : report.events) {
    if (e.run >= 0 && e.run < report.runs && first[e.run]) kept.push_back(e);
  }
  return kept;
}

// values[r] for r in the given runs, appended to `into`.
void AppendRuns(std::vector<int64_t>& into, const std::vector<int64_t>& values, const std::vector<int>& runs) {
  for (int r : runs) into.push_back(r < static_cast<int>(values.size()) ? values[r] : 0);
}

}  // namespace

void ReportMerger::Warn(std::string line) {
  if (warned_.insert(line).second) warnings_.push_back(std::move(line));
}

absl::Status SameGraph(const Report& reference, const Report& report, const std::string& name) {
  if (!reference.graph_hash.empty() && !report.graph_hash.empty()) {
    if (reference.graph_hash != report.graph_hash) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is a report of another graph (", report.model, ", graph ",
                                                     report.graph_hash, "; the others: ", reference.model, ", graph ",
                                                     reference.graph_hash, ")"));
    }
  } else if (report.model != reference.model) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is a report of ", report.model, ", not of ", reference.model));
  }
  if (report.nodes.size() != reference.nodes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " has ", report.nodes.size(), " nodes, the others ",
                                                   reference.nodes.size(), ": not the same graph"));
  }
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    const NodeIdentity& a = reference.nodes[i].identity;
    const NodeIdentity& b = report.nodes[i].identity;
    if (a.kind != b.kind || a.module != b.module) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": node ", i, " is ", b.label, ", not ", a.label,
                                                     ": not the same graph"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReportMerger::CheckSameGraph(const Report& report, const std::string& name) const {
  if (absl::Status same = SameGraph(merged_, report, name); !same.ok()) return same;
  if (report.training_steps() != merged_.training_steps()) {
    const std::string steps = absl::StrCat("training steps", NamedAfter(names_.backward));
    return absl::InvalidArgumentError(absl::StrCat(
        name, report.training_steps() ? absl::StrCat(" holds ", steps, " and the others forward runs only")
                                      : absl::StrCat(" holds forward runs only and the others ", steps),
        ": their backward times cannot be merged"));
  }
  return absl::OkStatus();
}

absl::Status ReportMerger::Add(Report report, const std::string& name) {
  // Reports read from files were validated by the reader; this guards what
  // the merge itself relies on, for reports made in memory too.
  if (absl::Status valid = ValidateReport(report); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", valid.message()));
  }
  if (merged_.run_sources.empty()) {
    // A merged report merged again: its "merged from" lines are replaced by
    // the new merge's.
    report.notes.erase(std::remove_if(report.notes.begin(), report.notes.end(),
                                      [](const std::string& note) {
                                        return absl::StartsWith(note, "merged from ") ||
                                               absl::StartsWith(note, "merge: ");
                                      }),
                       report.notes.end());
    report.run_sources = SourcesOf(report, name);
    report.events = FirstRunEvents(report, report.run_sources);
    report.dropped_events = 0;
    report.device_events.clear();
    report.backward_events.clear();
    report.rank = -1;  // the merge is no one rank's: its run sources say whose runs are whose
    report.world_size = 0;
    for (const RunSource& s : report.run_sources) {
      if (!s.report.empty()) report_ids_.insert(s.report);
    }
    merged_ = std::move(report);
    ReserveRuns();
    return absl::OkStatus();
  }
  if (absl::Status same = CheckSameGraph(report, name); !same.ok()) return same;

  // Which of its runs are new: sources already merged count once.
  std::vector<RunSource> fresh;
  std::vector<int> runs;  // indices into `report`'s runs
  for (const RunSource& source : SourcesOf(report, name)) {
    if (!source.report.empty() && report_ids_.count(source.report) > 0) {
      Warn(absl::StrCat(name, ": the runs of ", source.name == name ? "this report" : source.name,
                        " are in the merge already (the same report given twice, or a merge and one of its "
                        "parts): counted once"));
      continue;
    }
    fresh.push_back(source);
    for (int r = source.first_run; r < source.first_run + source.runs && r < report.runs; ++r) runs.push_back(r);
  }
  if (fresh.empty()) return absl::OkStatus();

  if (report.runs != merged_.run_sources.front().runs) {
    Warn("the reports have different numbers of timed runs: every run counts alike, so reports with more runs weigh "
         "more in the merged statistics");
  }
  if (merged_.machine.has_value() && report.machine.has_value()) {
    const std::vector<std::string> fields = MachineDifferences(*merged_.machine, *report.machine);
    if (!fields.empty()) {
      Warn(absl::StrCat(name, " was measured on another machine (", absl::StrJoin(fields, ", "),
                        " differ): its runs are merged, but timings across machines are not comparable run for run"));
    }
  }
  int shapes_differ = 0;
  for (size_t i = 0; i < merged_.nodes.size(); ++i) {
    NodeRecord& into = merged_.nodes[i];
    const NodeRecord& from = report.nodes[i];
    // The string comparison first: executed() sums the merged runs' calls.
    if (into.input_shapes != from.input_shapes && into.input_shapes.find(" (varies") == std::string::npos &&
        into.executed() && from.executed()) {
      into.input_shapes += " (varies across the merged reports)";
      ++shapes_differ;
    }
  }
  if (shapes_differ > 0) {
    Warn(absl::StrCat(name, ": ", shapes_differ, " nodes ran on other input shapes than in ",
                      merged_.run_sources.front().name, " (their shapes say they vary)"));
  }

  // Metrics: the merged report's, in its order; a metric one side lacks
  // makes the other side's runs zero for it.
  for (int theirs : report.Metrics()) {
    const Column& m = report.columns[theirs];
    if (merged_.FindMetric(m.name) < 0) {
      Column added = m;
      added.run_total.assign(merged_.runs, 0);
      added.unattributed.clear();
      merged_.AddMetric(added);
    }
  }
  const int first_run = merged_.runs;
  // Where the added runs start on the merged clock: after the merged
  // report's last run (read before the run totals below grow).
  const int64_t offset = merged_.run_start_ns.empty() ? 0 : merged_.run_start_ns.back() + merged_.run_ns().back();
  const std::vector<int64_t> zeros(report.runs, 0);
  for (int m : merged_.Metrics()) {
    Column& into = merged_.columns[m];
    const int theirs = report.FindMetric(into.name);
    const Column* their = theirs >= 0 ? &report.columns[theirs] : nullptr;
    // Run totals where every merged report has them (a report without the
    // metric adds zeros); none where one has the metric but no run totals
    // (kernel and autograd-function counts): zeros there would read as
    // totals measured to be 0.
    if (their != nullptr && their->run_total.empty()) {
      into.run_total.clear();
    } else if (!into.run_total.empty()) {
      AppendRuns(into.run_total, their != nullptr ? their->run_total : zeros, runs);
    }
    if (!into.unattributed.empty()) {
      AppendRuns(into.unattributed, their != nullptr && !their->unattributed.empty() ? their->unattributed : zeros, runs);
    }
    for (size_t i = 0; i < merged_.nodes.size(); ++i) {
      std::vector<int64_t>& recorded = merged_.nodes[i].metrics[m].recorded(into);
      recorded.resize(first_run, 0);
      AppendRuns(recorded, their != nullptr ? report.nodes[i].metrics[theirs].recorded(into) : zeros, runs);
    }
  }
  for (size_t i = 0; i < merged_.nodes.size(); ++i) AppendRuns(merged_.nodes[i].calls, report.nodes[i].calls, runs);
  // Run starts only where every report has them, one per run (what the
  // reader takes: none, or one per run). A report without them (older, or
  // hand-made) left the merged report with fewer starts than runs, which
  // merge wrote and its own reader refused (found by compare_fuzzer).
  // The sources' first-run events come with them, on the merged clock (the
  // reports one after another); without run starts there is no clock for
  // them, and none are kept.
  if (merged_.run_start_ns.size() == static_cast<size_t>(first_run) &&
      report.run_start_ns.size() == static_cast<size_t>(report.runs)) {
    for (int r : runs) merged_.run_start_ns.push_back(offset + report.run_start_ns[r]);
    std::vector<int> merged_run(report.runs, -1);  // report's run -> merged run
    for (size_t k = 0; k < runs.size(); ++k) merged_run[runs[k]] = first_run + static_cast<int>(k);
    for (TraceEvent e : FirstRunEvents(report, fresh)) {
      if (merged_run[e.run] < 0) continue;
      e.run = merged_run[e.run];
      e.start_ns += offset;
      merged_.events.push_back(e);
    }
  } else {
    merged_.run_start_ns.clear();
    merged_.events.clear();
  }
  // The sources, renumbered into the merged runs.
  int next = first_run;
  for (RunSource source : fresh) {
    const int count = std::min(source.runs, std::max(0, report.runs - source.first_run));
    source.first_run = next;
    source.runs = count;
    next += count;
    if (source.name.empty()) source.name = name;
    if (!source.report.empty()) report_ids_.insert(source.report);
    merged_.run_sources.push_back(source);
  }
  merged_.runs = next;
  merged_.warmup = std::max(merged_.warmup, report.warmup);
  if (merged_.gradient_verification.has_value() && report.gradient_verification.has_value() &&
      !report.gradient_verification->passed()) {
    merged_.gradient_verification = report.gradient_verification;
  }
  if (merged_.verification.has_value() && report.verification.has_value() && !report.verification->passed()) {
    merged_.verification = report.verification;
  }
  return absl::OkStatus();
}

void ReportMerger::ReserveRuns() {
  if (expected_reports_ <= 1) return;
  const size_t runs = static_cast<size_t>(merged_.runs) * static_cast<size_t>(expected_reports_);
  merged_.run_start_ns.reserve(runs);
  for (Column& m : merged_.columns) {
    if (!m.per_run()) continue;
    m.run_total.reserve(runs);
    if (!m.unattributed.empty()) m.unattributed.reserve(runs);
  }
  const std::vector<int> metrics = merged_.Metrics();
  for (NodeRecord& node : merged_.nodes) {
    node.calls.reserve(runs);
    for (int m : metrics) node.metrics[m].recorded(merged_.columns[m]).reserve(runs);
  }
}

absl::StatusOr<Report> ReportMerger::SoFar() const {
  if (merged_.run_sources.empty()) return absl::InvalidArgumentError("no reports to merge");
  Report so_far = merged_;
  so_far.Finalize();
  return so_far;
}

absl::StatusOr<Report> ReportMerger::Finish() {
  if (merged_.run_sources.empty()) return absl::InvalidArgumentError("no reports to merge");
  std::vector<std::string> names;
  for (const RunSource& s : merged_.run_sources) names.push_back(s.name);
  constexpr size_t kNamed = 8;
  const std::string listed =
      names.size() <= kNamed
          ? absl::StrJoin(names, ", ")
          : absl::StrCat(absl::StrJoin(std::vector<std::string>(names.begin(), names.begin() + kNamed), ", "),
                         ", ... (", names.size() - kNamed, " more)");
  merged_.notes.push_back(absl::StrCat("merged from ", merged_.run_sources.size(), " reports (", listed, "), ",
                                       merged_.runs, " timed runs in all"));
  for (const std::string& w : warnings_) merged_.notes.push_back(absl::StrCat("merge: ", w));
  merged_.Finalize();
  return std::move(merged_);
}

}  // namespace graphprof
