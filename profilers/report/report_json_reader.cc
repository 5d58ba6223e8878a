// ReportFromJson: reading a report back (the writer is report_json.cc).
//
// Reports are parsed with simdjson's DOM (several hundred MB/s and more,
// against nlohmann's tens: merging 64 reports of a 10k-node graph reads 640
// MB) into a tape the reader walks once. Every access goes through Json
// below, which throws Malformed with a sentence for people when a key is
// missing or a value has the wrong type or does not fit its field; ReportFromJson
// turns that into InvalidArgument "malformed report JSON: ...". Integers
// that the field's type cannot hold are refused (1e300 into an int64 is
// undefined behaviour, 4294967298 runs would wrap), and after reading, the
// values renderers add up must stay below 2^60 (CheckMagnitudes).
#include <simdjson.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "profilers/report/report_json.h"

namespace graphprof {
namespace {

namespace dom = simdjson::dom;

// What a failed access throws: the report is malformed, and how.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

  std::vector<Member> members_;
  mutable size_t next_ = 0;
};

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

// --- Reading. ---

int64_t OptionalCount(const Json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? j.at(key).get<int64_t>() : -1;
}

NodeMemory MemoryFromJson(const Json& j) {
  NodeMemory m;
  m.allocated_bytes = j.at("allocated_bytes").get<int64_t>();
  m.freed_bytes = j.at("freed_bytes").get<int64_t>();
  m.allocations = j.at("allocations").get<int64_t>();
  m.peak_bytes = j.at("peak_bytes").get<int64_t>();
  m.live_after_bytes = j.at("live_after_bytes").get<int64_t>();
  m.output_bytes = j.at("output_bytes").get<int64_t>();
  m.saved_bytes = j.value("saved_bytes", int64_t{0});
  return m;  // self_* are derived by Finalize
}

Metric MetricFromJson(const Json& j) {
  Metric m;
  m.name = j.at("name").get<std::string>();
  m.description = j.value("description", "");
  m.unit = j.value("unit", "ns") == "count" ? Metric::Unit::kCount : Metric::Unit::kNanoseconds;
  m.recorded = j.value("recorded", "inclusive") == "self" ? Metric::Recorded::kSelf : Metric::Recorded::kInclusive;
  m.run_total = j.value("run_total", std::vector<int64_t>{});
  m.unattributed = j.value("unattributed", std::vector<int64_t>{});
  return m;
}

// Version 1 kept device time as device_ns and kernels as per-run means.
void ReadVersion1Extras(const Json& j, Report& report, NodeRecord& node) {
  if (j.contains("device_ns")) {
    Metric device;
    device.name = "device";
    device.description = "device time (CUDA events around each node)";
    device.recorded = Metric::Recorded::kSelf;
    const int m = report.AddMetric(device);
    node.metrics.resize(report.metrics.size());
    node.metrics[m].self = j.at("device_ns").get<std::vector<int64_t>>();
  }
  if (j.contains("kernels")) {
    for (const Json& t : j.at("kernels").at("top")) {
      node.top_kernels.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
    }
  }
}

NodeRecord NodeFromJson(const Json& json, Report& report, int version) {
  const Members j(json);
  NodeRecord node;
  NodeIdentity& id = node.identity;
  id.id = j.at("id").get<int>();
  id.parent = j.at("parent").get<int>();
  id.depth = j.at("depth").get<int>();
  id.label = j.at("name").get<std::string>();
  id.kind = j.at("kind").get<std::string>();
  id.schema = j.value("schema", "");
  id.module = j.value("module", "");
  id.source = j.value("source", "");
  id.archive_source = j.value("archive_source", "");
  node.input_shapes = j.value("input_shapes", "");
  node.output_shapes = j.value("output_shapes", "");
  node.calls = j.at("calls").get<std::vector<int64_t>>();
  node.metrics.resize(report.metrics.size());
  node.metrics[0].total = j.at("total_ns").get<std::vector<int64_t>>();
  if (j.contains("series")) {
    for (const auto& [name, values] : j.at("series").items()) {
      const int m = report.FindMetric(absl::string_view(name.data(), name.size()));
      if (m <= 0) throw std::invalid_argument(absl::StrCat("node ", id.id, " has a series of unknown metric '", std::string(name), "'"));
      Series& s = node.metrics[m];
      (report.metrics[m].recorded == Metric::Recorded::kInclusive ? s.total : s.self) =
          values.get<std::vector<int64_t>>();
    }
  }
  node.quantities.assign(report.quantities.size(), 0);
  for (size_t q = 0; q < report.quantities.size(); ++q) {
    const std::string& key = report.quantities[q].name;
    if (j.contains(key) && !j.at(key).is_null()) node.quantities[q] = j.at(key).get<double>();
  }
  node.work_counted = j.value("work_counted", true);
  if (j.contains("memory")) node.memory = MemoryFromJson(j.at("memory"));
  if (j.contains("top_kernels")) {
    for (const Json& t : j.at("top_kernels")) node.top_kernels.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
  }
  if (version == 1) ReadVersion1Extras(json, report, node);
  return node;
}

// Renderers add a report's integers up in int64 (per run over nodes, over
// runs, a parent's self time as total minus children, event ends) and
// convert means back to int64. If the magnitudes of each quantity's values
// add up to at most 2^60, none of that can overflow. Real reports are far
// below (2^60 ns is 36 years); a file beyond it is not one graphprof wrote.
class Magnitudes {
 public:
  static constexpr int64_t kLimit = int64_t{1} << 60;
  void Add(int64_t v) {
    if (over_) return;
    if (v < -kLimit || v > kLimit) {
      over_ = true;
      return;
    }
    sum_ += v < 0 ? -v : v;  // at most 2^61
    over_ = sum_ > kLimit;
  }
  void Add(const std::vector<int64_t>& values) {
    for (int64_t v : values) Add(v);
  }
  absl::Status Check(absl::string_view what) const {
    if (!over_) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("report values of ", what, " add up past 2^60"));
  }

 private:
  int64_t sum_ = 0;
  bool over_ = false;
};

absl::Status CheckMagnitudes(const Report& report) {
  Magnitudes calls, events, device_events, timeline, run_start, kernels;
  constexpr size_t kMemoryFields = std::size(kNodeMemoryFields);
  Magnitudes memory[kMemoryFields];
  Magnitudes backward_events, gradient_bytes;
  std::vector<Magnitudes> recorded(report.metrics.size()), run_total(report.metrics.size());
  for (const NodeRecord& node : report.nodes) {
    calls.Add(node.calls);
    for (size_t m = 0; m < report.metrics.size() && m < node.metrics.size(); ++m) {
      recorded[m].Add(node.metrics[m].total);
      recorded[m].Add(node.metrics[m].self);
    }
    if (node.memory.has_value()) {
      const NodeMemory& n = *node.memory;
      for (size_t f = 0; f < kMemoryFields; ++f) memory[f].Add(n.*kNodeMemoryFields[f].value);
    }
    for (const auto& kernel : node.top_kernels) kernels.Add(kernel.second);
  }
  for (size_t m = 0; m < report.metrics.size(); ++m) {
    run_total[m].Add(report.metrics[m].run_total);
    run_total[m].Add(report.metrics[m].unattributed);
  }
  run_start.Add(report.run_start_ns);
  for (const TraceEvent& e : report.events) {
    events.Add(e.start_ns);
    events.Add(e.duration_ns);
  }
  for (const TraceEvent& e : report.backward_events) {
    backward_events.Add(e.start_ns);
    backward_events.Add(e.duration_ns);
  }
  for (const ModuleBytes& g : report.gradient_bytes) gradient_bytes.Add(g.bytes);
  for (const DeviceEvent& e : report.device_events) {
    device_events.Add(e.start_ns);
    device_events.Add(e.duration_ns);
  }
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    for (int64_t v : {m.peak_bytes, m.allocated_bytes, m.freed_bytes, m.allocations, m.backward_peak_bytes,
                      m.saved_bytes}) {
      timeline.Add(v);
    }
    for (const MemoryPoint& p : m.timeline) timeline.Add(p.live_bytes);
  }
  for (size_t m = 0; m < report.metrics.size(); ++m) {
    const std::string& name = report.metrics[m].name;
    if (absl::Status s = recorded[m].Check(absl::StrCat("'", name, "'")); !s.ok()) return s;
    if (absl::Status s = run_total[m].Check(absl::StrCat("'", name, "' run totals")); !s.ok()) return s;
  }
  for (size_t f = 0; f < kMemoryFields; ++f) {
    if (absl::Status s = memory[f].Check(kNodeMemoryFields[f].name); !s.ok()) return s;
  }
  for (const auto& [magnitudes, what] : {std::pair{&calls, "calls"}, {&run_start, "run_start_ns"}, {&events, "events"},
                                         {&device_events, "device_events"}, {&timeline, "memory"},
                                         {&backward_events, "backward_events"}, {&gradient_bytes, "gradient_bytes"},
                                         {&kernels, "top_kernels"}}) {
    if (absl::Status s = magnitudes->Check(what); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckStructure(const Report& report) {
  const int n = static_cast<int>(report.nodes.size());
  for (int i = 0; i < n; ++i) {
    const NodeRecord& node = report.nodes[i];
    if (node.identity.id != i) return absl::InvalidArgumentError(absl::StrCat("report node ", i, " has id ", node.identity.id));
    if (node.identity.parent < -1 || node.identity.parent >= i) {
      return absl::InvalidArgumentError(absl::StrCat("report node ", i, " has parent ", node.identity.parent,
                                                     " (parents come before their children)"));
    }
    if (node.calls.size() != static_cast<size_t>(report.runs)) {
      return absl::InvalidArgumentError(absl::StrCat("report node ", i, " has ", node.calls.size(), " call counts for ",
                                                     report.runs, " runs"));
    }
    for (size_t m = 0; m < report.metrics.size(); ++m) {
      const Series& s = node.metrics[m];
      const size_t size = report.metrics[m].recorded == Metric::Recorded::kInclusive ? s.total.size() : s.self.size();
      if (size != 0 && size != static_cast<size_t>(report.runs)) {
        return absl::InvalidArgumentError(absl::StrCat("report node ", i, " has ", size, " values of '",
                                                       report.metrics[m].name, "' for ", report.runs, " runs"));
      }
    }
  }
  if (report.run_ns().size() != static_cast<size_t>(report.runs)) {
    return absl::InvalidArgumentError(absl::StrCat("report has ", report.run_ns().size(), " run times for ",
                                                   report.runs, " runs"));
  }
  if (report.memory.has_value() && report.memory->peak_node >= n) {
    return absl::InvalidArgumentError(absl::StrCat("report memory peak node ", report.memory->peak_node, " does not exist"));
  }
  return CheckMagnitudes(report);
}

std::optional<Verification> VerificationFromJson(const Json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  const Json& v = j.at(key);
  Verification verification;
  verification.identical = v.at("identical").get<bool>();
  verification.within_tolerance = v.value("within_tolerance", false);
  // The writer writes a non-finite double as null: an error that was
  // infinite (an infinity where the reference had a number) reads back so.
  auto error = [&](const char* name) {
    return v.contains(name) && v.at(name).is_null() ? std::numeric_limits<double>::infinity() : v.value(name, 0.0);
  };
  verification.max_abs_error = error("max_abs_error");
  verification.max_rel_error = error("max_rel_error");
  verification.rtol = error("rtol");
  verification.atol = error("atol");
  verification.detail = v.value("detail", "");
  verification.reference = v.value("reference", "native execution");
  return verification;
}

std::vector<TraceEvent> EventsFromJson(const Json& j, const char* key) {
  std::vector<TraceEvent> events;
  if (!j.contains(key)) return events;
  for (const Json& e : j.at(key)) {
    events.push_back(TraceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(), e.at(2).get<int64_t>(),
                                e.at(3).get<int64_t>()});
  }
  return events;
}

}  // namespace

absl::StatusOr<Report> ReportFromJson(absl::string_view text) {
  // The parser and its tape live while the report is read; the text is
  // copied once into simdjson's padded buffer. A thread keeps its parser
  // for reports up to 16 MB, so that reading many (merge) reuses the tape's
  // memory instead of faulting in a new one each time; a bigger report gets
  // a parser of its own, freed afterwards.
  // (A parser holds several times the document: 16 MB keeps it near 200 MB.)
  // The padded copy of the text is kept the same way: a fresh 10 MB buffer
  // per report cost more in page faults than the copy itself.
  constexpr size_t kKeptParserBytes = size_t{16} << 20;
  thread_local dom::parser kept;
  thread_local std::vector<char> kept_text;
  std::optional<dom::parser> own;
  std::vector<char> own_text;
  const bool keep = text.size() <= kKeptParserBytes;
  dom::parser& parser = keep ? kept : own.emplace();
  std::vector<char>& padded = keep ? kept_text : own_text;
  dom::element root;
  // A UTF-8 byte order mark (editors write one) is not JSON; skip it.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (padded.size() < text.size() + simdjson::SIMDJSON_PADDING) padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::copy(text.begin(), text.end(), padded.begin());
  std::fill_n(padded.begin() + text.size(), simdjson::SIMDJSON_PADDING, '\0');
  if (const simdjson::error_code error = parser.parse(padded.data(), text.size(), false).get(root);
      error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("report is not valid JSON (", simdjson::error_message(error), ")"));
  }
  const Json j(root, "");
  try {
    if (!j.is_object() || !j.contains("schema_version")) {
      return absl::InvalidArgumentError("not a graphprof report (no schema_version)");
    }
    const int version = j.at("schema_version").get<int>();
    if (version < 1 || version > Report::kSchemaVersion) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported report schema_version ", version,
                                                     " (this graphprof reads 1 to ", Report::kSchemaVersion, ")"));
    }
    Report report;
    report.model = j.at("model").get<std::string>();
    report.clock = j.value("clock", "steady_clock");
    report.process = j.value("process", "");
    report.report_id = j.value("report_id", "");
    report.graph_hash = j.value("graph_hash", "");
    report.runs = j.at("runs").get<int>();
    report.warmup = j.at("warmup").get<int>();
    if (report.runs < 0 || report.warmup < 0) return absl::InvalidArgumentError("report has negative run counts");
    report.timer_overhead_ns = j.at("timer_overhead_ns").get<double>();
    report.timer_inner_ns = j.value("timer_inner_ns", 0.0);
    report.timer_block_ns = j.value("timer_block_ns", 0.0);
    report.compensated = j.value("compensated", false);
    if (version >= 2) {
      report.metrics.clear();
      for (const Json& m : j.at("metrics")) report.metrics.push_back(MetricFromJson(m));
      if (report.metrics.empty() || report.metrics[0].name != "time") {
        return absl::InvalidArgumentError("report metrics must start with 'time'");
      }
      for (size_t a = 0; a < report.metrics.size(); ++a) {
        for (size_t b = a + 1; b < report.metrics.size(); ++b) {
          if (report.metrics[a].name == report.metrics[b].name) {
            return absl::InvalidArgumentError(absl::StrCat("report has metric '", report.metrics[a].name, "' twice"));
          }
        }
      }
      report.verification = VerificationFromJson(j, "verification");
      report.gradient_verification = VerificationFromJson(j, "gradient_verification");
      report.loss = j.value("loss", "");
      if (j.contains("gradient_bytes")) {
        for (const Json& m : j.at("gradient_bytes")) {
          report.gradient_bytes.push_back(ModuleBytes{m.at(0).get<std::string>(), m.at(1).get<int64_t>()});
        }
      }
    } else if (!j.at("verified").is_null()) {
      Verification verification;
      verification.identical = j.at("verified").get<bool>();
      report.verification = verification;
    }
    report.metrics[0].run_total = j.at("run_ns").get<std::vector<int64_t>>();
    report.run_start_ns = j.value("run_start_ns", std::vector<int64_t>{});
    report.parameters = OptionalCount(j, "parameters");
    report.trainable_parameters = OptionalCount(j, "trainable_parameters");
    report.model_bytes = OptionalCount(j, "model_bytes");
    report.input_bytes = OptionalCount(j, "input_bytes");
    if (j.contains("quantities")) {
      for (const Json& q : j.at("quantities")) {
        Quantity quantity;
        quantity.name = q.at("name").get<std::string>();
        quantity.description = q.value("description", "");
        const std::string unit = q.value("unit", "count");
        quantity.unit = unit == "flops" ? Quantity::Unit::kFlops : unit == "bytes" ? Quantity::Unit::kBytes
                                                                               : Quantity::Unit::kCount;
        if (report.FindQuantity(quantity.name) >= 0) {
          return absl::InvalidArgumentError(absl::StrCat("report has quantity '", quantity.name, "' twice"));
        }
        report.quantities.push_back(quantity);
      }
    }
    if (j.contains("peak_gflops")) {
      Ceilings c;
      auto number = [&](const char* key) {
        return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : -1.0;
      };
      c.peak_gflops = number("peak_gflops");
      c.peak_gbps = number("peak_gbps");
      c.blas_gflops = number("blas_gflops");
      c.conv_gflops = number("conv_gflops");
      if (j.contains("bandwidth")) {
        for (const Json& level : j.at("bandwidth")) {
          const BandwidthLevel l{level.at(0).get<int64_t>(), level.at(1).get<double>()};
          if (l.bytes <= 0 || !(l.gbps > 0) || (!c.bandwidth.empty() && l.bytes <= c.bandwidth.back().bytes)) {
            return absl::InvalidArgumentError(
                "'bandwidth': expected [bytes, GB/s] pairs above 0 with growing bytes");
          }
          c.bandwidth.push_back(l);
        }
      }
      c.threads = j.value("ceilings_threads", -1);
      c.source = j.value("ceilings_source", "");
      report.ceilings = c;
    }
    report.nodes.reserve(j.at("nodes").size());
    for (const Json& node : j.at("nodes")) report.nodes.push_back(NodeFromJson(node, report, version));
    for (NodeRecord& node : report.nodes) node.metrics.resize(report.metrics.size());
    if (j.contains("memory") && !j.at("memory").is_null()) {
      const Json& m = j.at("memory");
      MemorySummary memory;
      memory.peak_bytes = m.at("peak_bytes").get<int64_t>();
      memory.peak_node = m.at("peak_node").get<int>();
      memory.allocated_bytes = m.at("allocated_bytes").get<int64_t>();
      memory.freed_bytes = m.at("freed_bytes").get<int64_t>();
      memory.allocations = m.at("allocations").get<int64_t>();
      memory.backward = m.contains("backward_peak_bytes");
      memory.backward_peak_bytes = m.value("backward_peak_bytes", int64_t{0});
      memory.backward_peak_node = m.value("backward_peak_node", -1);
      memory.saved_bytes = m.value("saved_bytes", int64_t{0});
      for (const Json& p : m.at("timeline")) memory.timeline.push_back(MemoryPoint{p.at(0).get<int>(), p.at(1).get<int64_t>()});
      report.memory = memory;
    }
    if (j.contains("ir")) {
      for (const Json& line : j.at("ir")) report.ir.push_back(IrLine{line.at(0).get<std::string>(), line.at(1).get<int>()});
    }
    report.events = EventsFromJson(j, "events");
    report.backward_events = EventsFromJson(j, "backward_events");
    report.dropped_events = j.value("dropped_events", int64_t{0});
    report.device = j.value("device", "");
    report.device_note = j.value("device_note", "");
    if (j.contains("device_events")) {
      for (const Json& e : j.at("device_events")) {
        report.device_events.push_back(DeviceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(),
                                                   e.at(2).get<std::string>(), e.at(3).get<std::string>(),
                                                   e.at(4).get<int64_t>(), e.at(5).get<int64_t>()});
      }
    }
    report.notes = j.value("notes", std::vector<std::string>{});
    if (j.contains("machine") && j.at("machine").is_object()) {
      const Json& jm = j.at("machine");
      Machine m;
      m.host = jm.value("host", "");
      m.cpu = jm.value("cpu", "");
      m.governor = jm.value("governor", "");
      m.cpu_mhz = jm.contains("cpu_mhz") && jm.at("cpu_mhz").is_number() ? jm.at("cpu_mhz").get<double>() : -1;
      m.cores = jm.value("cores", -1);
      m.threads = jm.value("threads", -1);
      m.interop_threads = jm.value("interop_threads", -1);
      m.blas = jm.value("blas", "");
      m.blas_threads = jm.value("blas_threads", -1);
      m.blas_core = jm.value("blas_core", "");
      m.vector_isa = jm.value("vector_isa", "");
      m.libtorch = jm.value("libtorch", "");
      m.kernel = jm.value("kernel", "");
      m.load_average =
          jm.contains("load_average") && jm.at("load_average").is_number() ? jm.at("load_average").get<double>() : -1;
      report.machine = m;
    }
    if (j.contains("run_sources")) {
      for (const Json& source : j.at("run_sources")) {
        RunSource rs{source.at(0).get<std::string>(), source.at(1).get<int>(), source.at(2).get<int>()};
        if (source.size() > 3) rs.process = source.at(3).get<std::string>();
        if (source.size() > 4) rs.report = source.at(4).get<std::string>();
        if (rs.first_run < 0 || rs.runs < 0 || rs.first_run > report.runs || rs.runs > report.runs - rs.first_run) {
          return absl::InvalidArgumentError(absl::StrCat("report run source '", rs.name, "' is out of range"));
        }
        report.run_sources.push_back(rs);
      }
    }
    if (absl::Status valid = CheckStructure(report); !valid.ok()) return valid;
    report.Finalize();
    return report;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed report JSON: ", e.what()));
  }
}

}  // namespace graphprof
