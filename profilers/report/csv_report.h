// A View as CSV: one header row, one row per view row, no sums row; loads in
// pandas as is (pd.read_csv). The columns are table_columns.h's for CSV, in
// its order, headed by their keys (the list is there, not repeated here).
// An empty cell has no value: memory without a memory view, a metric without
// samples in the row, host time in a metric's "(unattributed)" row, work not
// counted.
#ifndef GRAPHPROF_PROFILERS_REPORT_CSV_REPORT_H_
#define GRAPHPROF_PROFILERS_REPORT_CSV_REPORT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

std::string RenderCsv(const Report& report, const View& view);

// RFC 4180 quoting: quoted when the field holds a comma, quote or newline.
std::string CsvField(absl::string_view text);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_CSV_REPORT_H_
