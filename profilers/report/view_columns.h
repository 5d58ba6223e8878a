// The columns of a View's rows as data, shared by the tabular renderings
// (CSV in csv_report.h, pandas DataFrames in the Python extension), so a
// metric added to the Report appears in all of them at once. The column list
// and its meaning are documented in csv_report.h.
#ifndef GRAPHPROF_PROFILERS_REPORT_VIEW_COLUMNS_H_
#define GRAPHPROF_PROFILERS_REPORT_VIEW_COLUMNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

// One cell of a row; the kind says how a rendering writes `number`.
struct ViewCell {
  enum class Kind {
    kEmpty,    // no value (a grouped row's id, a memory column without memory)
    kInt,      // exact integer (id, bytes)
    kMicros,   // `number` is nanoseconds, shown as microseconds
    kPercent,  // `number` is a percentage
    kNumber,   // any other number (executions per run, counts)
    kText,
  };
  Kind kind = Kind::kEmpty;
  double number = 0;
  int64_t integer = 0;
  std::string text;
};
std::vector<std::string> ViewColumnNames(const Report& report);
std::vector<ViewCell> ViewRowCells(const Report& report, const ViewRow& row);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_VIEW_COLUMNS_H_
