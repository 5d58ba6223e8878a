// A View as CSV: one header row, one row per view row, no sums row; loads in
// pandas as is (pd.read_csv). Fixed columns, in this order:
//   id, name, kind, module, shapes, count, mean_us, std_us, min_us,
//   median_us, p90_us, max_us, total_us, percent, self_us, self_percent,
//   source, alloc_bytes, peak_bytes, output_bytes, device_us, kernels, kernel_us
// count is executions per run; total_us is the sum over runs; id is empty for
// grouped views, and grouped rows use the group (e.g. the kind) as `name`.
// Memory columns are empty unless the report has a memory view; device
// columns are empty without device profiling (--cuda_profile).
#ifndef GRAPHPROF_PROFILERS_CSV_REPORT_H_
#define GRAPHPROF_PROFILERS_CSV_REPORT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "profilers/views.h"

namespace graphprof {

std::string RenderCsv(const View& view);

// RFC 4180 quoting: quoted when the field holds a comma, quote or newline.
std::string CsvField(absl::string_view text);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_CSV_REPORT_H_
