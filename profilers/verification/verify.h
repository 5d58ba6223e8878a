// Verification: whether what graphprof ran computed what the reference
// computed, as a Verification (profilers/report/verification_result.h) a report carries.
// One package for every such comparison, called by the profiling session
// (profilers/session) and the A/B code (profilers/before_after.h), and
// calling neither:
//
//   verify.h           outputs element-wise (identical, else within
//                      rtol/atol) and gradients parameter by parameter
//   reference_check.h  outputs after passes against a float64 run of the
//                      module (the model's own rounding error as the bound),
//                      and CheckOutput, which picks the criterion
//
// Every comparison states what it compared against (`reference`), the
// tolerance it applied and, where something differs, the first place.
#ifndef GRAPHPROF_PROFILERS_VERIFICATION_VERIFY_H_
#define GRAPHPROF_PROFILERS_VERIFICATION_VERIFY_H_

#include <torch/script.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/autograd/training_step.h"
#include "profilers/report/verification_result.h"

namespace graphprof {

// Compares `actual` with `expected` as --verify does: identical, else within
// rtol/atol; `reference` names what `expected` came from.
Verification Verify(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol,
                    std::string reference);

// How far `actual` is from `expected` in units of the tolerance rtol/atol:
// the largest |actual - expected| / (atol + rtol * |expected|) over the
// floating elements (0: identical; <= 1: within the tolerance). NaN where
// the other has NaN counts as equal; other differences in structure, shape,
// dtype, NaN places or non-floating values: infinity. Tensors, tuples and
// lists of them; anything LibTorch cannot compare: infinity (nothing throws).
double ToleranceScale(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol);

// Compares gradients parameter by parameter (`names[i]` names gradient i in
// the detail; missing names read "parameter i"): identical, else within
// rtol/atol; an undefined gradient where the other is defined fails;
// Verification::compared counts the pairs both defined.
Verification CompareGradients(const std::vector<std::string>& names, const std::vector<at::Tensor>& expected,
                              const std::vector<at::Tensor>& actual, double rtol, double atol, std::string reference);

// The gradients the last profiled step left on `profiled_self`'s parameters
// against one native step of `forward`, whose module is `native_self`: the
// module as given, which after passes is not the plan's clone (same
// parameter names and order; --backward refuses passes that change them).
// Nothing compared (no parameter got a gradient) is not a pass: the report
// gets a note instead (SetGradientVerification).
absl::StatusOr<Verification> VerifyGradients(
    const c10::optional<c10::IValue>& profiled_self, const c10::optional<c10::IValue>& native_self,
    const BackwardOptions& options,
    const std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)>& forward,
    const std::vector<c10::IValue>& inputs, double rtol, double atol, std::string reference);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_VERIFICATION_VERIFY_H_
