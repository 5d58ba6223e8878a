// A View as CSV: one header row, one row per view row, no sums row; loads in
// pandas as is (pd.read_csv). Columns, in this order:
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

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

std::string RenderCsv(const Report& report, const View& view);

// The same columns as data, for other tabular renderings (pandas).
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

// RFC 4180 quoting: quoted when the field holds a comma, quote or newline.
std::string CsvField(absl::string_view text);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_CSV_REPORT_H_
