#include "profilers/reference_check.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/before_after.h"

namespace graphprof {
namespace {

// Floating tensors of a value to float64, containers rebuilt alike.
c10::IValue ToDouble(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.is_floating_point() ? c10::IValue(t.to(at::kDouble)) : v;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const c10::IValue& e : v.toTupleRef().elements()) elements.push_back(ToDouble(e));
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  if (v.isList()) {
    c10::impl::GenericList list(v.toList().elementType());
    for (const c10::IValue& e : v.toList()) list.push_back(ToDouble(e));
    return list;
  }
  return v;
}

// The floating tensors of a value, in order (tuple, list and dict values).
void Floats(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    if (v.toTensor().is_floating_point()) out.push_back(v.toTensor());
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) Floats(e, out);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toList()) Floats(e, out);
  } else if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) Floats(entry.value(), out);
  }
}

}  // namespace

absl::StatusOr<c10::IValue> RunInDouble(const torch::jit::Module& module, const std::string& method,
                                        const std::vector<c10::IValue>& inputs) {
  try {
    torch::jit::Module copy = module.clone();
    copy.to(at::kDouble);
    std::vector<c10::IValue> args;
    for (const c10::IValue& v : DeepCopy(inputs)) args.push_back(ToDouble(v));
    return copy.get_method(method)(std::move(args));
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, "the float64 reference run", e);
  }
}

Verification VerifyAgainstDouble(const c10::IValue& reference64, const c10::IValue& native, const c10::IValue& actual,
                                 std::string reference) {
  Verification v;
  v.reference = std::move(reference);
  const IValueComparison exact = CompareIValues(native, actual, 0, 0);
  v.identical = exact.identical;
  v.max_abs_error = exact.max_abs_error;
  v.max_rel_error = exact.max_rel_error;
  if (v.identical) return v;
  // Same structure, shapes and dtypes as the native output (any tolerance).
  const IValueComparison shape = CompareIValues(native, actual, 1e300, 1e300);
  std::vector<at::Tensor> r, n, a;
  Floats(reference64, r);
  Floats(native, n);
  Floats(actual, a);
  if (!shape.within_tolerance || r.size() != a.size() || n.size() != a.size()) {
    v.detail = shape.within_tolerance ? "the float64 reference has another structure" : shape.detail;
    return v;
  }
  double magnitude = 0, native_error = 0, actual_error = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i].sizes() != a[i].sizes()) {
      v.detail = absl::StrCat("output tensor ", i, ": float64 reference of another shape");
      return v;
    }
    const at::Tensor ref = r[i].to(at::kDouble);
    magnitude = std::max(magnitude, ref.abs().max().item<double>());
    native_error = std::max(native_error, (n[i].to(at::kDouble) - ref).abs().max().item<double>());
    actual_error = std::max(actual_error, (a[i].to(at::kDouble) - ref).abs().max().item<double>());
  }
  if (!std::isfinite(actual_error)) {
    v.detail = "non-finite values where the reference has none";
    return v;
  }
  const double scale = magnitude > 0 ? magnitude : 1;
  const double allowed = std::max(kRoundingFactor * native_error, kRelativeFloor * scale);
  v.within_tolerance = actual_error <= allowed;
  v.rtol = allowed / scale;  // the relative bound that applied
  v.atol = 0;
  v.detail = absl::StrFormat(
      "against a float64 run of the unmodified module: error %.3g (%.3g of the output's magnitude %.3g), allowed "
      "%.3g (%g x the float32 module's own error %.3g)",
      actual_error, actual_error / scale, magnitude, allowed, kRoundingFactor, native_error);
  return v;
}

Verification VerifyAfterPasses(const torch::jit::Module& module, const std::string& method,
                               const std::vector<c10::IValue>& inputs, const c10::IValue& native,
                               const c10::IValue& actual, double rtol, double atol, std::string reference) {
  absl::StatusOr<c10::IValue> reference64 = RunInDouble(module, method, inputs);
  if (reference64.ok()) return VerifyAgainstDouble(*reference64, native, actual, std::move(reference));
  Verification v = Verify(native, actual, rtol, atol, std::move(reference));
  if (!v.identical) {
    v.detail = absl::StrCat(v.detail.empty() ? "" : absl::StrCat(v.detail, "; "), "within rtol/atol (",
                            reference64.status().message(), ")");
  }
  return v;
}

}  // namespace graphprof
