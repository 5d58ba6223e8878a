// The one line a failed verification ends with, the same for profile_graph
// (which prints it and exits 3) and graphprof (GraphprofError's message):
//
//   output differs from native <method>: <detail> (max abs error E, max rel error R)
//   gradients differ from native <method> + backward: <detail> (...)
//
// Outputs are reported before gradients; "" when both passed or neither was
// checked.
#ifndef GRAPHPROF_PROFILERS_REPORT_VERIFICATION_FAILURE_H_
#define GRAPHPROF_PROFILERS_REPORT_VERIFICATION_FAILURE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "profilers/report/report.h"

namespace graphprof {

std::string VerificationFailure(const Report& report, absl::string_view method);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_VERIFICATION_FAILURE_H_
