// Merging reports of the same model made by many processes (ranks, inputs,
// machines) into one: the timed runs of all are concatenated, so every view
// and statistic covers them all, and Report::run_sources remembers which
// runs came from which report. Views then show the spread across reports
// (ViewRow::source_means: each report's mean of the row) and the slowest
// report (stragglers).
//
// Nodes are matched by id after checking that the graphs are the same (node
// count, and every node's kind and module path): a report of another model
// is refused. Reports are added one at a time, so a merge of many large
// reports holds one of them in memory at a time besides the result. Trace
// events are not merged (they are per process); memory views are kept from
// the first report.
#ifndef GRAPHPROF_PROFILERS_REPORT_MERGE_H_
#define GRAPHPROF_PROFILERS_REPORT_MERGE_H_

#include <string>

#include "absl/status/status.h"
#include "profilers/report/report.h"

namespace graphprof {

class ReportMerger {
 public:
  // Adds `report` (named `name` in run_sources). Fails, leaving the merge
  // unchanged, when it is a report of another model or graph.
  absl::Status Add(Report report, const std::string& name);

  int reports() const { return static_cast<int>(merged_.run_sources.size()); }
  // The merged report (finalized). Fails when nothing was added.
  absl::StatusOr<Report> Finish();

 private:
  Report merged_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_MERGE_H_
