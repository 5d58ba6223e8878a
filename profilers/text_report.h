// Human-readable renderings of a Report: the summary header and aligned
// tables of any View (the layout of the torch.fx profiling tutorial and of
// TVM's profiler: name, kind, mean, %, std, calls, shapes, and a sums row).
#ifndef GRAPHPROF_PROFILERS_TEXT_REPORT_H_
#define GRAPHPROF_PROFILERS_TEXT_REPORT_H_

#include <string>

#include "profilers/report.h"
#include "profilers/views.h"

namespace graphprof {

// Model, runs, run time statistics, coverage, timer overhead, verification
// and, when measured, the memory summary.
std::string RenderSummary(const Report& report);

struct TableOptions {
  bool memory = false;  // add allocation/peak/output columns (if measured)
  std::string title;    // printed above the table
};

std::string RenderTable(const Report& report, const View& view, const TableOptions& options = {});

// "1.50 KiB", "9.48 MiB".
std::string FormatBytes(int64_t bytes);
// Microseconds from nanoseconds with sensible precision: "0.85", "12.3", "4312".
std::string FormatMicros(double ns);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TEXT_REPORT_H_
