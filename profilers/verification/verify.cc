#include "profilers/verification/verify.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/ivalue_util.h"

namespace graphprof {

Verification Verify(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol,
                    std::string reference) {
  const IValueComparison c = CompareIValues(expected, actual, rtol, atol);
  Verification v;
  v.identical = c.identical;
  v.within_tolerance = c.within_tolerance;
  v.max_abs_error = c.max_abs_error;
  v.max_rel_error = c.max_rel_error;
  v.rtol = rtol;
  v.atol = atol;
  v.detail = c.detail;
  v.reference = std::move(reference);
  return v;
}

Verification CompareGradients(const std::vector<std::string>& names, const std::vector<at::Tensor>& expected,
                              const std::vector<at::Tensor>& actual, double rtol, double atol, std::string reference) {
  Verification v;
  v.rtol = rtol;
  v.atol = atol;
  v.reference = std::move(reference);
  v.identical = expected.size() == actual.size();
  v.within_tolerance = v.identical;
  v.compared = 0;
  if (!v.identical) {
    v.detail = absl::StrCat(expected.size(), " gradients expected, ", actual.size(), " found");
    return v;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : absl::StrCat("parameter ", i);
    if (expected[i].defined() != actual[i].defined()) {
      v.identical = v.within_tolerance = false;
      if (v.detail.empty()) {
        v.detail = absl::StrCat("gradient of ", name, ": ", expected[i].defined() ? "missing" : "unexpected");
      }
      continue;
    }
    if (!expected[i].defined()) continue;
    ++v.compared;
    const IValueComparison c = CompareIValues(expected[i], actual[i], rtol, atol);
    v.max_abs_error = std::max(v.max_abs_error, c.max_abs_error);
    v.max_rel_error = std::max(v.max_rel_error, c.max_rel_error);
    if (!c.identical) v.identical = false;
    if (!c.within_tolerance) v.within_tolerance = false;
    if (!c.identical && v.detail.empty()) v.detail = absl::StrCat("gradient of ", name, ": ", c.detail);
  }
  return v;
}

absl::StatusOr<Verification> VerifyGradients(
    const c10::optional<c10::IValue>& profiled_self, const c10::optional<c10::IValue>& native_self,
    const BackwardOptions& options,
    const std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)>& forward,
    const std::vector<c10::IValue>& inputs, double rtol, double atol, std::string reference) {
  const TrainingStep profiled(profiled_self, options);
  const TrainingStep native(native_self, options);
  const std::vector<at::Tensor> actual = profiled.Gradients();
  absl::StatusOr<std::vector<at::Tensor>> expected = native.ReferenceGradients(forward, inputs);
  if (!expected.ok()) return expected.status();
  if (native.parameters().size() != profiled.parameters().size()) {
    Verification v;
    v.reference = std::move(reference);
    v.detail = absl::StrCat("the profiled module has ", profiled.parameters().size(),
                            " trainable parameters, the native one ", native.parameters().size());
    return v;
  }
  // Gradients pair by position: the parameters must be the same ones, in
  // the same order (a pass that reorders them would pair unrelated tensors).
  for (size_t i = 0; i < native.parameters().size(); ++i) {
    if (native.parameters()[i].name != profiled.parameters()[i].name) {
      Verification v;
      v.reference = std::move(reference);
      v.detail = absl::StrCat("parameter ", i, " is ", profiled.parameters()[i].name, " in the profiled module and ",
                              native.parameters()[i].name, " in the native one");
      return v;
    }
  }
  return CompareGradients(native.ParameterNames(), *expected, actual, rtol, atol, std::move(reference));
}

}  // namespace graphprof
