#include "ir/ivalue_util.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include <ATen/core/grad_mode.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"

namespace graphprof {
namespace {

// Walks two IValue trees together, recording the first difference and the
// largest errors between floating leaves.
class Comparer {
 public:
  Comparer(double rtol, double atol) : rtol_(rtol), atol_(atol) {}

  void Compare(const c10::IValue& a, const c10::IValue& b, const std::string& where) {
    if (a.tagKind() != b.tagKind()) return Mismatch(absl::StrCat(where, ": ", a.tagKind(), " vs ", b.tagKind()));
    if (a.isTensor()) return CompareTensors(a, b, where);
    if (a.isTuple() || a.isList()) {
      std::vector<c10::IValue> xs, ys;
      if (a.isTuple()) {
        for (const auto& v : a.toTupleRef().elements()) xs.push_back(v);
        for (const auto& v : b.toTupleRef().elements()) ys.push_back(v);
      } else {
        for (const auto& v : a.toListRef()) xs.push_back(v);
        for (const auto& v : b.toListRef()) ys.push_back(v);
      }
      if (xs.size() != ys.size()) return Mismatch(absl::StrCat(where, ": ", xs.size(), " vs ", ys.size(), " elements"));
      for (size_t i = 0; i < xs.size(); ++i) Compare(xs[i], ys[i], absl::StrCat(where, "[", i, "]"));
      return;
    }
    if (a.isGenericDict()) {
      const c10::Dict<c10::IValue, c10::IValue> x = a.toGenericDict();
      const c10::Dict<c10::IValue, c10::IValue> y = b.toGenericDict();
      if (x.size() != y.size()) return Mismatch(absl::StrCat(where, ": ", x.size(), " vs ", y.size(), " entries"));
      for (const auto& entry : x) {
        auto it = y.find(entry.key());
        if (it == y.end()) return Mismatch(absl::StrCat(where, ": key missing"));
        Compare(entry.value(), it->value(), absl::StrCat(where, "{", DescribeIValue(entry.key()), "}"));
      }
      return;
    }
    if (a.isObject()) {
      if (a.toObjectRef().type() != b.toObjectRef().type()) return Mismatch(absl::StrCat(where, ": object types differ"));
      const auto& xs = a.toObjectRef().slots();
      const auto& ys = b.toObjectRef().slots();
      if (xs.size() != ys.size()) return Mismatch(absl::StrCat(where, ": object slots differ"));
      for (size_t i = 0; i < xs.size(); ++i) Compare(xs[i], ys[i], absl::StrCat(where, ".", i));
      return;
    }
    if (a.isDouble()) {
      const double x = a.toDouble(), y = b.toDouble();
      if (x == y || (std::isnan(x) && std::isnan(y))) return;
      Differ(absl::StrCat(where, ": ", x, " vs ", y));
      Errors(std::fabs(x - y), std::fabs(y), std::isnan(x) != std::isnan(y));
      return;
    }
    if (!(a == b)) Mismatch(absl::StrCat(where, ": values differ"));
  }

  IValueComparison result() const { return result_; }

 private:
  void CompareTensors(const c10::IValue& a, const c10::IValue& b, const std::string& where) {
    const at::Tensor& x = a.toTensor();
    const at::Tensor& y = b.toTensor();
    if (x.defined() != y.defined()) return Mismatch(absl::StrCat(where, ": undefined tensor"));
    if (!x.defined()) return;
    if (x.scalar_type() != y.scalar_type()) {
      return Mismatch(absl::StrCat(where, ": dtype ", DescribeIValue(a), " vs ", DescribeIValue(b)));
    }
    if (x.sizes() != y.sizes()) {
      return Mismatch(absl::StrCat(where, ": shape ", DescribeIValue(a), " vs ", DescribeIValue(b)));
    }
    if (x.device() != y.device()) return Mismatch(absl::StrCat(where, ": device ", x.device().str(), " vs ", y.device().str()));
    if (at::equal(x, y)) return;
    // Compared as doubles (exact for every dtype but 64-bit integers beyond
    // 2^53). NaN equals NaN at the same positions; equal infinities are equal.
    const at::Tensor xd = x.is_complex() ? at::view_as_real(x).to(at::kDouble) : x.to(at::kDouble);
    const at::Tensor yd = y.is_complex() ? at::view_as_real(y).to(at::kDouble) : y.to(at::kDouble);
    const at::Tensor x_nan = xd.isnan();
    const at::Tensor y_nan = yd.isnan();
    const bool unmatched_nan = !at::equal(x_nan, y_nan);
    const at::Tensor same = (xd == yd).logical_or(x_nan.logical_and(y_nan));
    if (!unmatched_nan && same.all().item<bool>()) return;  // only NaNs at the same places
    Differ(absl::StrCat(where, unmatched_nan ? ": NaN in one where the other has a number" : ": values differ"));
    // A NaN against a number is an infinite error, not none.
    const at::Tensor diff = (xd - yd).abs().masked_fill(same, 0).nan_to_num(INFINITY, INFINITY, INFINITY);
    const at::Tensor scale = yd.abs().nan_to_num(0, INFINITY, INFINITY);
    const double max_abs = diff.numel() ? diff.max().item<double>() : 0;
    const at::Tensor rel = diff / scale.clamp_min(1e-300);
    const double max_rel = rel.numel() ? rel.masked_fill(diff == 0, 0).max().item<double>() : 0;
    const bool within = (diff <= atol_ + rtol_ * scale).logical_or(same).all().item<bool>();
    result_.max_abs_error = std::max(result_.max_abs_error, max_abs);
    result_.max_rel_error = std::max(result_.max_rel_error, max_rel);
    if (!within || unmatched_nan) result_.within_tolerance = false;
  }

  // A structural difference: neither identical nor within tolerance.
  void Mismatch(std::string detail) {
    Differ(std::move(detail));
    result_.within_tolerance = false;
  }
  // Values differ (tolerance decides separately).
  void Differ(std::string detail) {
    if (result_.identical) result_.detail = std::move(detail);
    result_.identical = false;
  }
  void Errors(double abs_error, double scale, bool unmatched_nan) {
    result_.max_abs_error = std::max(result_.max_abs_error, abs_error);
    if (scale > 0) result_.max_rel_error = std::max(result_.max_rel_error, abs_error / scale);
    if (unmatched_nan || !(abs_error <= atol_ + rtol_ * scale)) result_.within_tolerance = false;
  }

  double rtol_, atol_;
  IValueComparison result_;
};

void CollectStorages(const c10::IValue& value, std::unordered_set<const void*>& seen,
                     int64_t& bytes) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined() || !t.has_storage()) return;
    const c10::StorageImpl* storage = t.storage().unsafeGetStorageImpl();
    if (seen.insert(storage).second) bytes += static_cast<int64_t>(t.storage().nbytes());
  } else if (value.isTuple()) {
    for (const auto& v : value.toTupleRef().elements()) CollectStorages(v, seen, bytes);
  } else if (value.isList()) {
    for (const auto& v : value.toListRef()) CollectStorages(v, seen, bytes);
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) CollectStorages(entry.value(), seen, bytes);
  } else if (value.isObject()) {
    for (const auto& v : value.toObjectRef().slots()) CollectStorages(v, seen, bytes);
  }
}

}  // namespace

c10::IValue DeepCopy(const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined()) return value;
    // A leaf like the original (no CloneBackward), requiring grad as it does.
    at::NoGradGuard no_grad;
    at::Tensor copy = t.clone(at::MemoryFormat::Preserve);
    copy.set_requires_grad(t.requires_grad());
    return copy;
  }
  if (value.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const c10::IValue& e : value.toTupleRef().elements()) elements.push_back(DeepCopy(e));
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  if (value.isList()) {
    c10::List<c10::IValue> list = value.toList();
    c10::impl::GenericList copy(list.elementType());
    copy.reserve(list.size());
    for (const c10::IValue& e : list) copy.push_back(DeepCopy(e));
    return copy;
  }
  if (value.isGenericDict()) {
    c10::Dict<c10::IValue, c10::IValue> dict = value.toGenericDict();
    c10::impl::GenericDict copy(dict.keyType(), dict.valueType());
    for (const auto& entry : dict) copy.insert(entry.key(), DeepCopy(entry.value()));
    return copy;
  }
  return value;
}

std::vector<c10::IValue> DeepCopy(const std::vector<c10::IValue>& values) {
  std::vector<c10::IValue> copies;
  copies.reserve(values.size());
  for (const c10::IValue& v : values) copies.push_back(DeepCopy(v));
  return copies;
}

absl::StatusOr<std::vector<c10::IValue>> CopyInputs(const std::vector<c10::IValue>& values) {
  try {
    return DeepCopy(values);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("the inputs cannot be copied for a run: ", ExceptionMessage(e)));
  }
}

IValueComparison CompareIValues(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol) {
  Comparer comparer(rtol, atol);
  comparer.Compare(expected, actual, "output");
  IValueComparison result = comparer.result();
  if (result.identical) result.within_tolerance = true;
  return result;
}

bool IdenticalIValues(const c10::IValue& a, const c10::IValue& b, std::string* why) {
  IValueComparison result = CompareIValues(a, b, 0, 0);
  if (!result.identical && why != nullptr) *why = result.detail;
  return result.identical;
}

std::string ShortDtypeName(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return "f32";
    case c10::ScalarType::Double: return "f64";
    case c10::ScalarType::Half: return "f16";
    case c10::ScalarType::BFloat16: return "bf16";
    case c10::ScalarType::Long: return "i64";
    case c10::ScalarType::Int: return "i32";
    case c10::ScalarType::Short: return "i16";
    case c10::ScalarType::Char: return "i8";
    case c10::ScalarType::Byte: return "u8";
    case c10::ScalarType::Bool: return "bool";
    case c10::ScalarType::ComplexFloat: return "c64";
    case c10::ScalarType::ComplexDouble: return "c128";
    default: return c10::toString(type);
  }
}

void AppendIValueDescription(std::string* out, const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined()) {
      out->append("undefined");
      return;
    }
    absl::StrAppend(out, ShortDtypeName(t.scalar_type()), "[");
    bool first = true;
    for (int64_t size : t.sizes()) {
      if (!first) out->push_back(',');
      absl::StrAppend(out, size);
      first = false;
    }
    out->push_back(']');
    return;
  }
  if (value.isTuple()) {
    out->push_back('(');
    bool first = true;
    for (const auto& v : value.toTupleRef().elements()) {
      if (!first) out->append(", ");
      AppendIValueDescription(out, v);
      first = false;
    }
    out->push_back(')');
    return;
  }
  if (value.isList()) {
    c10::ArrayRef<c10::IValue> items = value.toListRef();
    if (items.empty()) {
      out->append("[]");
      return;
    }
    out->push_back('[');
    AppendIValueDescription(out, items[0]);
    absl::StrAppend(out, " x", items.size(), "]");
    return;
  }
  if (value.isInt()) return out->append("int"), void();
  if (value.isDouble()) return out->append("float"), void();
  if (value.isBool()) return out->append("bool"), void();
  if (value.isString()) return out->append("str"), void();
  if (value.isNone()) return out->append("None"), void();
  if (value.isGenericDict()) return absl::StrAppend(out, "dict x", value.toGenericDict().size());
  if (value.isObject()) {
    auto type = value.toObjectRef().type();
    out->append(type->name() ? type->name()->name() : "object");
    return;
  }
  out->append(value.tagKind());
}

std::string DescribeIValue(const c10::IValue& value) {
  std::string out;
  AppendIValueDescription(&out, value);
  return out;
}

int64_t IValueBytes(const c10::IValue& value) {
  // One tensor (most values): no set of storages needed.
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    return t.defined() && t.has_storage() ? static_cast<int64_t>(t.storage().nbytes()) : 0;
  }
  return IValueBytes(absl::MakeConstSpan(&value, 1));
}

int64_t IValueBytes(absl::Span<const c10::IValue> values) {
  std::unordered_set<const void*> seen;
  int64_t bytes = 0;
  for (const c10::IValue& value : values) CollectStorages(value, seen, bytes);
  return bytes;
}

absl::StatusOr<c10::IValue> ConvertToType(const c10::IValue& value, const c10::TypePtr& type, const std::string& what) {
  auto mismatch = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": must be ", type->annotation_str(), " but got ", DescribeIValue(value)));
  };
  switch (type->kind()) {
    case c10::TypeKind::AnyType:
      return value;
    case c10::TypeKind::OptionalType:
      if (value.isNone()) return value;
      return ConvertToType(value, type->expectRef<c10::OptionalType>().getElementType(), what);
    case c10::TypeKind::FloatType:
      if (value.isInt()) return c10::IValue(static_cast<double>(value.toInt()));
      return value.isDouble() ? absl::StatusOr<c10::IValue>(value) : mismatch();
    case c10::TypeKind::ListType: {
      if (!value.isList() && !value.isTuple()) return mismatch();
      const c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
      c10::impl::GenericList list(element);
      std::vector<c10::IValue> items;
      if (value.isList()) {
        for (const c10::IValue& item : value.toListRef()) items.push_back(item);
      } else {
        for (const c10::IValue& item : value.toTupleRef().elements()) items.push_back(item);
      }
      for (size_t i = 0; i < items.size(); ++i) {
        absl::StatusOr<c10::IValue> item = ConvertToType(items[i], element, absl::StrCat(what, "[", i, "]"));
        if (!item.ok()) return item.status();
        list.push_back(*std::move(item));
      }
      return c10::IValue(std::move(list));
    }
    case c10::TypeKind::DictType: {
      if (!value.isGenericDict()) return mismatch();
      const auto& dict_type = type->expectRef<c10::DictType>();
      c10::impl::GenericDict dict(dict_type.getKeyType(), dict_type.getValueType());
      for (const auto& entry : value.toGenericDict()) {
        const std::string key_text = entry.key().isString() ? absl::StrCat("'", entry.key().toStringRef(), "'")
                                                            : DescribeIValue(entry.key());
        absl::StatusOr<c10::IValue> key =
            ConvertToType(entry.key(), dict_type.getKeyType(), absl::StrCat(what, " key ", key_text));
        if (!key.ok()) return key.status();
        absl::StatusOr<c10::IValue> item =
            ConvertToType(entry.value(), dict_type.getValueType(), absl::StrCat(what, "[", key_text, "]"));
        if (!item.ok()) return item.status();
        dict.insert_or_assign(*std::move(key), *std::move(item));
      }
      return c10::IValue(std::move(dict));
    }
    case c10::TypeKind::TupleType: {
      const auto& tuple_type = type->expectRef<c10::TupleType>();
      std::vector<c10::IValue> items;
      if (value.isTuple()) {
        for (const c10::IValue& item : value.toTupleRef().elements()) items.push_back(item);
      } else if (value.isList()) {
        for (const c10::IValue& item : value.toListRef()) items.push_back(item);
      } else {
        return mismatch();
      }
      if (items.size() != tuple_type.elements().size()) return mismatch();
      std::vector<c10::IValue> converted;
      for (size_t i = 0; i < items.size(); ++i) {
        absl::StatusOr<c10::IValue> item = ConvertToType(items[i], tuple_type.elements()[i], absl::StrCat(what, "[", i, "]"));
        if (!item.ok()) return item.status();
        converted.push_back(*std::move(item));
      }
      return tuple_type.schema() ? c10::IValue(c10::ivalue::Tuple::createNamed(std::move(converted), type))
                                 : c10::IValue(c10::ivalue::Tuple::create(std::move(converted)));
    }
    default:
      return value.type()->isSubtypeOf(*type) ? absl::StatusOr<c10::IValue>(value) : mismatch();
  }
}

}  // namespace graphprof
