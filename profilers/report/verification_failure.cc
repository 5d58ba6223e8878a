#include "profilers/report/verification_failure.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphprof {

std::string VerificationFailure(const Report& report, absl::string_view method) {
  if (report.verification.has_value() && !report.verification->passed()) {
    const Verification& v = *report.verification;
    // Named by what it was compared with where that is not the module's
    // own method run natively (a program's saved outputs: "PyTorch 2.6's
    // ep.module() ...").
    const bool native = v.reference == Verification().reference || absl::StartsWith(v.reference, "module.");
    return absl::StrCat("output differs from ", native ? absl::StrCat("native ", method) : v.reference, ": ", v.detail,
                        " (max abs error ", v.max_abs_error, ", max rel error ", v.max_rel_error, ")");
  }
  if (report.gradient_verification.has_value() && !report.gradient_verification->passed()) {
    const Verification& v = *report.gradient_verification;
    return absl::StrCat("gradients differ from native ", method, " + backward: ", v.detail, " (max abs error ",
                        v.max_abs_error, ", max rel error ", v.max_rel_error, ")");
  }
  return "";
}

}  // namespace graphprof
