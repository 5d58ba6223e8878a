// Checking outputs after passes (--passes, --ab, --freeze), when float
// rounding may legitimately change.
//
// A fixed rtol/atol cannot be right for every model: a deep float32 network
// whose sums a pass reorders (MKLDNN) moves outputs of magnitude 100 by 1e-4,
// while a shallow one moves by 1e-7. So the yardstick is the model's own
// float32 rounding error: the unmodified module runs once more in float64
// (parameters, buffers and floating inputs converted), and the output after
// the passes passes when its error against that reference is at most
// kRoundingFactor times the error of the unmodified float32 output
// (native forward), or below kRelativeFloor of the output's magnitude:
//
//   per floating output leaf i (a tensor or a float), over its elements where
//   R64 and the float32 output are both finite:
//   err_i(X) = max |X - R64|,  mag_i = max |R64|
//   passed  iff  for every i: err_i(after) <= max(kRoundingFactor * err_i(native), kRelativeFloor * mag_i)
//
// Each leaf on its own scale (a small output beside large logits is held to
// its own rounding error). Where R64 or the float32 output is not finite
// (NaN, infinities), the output after the passes must equal the float32
// output exactly there (NaN matching NaN). Leaves that are not floating
// (integer and bool tensors, ints, strings) must be identical: an argmax
// that changed fails. Verification::compared counts the leaves judged.
//
// A real change (a weight perturbed by 1e-3 of its value) moves outputs by
// orders of magnitude more than rounding does and fails. Where the module
// cannot run in float64 (dtype-specific code, quantized ops), the check
// falls back to rtol/atol and says so in the Verification's detail.
#ifndef GRAPHPROF_PROFILERS_VERIFICATION_REFERENCE_CHECK_H_
#define GRAPHPROF_PROFILERS_VERIFICATION_REFERENCE_CHECK_H_

#include <torch/script.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/report/verification_result.h"

namespace graphprof {

inline constexpr double kRoundingFactor = 16;
inline constexpr double kRelativeFloor = 1e-6;
// A float32 output further than this (of its magnitude) from the float64
// run is not rounding (randomness, dtype-dependent code): no reference.
inline constexpr double kMaxNativeError = 1e-3;

// `method` of a float64 copy of `module` on float64 copies of `inputs`.
absl::StatusOr<c10::IValue> RunInDouble(const torch::jit::Module& module, const std::string& method,
                                        const std::vector<c10::IValue>& inputs);

// The comparison above: `actual` (after the passes) and `native` (the
// unmodified module in float32) against `reference64`. Identical outputs
// are identical; `actual` of another structure than `native` fails.
// FailedPrecondition when `reference64` cannot serve: shaped unlike
// `native`, or `native` further than kMaxNativeError from it.
absl::StatusOr<Verification> VerifyAgainstDouble(const c10::IValue& reference64, const c10::IValue& native,
                                                 const c10::IValue& actual, std::string reference);

// Verifies `actual`, the output after passes, for `module` as given: against
// a float64 run where it works and can serve, else with rtol/atol against
// `native` (the detail says why).
Verification VerifyAfterPasses(const torch::jit::Module& module, const std::string& method,
                               const std::vector<c10::IValue>& inputs, const c10::IValue& native,
                               const c10::IValue& actual, double rtol, double atol, std::string reference);

// How a profiled output is compared with the module's native output (the
// profiling session, each side of --ab).
struct OutputCheck {
  // Passes changed the graph: float rounding may differ, so the output
  // passes within rtol/atol (or, with float64_reference, when its error
  // against a float64 run is the size of the module's own rounding error:
  // reference_check.h). Without passes it must be identical.
  bool transformed = false;
  double rtol = 1e-5;
  double atol = 1e-6;
  bool float64_reference = false;
  std::string reference = "native execution";  // "module.forward"
};

// `actual` (the plan's output) against `expected` (the native run's) as
// `check` says; `module`, `method` and `inputs` make the float64 reference
// (null module: rtol/atol).
Verification CheckOutput(const c10::IValue& expected, const c10::IValue& actual, const OutputCheck& check,
                         const torch::jit::Module* module = nullptr, const std::string& method = "forward",
                         const std::vector<c10::IValue>& inputs = {});

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_VERIFICATION_REFERENCE_CHECK_H_
