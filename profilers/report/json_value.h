// A parsed report's values for the JSON reader (report_json_reader.cc):
// simdjson DOM elements with nlohmann-like accessors, each checking what it
// reads. Private to //profilers/report:report_json.
//
// Every access that finds a key missing, a value of the wrong type, or an
// integer that does not fit its field throws Malformed with a sentence for
// people; ReportFromJson turns it into InvalidArgument "malformed report
// JSON: ...".
#ifndef GRAPHPROF_PROFILERS_REPORT_JSON_VALUE_H_
#define GRAPHPROF_PROFILERS_REPORT_JSON_VALUE_H_

#include <simdjson.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace graphprof::json_internal {

namespace dom = simdjson::dom;

// "an array", "an integer", ...: a value's type in messages.
const char* TypeName(dom::element_type type);

// What a failed access throws: the report is malformed, and how.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};


// Throws Malformed when an object anywhere in `e` has a key twice (JSON
// parsers differ on which value wins; a report must mean one thing).
void RefuseDuplicateKeys(dom::element e);

// A value of the parsed document with nlohmann-like accessors (at, value,
// contains, get<T>, range-for over arrays), each checking what it reads.
// `key_` names the value in messages; it points into the document or a
// string literal, both of which outlive the value.
class Json {
 public:
  Json(dom::element e, std::string_view key) : e_(e), key_(key) {}

  bool is_null() const { return e_.type() == dom::element_type::NULL_VALUE; }
  bool is_object() const { return e_.type() == dom::element_type::OBJECT; }
  bool is_number() const {
    const dom::element_type t = e_.type();
    return t == dom::element_type::INT64 || t == dom::element_type::UINT64 || t == dom::element_type::DOUBLE;
  }

  bool contains(std::string_view key) const {
    if (!is_object()) return false;
    dom::element child;
    return e_.get_object().value_unsafe().at_key(key).get(child) == simdjson::SUCCESS;
  }
  Json at(std::string_view key) const {
    dom::element child;
    if (Object().at_key(key).get(child) != simdjson::SUCCESS) throw Malformed(absl::StrCat("'", std::string(key), "' is missing"));
    return Json(child, key);
  }
  Json at(const char* key) const { return at(std::string_view(key)); }
  Json at(const std::string& key) const { return at(std::string_view(key)); }
  Json at(std::string&& key) const = delete;  // key_ would outlive the string
  Json at(int index) const {
    const dom::array array = Array();
    dom::element child;
    if (index < 0 || array.at(static_cast<size_t>(index)).get(child) != simdjson::SUCCESS) {
      throw Malformed(absl::StrCat(Name(), " has no element ", index));
    }
    return Json(child, key_);
  }
  size_t size() const {
    if (e_.type() == dom::element_type::ARRAY) return e_.get_array().value_unsafe().size();
    if (is_object()) return e_.get_object().value_unsafe().size();
    throw Malformed(absl::StrCat(Name(), ": expected an array or object, got ", TypeName(e_.type())));
  }

  template <typename T>
  T get() const;

  // The key's value, or `fallback` when the key is missing (a present value
  // of another type is malformed, null included).
  template <typename T>
  T value(std::string_view key, T fallback) const {
    dom::element child;
    if (Object().at_key(key).get(child) != simdjson::SUCCESS) return fallback;
    return Json(child, key).get<T>();
  }
  std::string value(std::string_view key, const char* fallback) const {
    return value<std::string>(key, std::string(fallback));
  }

  // Range-for over an array's elements.
  class Iterator {
   public:
    Iterator(dom::array::iterator it, std::string_view key) : it_(it), key_(key) {}
    Json operator*() const { return Json(*it_, key_); }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return it_ != other.it_; }

   private:
    dom::array::iterator it_;
    std::string_view key_;
  };
  Iterator begin() const { return Iterator(Array().begin(), key_); }
  Iterator end() const { return Iterator(Array().end(), key_); }

  // An object's members in document order.
  std::vector<std::pair<std::string_view, Json>> items() const {
    std::vector<std::pair<std::string_view, Json>> out;
    for (dom::key_value_pair kv : Object()) out.emplace_back(kv.key, Json(kv.value, kv.key));
    return out;
  }

 private:
  std::string Name() const { return key_.empty() ? std::string("the report") : absl::StrCat("'", std::string(key_), "'"); }
  [[noreturn]] void WrongType(const char* expected) const {
    throw Malformed(absl::StrCat(Name(), ": expected ", expected, ", got ", TypeName(e_.type())));
  }
  dom::object Object() const {
    if (!is_object()) WrongType("an object");
    return e_.get_object().value_unsafe();
  }
  dom::array Array() const {
    if (e_.type() != dom::element_type::ARRAY) WrongType("an array");
    return e_.get_array().value_unsafe();
  }
  template <typename T>
  T Integer() const;

  friend class Members;
  dom::element e_;
  std::string_view key_;
};

// The types get<T> reads (defined in json_value.cc).
template <>
int Json::get<int>() const;
template <>
int64_t Json::get<int64_t>() const;
template <>
double Json::get<double>() const;
template <>
bool Json::get<bool>() const;
template <>
std::string Json::get<std::string>() const;
template <>
std::vector<int64_t> Json::get<std::vector<int64_t>>() const;
template <>
std::vector<std::string> Json::get<std::vector<std::string>>() const;

// An object's members for many lookups. at_key scans the object from its
// start on every lookup; a node has about 30 members and NodeFromJson reads
// ~20 of them in the order the writer wrote them, so this scans on from
// where the last lookup ended (one comparison per lookup instead of ~15: a
// fifth of a 64-report merge's reading was spent in at_key). Same answers
// as Json's at / contains / value.
class Members {
 public:
  explicit Members(const Json& j) {
    const dom::object object = j.Object();
    members_.reserve(object.size());
    for (dom::key_value_pair kv : object) members_.push_back(Member{kv.key, kv.value});
  }
  bool contains(std::string_view key) const { return Find(key) != nullptr; }
  Json at(std::string_view key) const {
    const Member* m = Find(key);
    if (m == nullptr) throw Malformed(absl::StrCat("'", std::string(key), "' is missing"));
    return Json(m->value, m->key);
  }
  template <typename T>
  T value(std::string_view key, T fallback) const {
    const Member* m = Find(key);
    return m == nullptr ? fallback : Json(m->value, m->key).get<T>();
  }
  std::string value(std::string_view key, const char* fallback) const {
    return value<std::string>(key, std::string(fallback));
  }

 private:
  struct Member {
    std::string_view key;
    dom::element value;
  };
  // The first member named `key` from the cursor on (wrapping around); a
  // document with a duplicate key is not one graphprof wrote.
  const Member* Find(std::string_view key) const {
    const size_t n = members_.size();
    for (size_t i = 0; i < n; ++i) {
      const size_t at = next_ + i < n ? next_ + i : next_ + i - n;
      if (members_[at].key == key) {
        next_ = at + 1 == n ? 0 : at + 1;
        return &members_[at];
      }
    }
    return nullptr;
  }

  // Inline up to 40 members (a node has about 30): no allocation per object.
  absl::InlinedVector<Member, 40> members_;
  mutable size_t next_ = 0;
};

}  // namespace graphprof::json_internal

#endif  // GRAPHPROF_PROFILERS_REPORT_JSON_VALUE_H_
