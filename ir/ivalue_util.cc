#include "ir/ivalue_util.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphprof {
namespace {

bool Fail(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
  return false;
}

bool IdenticalAt(const c10::IValue& a, const c10::IValue& b, const std::string& path,
                 std::string* why) {
  const std::string where = path.empty() ? "output" : path;
  if (a.tagKind() != b.tagKind()) {
    return Fail(why, absl::StrCat(where, ": ", a.tagKind(), " vs ", b.tagKind()));
  }
  if (a.isTensor()) {
    const at::Tensor& x = a.toTensor();
    const at::Tensor& y = b.toTensor();
    if (x.defined() != y.defined()) return Fail(why, absl::StrCat(where, ": undefined tensor"));
    if (!x.defined()) return true;
    if (x.scalar_type() != y.scalar_type()) {
      return Fail(why, absl::StrCat(where, ": dtype ", DescribeIValue(a), " vs ", DescribeIValue(b)));
    }
    if (x.sizes() != y.sizes()) {
      return Fail(why, absl::StrCat(where, ": shape ", DescribeIValue(a), " vs ", DescribeIValue(b)));
    }
    if (!at::equal(x, y)) return Fail(why, absl::StrCat(where, ": values differ"));
    return true;
  }
  if (a.isTuple() || a.isList()) {
    std::vector<c10::IValue> xs, ys;
    if (a.isTuple()) {
      for (const auto& v : a.toTupleRef().elements()) xs.push_back(v);
      for (const auto& v : b.toTupleRef().elements()) ys.push_back(v);
    } else {
      for (const auto& v : a.toListRef()) xs.push_back(v);
      for (const auto& v : b.toListRef()) ys.push_back(v);
    }
    if (xs.size() != ys.size()) {
      return Fail(why, absl::StrCat(where, ": ", xs.size(), " vs ", ys.size(), " elements"));
    }
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!IdenticalAt(xs[i], ys[i], absl::StrCat(where, "[", i, "]"), why)) return false;
    }
    return true;
  }
  if (a.isGenericDict()) {
    const c10::Dict<c10::IValue, c10::IValue> x = a.toGenericDict();
    const c10::Dict<c10::IValue, c10::IValue> y = b.toGenericDict();
    if (x.size() != y.size()) {
      return Fail(why, absl::StrCat(where, ": ", x.size(), " vs ", y.size(), " entries"));
    }
    for (const auto& entry : x) {
      auto it = y.find(entry.key());
      if (it == y.end()) return Fail(why, absl::StrCat(where, ": key missing"));
      if (!IdenticalAt(entry.value(), it->value(), absl::StrCat(where, "{", DescribeIValue(entry.key()), "}"), why)) {
        return false;
      }
    }
    return true;
  }
  if (a.isObject()) {
    if (a.toObjectRef().type() != b.toObjectRef().type()) return Fail(why, absl::StrCat(where, ": object types differ"));
    const auto& xs = a.toObjectRef().slots();
    const auto& ys = b.toObjectRef().slots();
    if (xs.size() != ys.size()) return Fail(why, absl::StrCat(where, ": object slots differ"));
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!IdenticalAt(xs[i], ys[i], absl::StrCat(where, ".", i), why)) return false;
    }
    return true;
  }
  if (a.isDouble()) {
    // Bitwise-equal doubles, with NaN equal to NaN.
    const double x = a.toDouble(), y = b.toDouble();
    if (x == y || (x != x && y != y)) return true;
    return Fail(why, absl::StrCat(where, ": ", x, " vs ", y));
  }
  if (a == b) return true;
  return Fail(why, absl::StrCat(where, ": values differ"));
}

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

bool IdenticalIValues(const c10::IValue& a, const c10::IValue& b, std::string* why) {
  return IdenticalAt(a, b, "", why);
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

std::string DescribeIValue(const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (!t.defined()) return "undefined";
    return absl::StrCat(ShortDtypeName(t.scalar_type()), "[", absl::StrJoin(t.sizes(), ","), "]");
  }
  if (value.isTuple()) {
    std::vector<std::string> parts;
    for (const auto& v : value.toTupleRef().elements()) parts.push_back(DescribeIValue(v));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  if (value.isList()) {
    c10::ArrayRef<c10::IValue> items = value.toListRef();
    if (items.empty()) return "[]";
    return absl::StrCat("[", DescribeIValue(items[0]), " x", items.size(), "]");
  }
  if (value.isInt()) return "int";
  if (value.isDouble()) return "float";
  if (value.isBool()) return "bool";
  if (value.isString()) return "str";
  if (value.isNone()) return "None";
  if (value.isGenericDict()) return absl::StrCat("dict x", value.toGenericDict().size());
  if (value.isObject()) {
    auto type = value.toObjectRef().type();
    return type->name() ? type->name()->name() : "object";
  }
  return value.tagKind();
}

int64_t IValueBytes(const c10::IValue& value) { return IValueBytes(absl::MakeConstSpan(&value, 1)); }

int64_t IValueBytes(absl::Span<const c10::IValue> values) {
  std::unordered_set<const void*> seen;
  int64_t bytes = 0;
  for (const c10::IValue& value : values) CollectStorages(value, seen, bytes);
  return bytes;
}

}  // namespace graphprof
