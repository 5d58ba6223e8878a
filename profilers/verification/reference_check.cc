#include "profilers/verification/reference_check.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/verification/verify.h"

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
    // A NamedTuple keeps its type (the method's schema checks it).
    const c10::TupleTypePtr type = v.toTupleRef().type();
    if (type != nullptr && type->schema() != nullptr) return c10::ivalue::Tuple::createNamed(std::move(elements), type);
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  if (v.isList()) {
    c10::impl::GenericList list(v.toList().elementType());
    for (const c10::IValue& e : v.toList()) list.push_back(ToDouble(e));
    return list;
  }
  if (v.isGenericDict()) {
    const c10::impl::GenericDict dict = v.toGenericDict();
    c10::impl::GenericDict copy(dict.keyType(), dict.valueType());
    for (const auto& entry : dict) copy.insert(entry.key(), ToDouble(entry.value()));
    return copy;
  }
  return v;
}

// A module's floating parameters and buffers to float64, in place (a
// clone's). Module::to(kDouble) would convert integer buffers too
// (num_batches_tracked, position ids), which indexing then refuses.
void FloatingToDouble(torch::jit::Module& module) {
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    at::Tensor t = p.value;
    if (t.is_floating_point()) t.set_data(t.to(at::kDouble));
  }
  for (const auto& b : module.named_buffers(/*recurse=*/true)) {
    at::Tensor t = b.value;
    if (t.is_floating_point()) t.set_data(t.to(at::kDouble));
  }
}

// The leaves of native and actual outputs (same structure: checked first)
// beside the float64 reference's. Floating leaves (tensors and doubles) are
// judged against the reference; every other leaf (integer and bool tensors,
// ints, strings, None) must be identical.
struct Leaves {
  struct Floating {
    at::Tensor reference, native, actual;
    std::string where;
  };
  std::vector<Floating> floating;
  int64_t exact = 0;     // other leaves compared exactly
  std::string mismatch;  // the first failure, if any
  // The float64 run's output is not shaped like the module's: no reference.
  std::string unusable;
};

// "output['logits']", "output[3]": a dict entry by its key where it reads.
std::string KeyText(const c10::IValue& key) {
  if (key.isString()) return absl::StrCat("'", key.toStringRef(), "'");
  if (key.isInt()) return absl::StrCat(key.toInt());
  return DescribeIValue(key);
}

bool IsFloating(const c10::IValue& v) {
  return (v.isTensor() && v.toTensor().defined() && v.toTensor().is_floating_point()) || v.isDouble();
}

at::Tensor AsDouble(const c10::IValue& v) {
  return v.isDouble() ? at::scalar_tensor(v.toDouble(), at::kDouble) : v.toTensor().to(at::kDouble);
}

void Collect(const c10::IValue& r, const c10::IValue& n, const c10::IValue& a, const std::string& where,
             Leaves& out) {
  if (!out.mismatch.empty() || !out.unusable.empty()) return;
  if (IsFloating(n)) {
    if (!IsFloating(r)) {
      out.unusable = absl::StrCat(where, ": the float64 run's output has another structure");
      return;
    }
    out.floating.push_back({AsDouble(r), AsDouble(n), AsDouble(a), where});
    return;
  }
  auto sizes = [](const c10::IValue& v) -> int64_t {
    if (v.isTuple()) return static_cast<int64_t>(v.toTupleRef().elements().size());
    if (v.isList()) return static_cast<int64_t>(v.toList().size());
    if (v.isGenericDict()) return static_cast<int64_t>(v.toGenericDict().size());
    return -1;
  };
  if (sizes(n) >= 0) {
    if (sizes(r) != sizes(n) || r.tagKind() != n.tagKind()) {
      out.unusable = absl::StrCat(where, ": the float64 run's output has another structure");
      return;
    }
    if (n.isTuple()) {
      const auto& re = r.toTupleRef().elements();
      const auto& ne = n.toTupleRef().elements();
      const auto& ae = a.toTupleRef().elements();
      for (size_t i = 0; i < ne.size(); ++i) Collect(re[i], ne[i], ae[i], absl::StrCat(where, "[", i, "]"), out);
    } else if (n.isList()) {
      const c10::List<c10::IValue> rl = r.toList(), nl = n.toList(), al = a.toList();
      for (size_t i = 0; i < nl.size(); ++i) Collect(rl.get(i), nl.get(i), al.get(i), absl::StrCat(where, "[", i, "]"), out);
    } else {
      // Entries pair by key (a pass may build the dict in another order);
      // keys that cannot be looked up (tensors hash by identity) by position.
      const c10::impl::GenericDict rd = r.toGenericDict(), ad = a.toGenericDict();
      auto ri = rd.begin();
      auto ai = ad.begin();
      for (const auto& entry : n.toGenericDict()) {
        const bool by_key = entry.key().isString() || entry.key().isInt();
        const auto rf = by_key ? rd.find(entry.key()) : ri;
        const auto af = by_key ? ad.find(entry.key()) : ai;
        const std::string at = absl::StrCat(where, "[", KeyText(entry.key()), "]");
        if (rf == rd.end()) {
          out.unusable = absl::StrCat(at, ": not in the float64 run's output");
          return;
        }
        if (af == ad.end()) {
          out.mismatch = absl::StrCat(at, ": missing");
          return;
        }
        Collect(rf->value(), entry.value(), af->value(), at, out);
        ++ri;
        ++ai;
      }
    }
    return;
  }
  ++out.exact;
  const IValueComparison exact = CompareIValues(n, a, 0, 0);
  if (!exact.identical) {
    out.mismatch = absl::StrCat(exact.detail.empty() ? where : exact.detail, " (not floating: compared exactly)");
  }
}

// One floating leaf against its reference: where the reference and the
// float32 module are both finite, the error of `actual` must be at most
// kRoundingFactor times the module's own (or kRelativeFloor of the leaf's
// magnitude); elsewhere (NaN, infinities) `actual` must equal the float32
// module exactly, NaN matching NaN.
struct LeafCheck {
  bool passed = false;
  double error = 0, allowed = 0, native_error = 0, magnitude = 0;
  std::string failure;
  std::string unusable;  // the reference cannot judge this leaf
};

LeafCheck CheckLeaf(const Leaves::Floating& leaf) {
  LeafCheck c;
  if (leaf.reference.sizes() != leaf.actual.sizes()) {
    c.failure = absl::StrCat(leaf.where, ": float64 reference of another shape");
    return c;
  }
  if (leaf.actual.numel() == 0) {
    c.passed = true;
    return c;
  }
  const at::Tensor finite = leaf.reference.isfinite().logical_and(leaf.native.isfinite());
  const at::Tensor other = finite.logical_not();
  // Non-finite in the reference or the float32 module: the same value there.
  const at::Tensor same = (leaf.actual == leaf.native).logical_or(leaf.actual.isnan().logical_and(leaf.native.isnan()));
  if (!same.logical_or(finite).all().item<bool>()) {
    c.failure = absl::StrCat(leaf.where, ": differs from the float32 module where values are not finite");
    return c;
  }
  if (!leaf.actual.isfinite().logical_or(other).all().item<bool>()) {
    c.failure = absl::StrCat(leaf.where, ": non-finite values where the reference has none");
    return c;
  }
  if (!finite.any().item<bool>()) {
    c.passed = true;  // every element matched exactly above
    return c;
  }
  // Over the finite positions only (elsewhere the difference may be NaN).
  auto max_where_finite = [&](const at::Tensor& t) { return t.masked_fill(other, 0).abs().max().item<double>(); };
  c.magnitude = max_where_finite(leaf.reference);
  c.native_error = max_where_finite(leaf.native - leaf.reference);
  c.error = max_where_finite(leaf.actual - leaf.reference);
  const double scale = c.magnitude > 0 ? c.magnitude : 1;
  c.allowed = std::max(kRoundingFactor * c.native_error, kRelativeFloor * scale);
  c.passed = c.error <= c.allowed;
  // The float32 module itself far from the float64 run (randomness, code
  // that depends on the dtype): 16 times that error would let anything
  // pass, so this reference is no yardstick.
  if (c.native_error > kMaxNativeError * scale) {
    c.unusable = absl::StrFormat("%s: the float32 module differs from its float64 run by %.3g of the output's "
                                 "magnitude (more than rounding)",
                                 leaf.where, c.native_error / scale);
  }
  return c;
}

}  // namespace

absl::StatusOr<c10::IValue> RunInDouble(const torch::jit::Module& module, const std::string& method,
                                        const std::vector<c10::IValue>& inputs) {
  try {
    torch::jit::Module copy = module.clone();
    FloatingToDouble(copy);
    std::vector<c10::IValue> args;
    for (const c10::IValue& v : DeepCopy(inputs)) args.push_back(ToDouble(v));
    return copy.get_method(method)(std::move(args));
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, "the float64 reference run", e);
  }
}

absl::StatusOr<Verification> VerifyAgainstDouble(const c10::IValue& reference64, const c10::IValue& native,
                                                 const c10::IValue& actual, std::string reference) {
  Verification v;
  v.reference = std::move(reference);
  const IValueComparison exact = CompareIValues(native, actual, 0, 0);
  v.identical = exact.identical;
  v.max_abs_error = exact.max_abs_error;
  v.max_rel_error = exact.max_rel_error;
  if (v.identical) return v;
  // Same structure, shapes and dtypes as the native output (any tolerance).
  const IValueComparison shape = CompareIValues(native, actual, 1e300, 1e300);
  if (!shape.within_tolerance) {
    v.detail = shape.detail;
    return v;
  }
  Leaves leaves;
  Collect(reference64, native, actual, "output", leaves);
  if (!leaves.unusable.empty()) return absl::FailedPreconditionError(leaves.unusable);
  if (!leaves.mismatch.empty()) {
    v.detail = leaves.mismatch;
    return v;
  }
  // Each floating leaf on its own scale: a small output beside large logits
  // is held to its own rounding error, not theirs.
  LeafCheck worst;
  double worst_ratio = -1;
  int64_t compared = leaves.exact;
  for (const Leaves::Floating& leaf : leaves.floating) {
    const LeafCheck c = CheckLeaf(leaf);
    if (!c.unusable.empty()) return absl::FailedPreconditionError(c.unusable);
    if (!c.failure.empty()) {
      v.detail = c.failure;
      return v;
    }
    ++compared;
    const double ratio = c.allowed > 0 ? c.error / c.allowed : 0;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = c;
      worst.failure = leaf.where;  // where the worst leaf is
    }
  }
  v.compared = compared;
  v.criterion = Verification::Criterion::kFloat64Scale;
  v.within_tolerance = compared > 0 && worst_ratio <= 1;
  const double scale = worst.magnitude > 0 ? worst.magnitude : 1;
  v.rtol = worst.allowed / scale;  // the relative bound that applied to the worst leaf
  v.atol = 0;
  v.detail = absl::StrFormat(
      "against a float64 run of the unmodified module, each floating output on its own scale: worst %s, error "
      "%.3g (%.3g of its magnitude %.3g), allowed %.3g (%g x the float32 module's own error %.3g)",
      worst.failure, worst.error, worst.error / scale, worst.magnitude, worst.allowed, kRoundingFactor,
      worst.native_error);
  if (leaves.exact > 0) absl::StrAppend(&v.detail, "; ", leaves.exact, " other outputs identical");
  return v;
}

Verification VerifyAfterPasses(const torch::jit::Module& module, const std::string& method,
                               const std::vector<c10::IValue>& inputs, const c10::IValue& native,
                               const c10::IValue& actual, double rtol, double atol, std::string reference) {
  absl::StatusOr<c10::IValue> reference64 = RunInDouble(module, method, inputs);
  absl::Status why = reference64.status();
  if (reference64.ok()) {
    absl::StatusOr<Verification> checked = VerifyAgainstDouble(*reference64, native, actual, reference);
    if (checked.ok()) return *std::move(checked);
    why = checked.status();
  }
  // No float64 yardstick: within rtol/atol of the float32 module, saying why.
  Verification v = Verify(native, actual, rtol, atol, std::move(reference));
  if (!v.identical) {
    v.detail = absl::StrCat(v.detail.empty() ? "" : absl::StrCat(v.detail, "; "), "within rtol/atol (no float64 "
                            "reference: ", why.message(), ")");
  }
  return v;
}

Verification CheckOutput(const c10::IValue& expected, const c10::IValue& actual, const OutputCheck& check,
                         const torch::jit::Module* module, const std::string& method,
                         const std::vector<c10::IValue>& inputs) {
  if (!check.transformed) return Verify(expected, actual, 0, 0, check.reference);
  if (check.float64_reference && module != nullptr) {
    return VerifyAfterPasses(*module, method, inputs, expected, actual, check.rtol, check.atol, check.reference);
  }
  return Verify(expected, actual, check.rtol, check.atol, check.reference);
}

}  // namespace graphprof
