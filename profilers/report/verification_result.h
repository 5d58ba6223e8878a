// How a run's output (or gradients) compared with a reference, as a report
// holds it. profilers/verification/ makes these; renderings print them.
#ifndef GRAPHPROF_PROFILERS_REPORT_VERIFICATION_RESULT_H_
#define GRAPHPROF_PROFILERS_REPORT_VERIFICATION_RESULT_H_

#include <cstdint>
#include <string>

namespace graphprof {

// How the output compared with native execution (--verify).
struct Verification {
  bool identical = false;    // bitwise (NaN equal to NaN at the same place)
  bool within_tolerance = false;
  double max_abs_error = 0;  // over all floating tensors of the output
  double max_rel_error = 0;
  double rtol = 0;
  double atol = 0;
  // How within_tolerance was decided. kElementwise: every element of every
  // floating output within atol + rtol * |expected| (rtol and atol as
  // given). kFloat64Scale: each floating output's largest error against a
  // float64 run of the unmodified module at most a few times the float32
  // module's own error against it (rtol: the bound that applied to the worst
  // output, as a fraction of its magnitude; `detail` has the quantities).
  enum class Criterion { kElementwise, kFloat64Scale };
  Criterion criterion = Criterion::kElementwise;
  std::string detail;        // where the first difference is, if any
  std::string reference = "native execution";  // what was compared with ("module.forward")
  // Tensors compared (gradients: parameters with a gradient); -1 when not
  // counted. A comparison of nothing verifies nothing (see
  // SetGradientVerification).
  int64_t compared = -1;
  bool passed() const { return compared != 0 && (identical || within_tolerance); }
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_VERIFICATION_RESULT_H_
