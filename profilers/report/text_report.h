// Human-readable renderings of a Report: the summary header and aligned
// tables of any View (the layout of the torch.fx profiling tutorial and of
// TVM's profiler: name, kind, mean, %, std, calls, shapes, and a sums row).
#ifndef GRAPHPROF_PROFILERS_REPORT_TEXT_REPORT_H_
#define GRAPHPROF_PROFILERS_REPORT_TEXT_REPORT_H_

#include <string>

#include "profilers/report/format.h"
#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

// Model, runs, run time statistics, coverage, timer overhead, verification
// and, when measured, the memory summary.
std::string RenderSummary(const Report& report);

// The "verified" line: "output identical to module.forward", "OUTPUT DIFFERS ...".
std::string DescribeVerification(const Report& report);

struct TableOptions {
  bool memory = false;  // add allocation/peak/output columns (if measured)
  std::string title;    // printed above the table
  // GFLOP, GFLOP/s, GB/s, FLOP/B, bound and % of attainable (roofline.h)
  // columns, where the report counted work.
  bool roofline = false;
};

std::string RenderTable(const Report& report, const View& view, const TableOptions& options = {});

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_TEXT_REPORT_H_
