// Json's typed reads (json_value.h): integers exactly as their type holds
// them, numbers, strings, booleans and arrays of them.
#include "profilers/report/json_value.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graphprof::json_internal {

void RefuseDuplicateKeys(dom::element e) {
  switch (e.type()) {
    case dom::element_type::OBJECT: {
      absl::InlinedVector<std::string_view, 32> keys;
      // The object by value: a range-for over value_unsafe() of the
      // temporary simdjson_result would iterate a destroyed object.
      const dom::object object = e.get_object().value_unsafe();
      for (dom::key_value_pair kv : object) {
        keys.push_back(kv.key);
        RefuseDuplicateKeys(kv.value);
      }
      std::sort(keys.begin(), keys.end());
      const auto twice = std::adjacent_find(keys.begin(), keys.end());
      if (twice != keys.end()) throw Malformed(absl::StrCat("key '", std::string(*twice), "' appears twice in one object"));
      return;
    }
    case dom::element_type::ARRAY: {
      const dom::array array = e.get_array().value_unsafe();
      for (dom::element child : array) {
        // Arrays of numbers (the per-run series) are most of a report: no
        // object inside them.
        const dom::element_type t = child.type();
        if (t == dom::element_type::OBJECT || t == dom::element_type::ARRAY) RefuseDuplicateKeys(child);
      }
      return;
    }
    default:
      return;
  }
}

const char* TypeName(dom::element_type type) {
  switch (type) {
    case dom::element_type::ARRAY: return "an array";
    case dom::element_type::OBJECT: return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64: return "an integer";
    case dom::element_type::DOUBLE: return "a number";
    case dom::element_type::STRING: return "a string";
    case dom::element_type::BOOL: return "a boolean";
    case dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

// Integers: exactly the values the type holds. A float converts when it is
// inside (min - 1, max + 1) (2.0 runs is 2 runs, as before); NaN never.
template <typename T>
T Json::Integer() const {
  using Limits = std::numeric_limits<T>;
  bool fits = true;
  std::string text;
  T result = 0;
  switch (e_.type()) {
    case dom::element_type::INT64: {
      const int64_t v = e_.get_int64().value_unsafe();
      fits = v >= 0 ? static_cast<uint64_t>(v) <= static_cast<uint64_t>(Limits::max())
                    : Limits::is_signed && v >= static_cast<int64_t>(Limits::min());
      text = absl::StrCat(v);
      result = static_cast<T>(v);
      break;
    }
    case dom::element_type::UINT64: {
      const uint64_t v = e_.get_uint64().value_unsafe();
      fits = v <= static_cast<uint64_t>(Limits::max());
      text = absl::StrCat(v);
      result = static_cast<T>(v);
      break;
    }
    case dom::element_type::DOUBLE: {
      const double v = e_.get_double().value_unsafe();
      const double end = std::ldexp(1.0, Limits::digits);  // max + 1
      fits = v < end && (Limits::is_signed ? v >= -end : v > -1.0);
      text = absl::StrCat(v);
      if (fits) result = static_cast<T>(v);
      break;
    }
    default:
      WrongType("an integer");
  }
  if (!fits) {
    throw Malformed(absl::StrCat("number ", text, " does not fit a ", sizeof(T) * 8, "-bit integer (", Name(), ")"));
  }
  return result;
}

template <>
int Json::get<int>() const {
  return Integer<int>();
}
template <>
int64_t Json::get<int64_t>() const {
  return Integer<int64_t>();
}
template <>
double Json::get<double>() const {
  switch (e_.type()) {
    case dom::element_type::INT64: return static_cast<double>(e_.get_int64().value_unsafe());
    case dom::element_type::UINT64: return static_cast<double>(e_.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE: return e_.get_double().value_unsafe();
    default: WrongType("a number");
  }
}
template <>
bool Json::get<bool>() const {
  if (e_.type() != dom::element_type::BOOL) WrongType("a boolean");
  return e_.get_bool().value_unsafe();
}
template <>
std::string Json::get<std::string>() const {
  if (e_.type() != dom::element_type::STRING) WrongType("a string");
  return std::string(e_.get_string().value_unsafe());
}
template <>
std::vector<int64_t> Json::get<std::vector<int64_t>>() const {
  const dom::array array = Array();
  std::vector<int64_t> out;
  out.reserve(array.size());
  for (dom::element e : array) out.push_back(Json(e, key_).get<int64_t>());
  return out;
}
template <>
std::vector<std::string> Json::get<std::vector<std::string>>() const {
  std::vector<std::string> out;
  for (dom::element e : Array()) out.push_back(Json(e, key_).get<std::string>());
  return out;
}

}  // namespace graphprof::json_internal
