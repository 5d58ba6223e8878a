// A View as CSV: one header row, one row per view row, no sums row; loads in
// pandas as is (pd.read_csv). Columns (view_columns.h), in this order:
//   id, name, kind, module, shapes, count, mean_us, std_us, min_us,
//   median_us, p90_us, max_us, total_us, percent, self_us, self_percent,
//   source, alloc_bytes, peak_bytes, output_bytes
// then, for every metric after host time (device, backward, ...), its mean
// per run: <metric>_us and <metric>_self_us (counts: <metric>, <metric>_self);
// training steps with a memory view add saved_bytes.
// count is executions per run; total_us is the sum over runs; id is empty for
// grouped views, and grouped rows use the group (e.g. the kind) as `name`.
// Merged reports add min_report_us, median_report_us, max_report_us (of the
// per-report means) and slowest_report.
// Memory columns are empty unless the report has a memory view; a metric's
// cells are empty for rows without samples of it.
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
