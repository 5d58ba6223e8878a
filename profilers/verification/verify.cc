#include "profilers/verification/verify.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

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

namespace {

double Scale(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (expected.isTensor() != actual.isTensor()) return kInf;
  if (expected.isTensor()) {
    const at::Tensor& e = expected.toTensor();
    const at::Tensor& a = actual.toTensor();
    if (!e.defined() || !a.defined()) return e.defined() == a.defined() ? 0 : kInf;
    if (e.sizes() != a.sizes() || e.scalar_type() != a.scalar_type()) return kInf;
    if (e.numel() == 0) return 0;
    if (!e.is_floating_point()) return at::equal(e.cpu(), a.cpu()) ? 0 : kInf;
    const at::Tensor e64 = e.detach().cpu().to(at::kDouble);
    const at::Tensor a64 = a.detach().cpu().to(at::kDouble);
    const at::Tensor nan_e = at::isnan(e64), nan_a = at::isnan(a64);
    if (!at::equal(nan_e, nan_a)) return kInf;
    const at::Tensor both = nan_e.logical_not();
    const at::Tensor diff = (a64 - e64).abs().masked_select(both);
    const at::Tensor bound = (e64.abs() * rtol + atol).masked_select(both);
    if (diff.numel() == 0) return 0;
    // Infinities in the same place with the same sign are equal.
    const at::Tensor same = (a64.masked_select(both) == e64.masked_select(both));
    const at::Tensor ratio = at::where(same, at::zeros_like(diff), diff / bound);
    const double worst = ratio.max().item<double>();
    return std::isnan(worst) ? kInf : worst;
  }
  if (expected.isTuple() != actual.isTuple() || expected.isList() != actual.isList()) return kInf;
  std::vector<c10::IValue> es, as;
  if (expected.isTuple()) {
    es = expected.toTupleRef().elements().vec();
    as = actual.toTupleRef().elements().vec();
  } else if (expected.isList()) {
    es = expected.toListRef().vec();
    as = actual.toListRef().vec();
  } else {
    return IdenticalIValues(expected, actual) ? 0 : kInf;
  }
  if (es.size() != as.size()) return kInf;
  double worst = 0;
  for (size_t i = 0; i < es.size(); ++i) worst = std::max(worst, Scale(es[i], as[i], rtol, atol));
  return worst;
}

}  // namespace

double ToleranceScale(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol) {
  try {
    return Scale(expected, actual, rtol, atol);
  } catch (const std::exception&) {  // a layout LibTorch cannot compare (sparse, nested): no basis
    return std::numeric_limits<double>::infinity();
  }
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
