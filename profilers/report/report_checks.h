// Whether a report read back from JSON is one graphprof could have written
// (report_json_reader.cc calls it after reading): node ids, parents and
// series lengths consistent, and magnitudes that renderers can add up.
// Private to //profilers/report:report_json.
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_

#include "absl/status/status.h"
#include "profilers/report/report.h"

namespace graphprof {

// InvalidArgument with one sentence when a node's id is not its index, a
// parent does not come before its child, a series has another length than
// the report's runs, the memory peak names no node, or the values of one
// quantity add up past 2^60 (below that, no sum a renderer makes can
// overflow int64).
absl::Status CheckStructure(const Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_
