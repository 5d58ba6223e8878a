// The diff's node matching (report_diff.cc's first step), and the small
// helpers both halves use. Private to //profilers/report:report_diff.
#ifndef GRAPHPROF_PROFILERS_REPORT_DIFF_MATCHING_H_
#define GRAPHPROF_PROFILERS_REPORT_DIFF_MATCHING_H_

#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/stats.h"

namespace graphprof::diff_internal {

// Mean self value per run of metric `m` (-1: the report lacks it: 0), and of host time.
inline double MeanSelfOf(const NodeRecord& node, int m) {
  return m < 0 || static_cast<size_t>(m) >= node.metrics.size() ? 0 : Mean(node.metrics[m].self);
}
inline double MeanSelf(const NodeRecord& node) { return MeanSelfOf(node, 0); }

// A node's value of `column` in `report`, the diff's `base` side or not:
// its mean self value per run (metrics) or its quantity; 0 where the report
// lacks the column.
inline double ColumnValue(const Report& report, const NodeRecord& node, const DiffColumn& column, bool base) {
  const int index = base ? column.base : column.current;
  return column.quantity ? report.QuantityOf(node, index) : MeanSelfOf(node, index);
}

// Pairs the participating nodes of `base` and `current` (the same node; the
// same kind in the same module; an op of the same family or the heaviest
// in its module, replaced; merged into a node a pass created; added;
// removed) and appends one NodeDelta per pair or leftover to diff.nodes,
// with the match counts and diff.unexecuted. Returns the base's self time
// (mean per run, ns) that found a partner.
double MatchNodes(const Report& base, const Report& current, const DiffOptions& options, ReportDiff& diff);

}  // namespace graphprof::diff_internal

#endif  // GRAPHPROF_PROFILERS_REPORT_DIFF_MATCHING_H_
