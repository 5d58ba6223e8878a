// Merging reports of the same graph made by many processes (ranks, inputs,
// machines) into one: the timed runs of all are concatenated, so every view
// and statistic covers them all, and Report::run_sources remembers which
// runs came from which report and process. Views then show the spread
// across reports (ViewRow::source_means) and the slowest report per row,
// flagged as a straggler when it is slower than the others beyond their
// spread (views.h); diffs of merged reports treat processes as the unit.
//
// Identity. Reports are of the same graph when their graph hashes (a hash of
// the profiled IR, Report::graph_hash) agree, whatever their files are named
// or where they live; reports written before the hash existed are matched by
// model name, node count and every node's kind and module, as before. A
// report of another graph is refused, and so is a forward-only report with
// training steps (their backward columns cannot be averaged).
//
// Runs are counted once: every report carries an id (Report::report_id) that
// merged reports keep per source, so the same file given twice, a copy of
// it, or a merged report and one of its parts add each report's runs once
// (warned). Distinct reports with equal numbers (64 ranks) merge silently.
// What merges but differs is warned about in one line each (warnings()):
// input shapes (the merged node then says its shapes vary), run counts,
// machines. Reports are added one at a time, so a merge of many large
// reports holds one of them in memory at a time besides the result. Of the
// trace events, a merged report keeps those of each source's first timed
// run (run k of ranks is one step: the page draws each source's first run
// as a lane, html_report.h), on the merged clock where the sources' runs
// follow one another; none where a report has no run starts. Memory views
// are kept from the first report.
#ifndef GRAPHPROF_PROFILERS_REPORT_MERGE_H_
#define GRAPHPROF_PROFILERS_REPORT_MERGE_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "profilers/report/option_names.h"
#include "profilers/report/report.h"

namespace graphprof {

// Whether `report` (called `name` in the message) is a report of the same
// graph as `reference`, by the rule above (graph hashes, else model name,
// node count and every node's kind and module): OK, or InvalidArgument
// saying how it differs. Also what `profile_graph check` compares by.
absl::Status SameGraph(const Report& reference, const Report& report, const std::string& name);

class ReportMerger {
 public:
  // `names`: the front end's names for the options its messages point to.
  explicit ReportMerger(OptionNames names = {}) : names_(std::move(names)) {}

  // Adds `report` (named `name` in run_sources). Fails, leaving the merge
  // unchanged, when it is a report of another graph, or forward-only against
  // training steps.
  absl::Status Add(Report report, const std::string& name);
  // How many reports will be added in all (a hint, before the first Add):
  // the merged series are then sized once for all their runs instead of
  // growing (and being copied) report after report.
  void Expect(int reports) { expected_reports_ = reports; }

  int reports() const { return static_cast<int>(merged_.run_sources.size()); }
  // One line each: what was merged but differs, and runs counted once.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The merged report (finalized). Fails when nothing was added.
  absl::StatusOr<Report> Finish();
  // The reports added so far, merged and finalized, without Finish's notes;
  // the merge goes on. Fails when nothing was added.
  absl::StatusOr<Report> SoFar() const;

 private:
  absl::Status CheckSameGraph(const Report& report, const std::string& name) const;
  void Warn(std::string line);

  void ReserveRuns();

  OptionNames names_;
  Report merged_;
  int expected_reports_ = 0;
  std::set<std::string> report_ids_;  // of every source merged
  std::vector<std::string> warnings_;
  std::set<std::string> warned_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_MERGE_H_
