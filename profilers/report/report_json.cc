#include "profilers/report/report_json.h"

#include <optional>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "profilers/report/stats.h"

namespace graphprof {
namespace {

// nlohmann's get<int>() and get<int64_t>() cast whatever number is there:
// 1e300 into an int64 is undefined behaviour, 1e10 into an int wraps.
// Reports are read from files, so integers go through this serializer,
// which refuses a number the integer type cannot hold; everything else is
// nlohmann's own.
template <typename T, typename = void>
struct CheckedSerializer {
  template <typename Json>
  static void from_json(Json&& j, T& value) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) CheckFits(j);
    nlohmann::adl_serializer<T>::from_json(std::forward<Json>(j), value);
  }
  template <typename Json, typename U>
  static void to_json(Json& j, U&& value) {
    nlohmann::adl_serializer<T>::to_json(j, std::forward<U>(value));
  }

 private:
  template <typename Json>
  static void CheckFits(const Json& j) {
    using Limits = std::numeric_limits<T>;
    bool fits = true;
    if (j.is_number_unsigned()) {
      fits = j.template get_ref<const typename Json::number_unsigned_t&>() <= static_cast<uint64_t>(Limits::max());
    } else if (j.is_number_integer()) {
      const int64_t v = j.template get_ref<const typename Json::number_integer_t&>();
      fits = v >= 0 ? static_cast<uint64_t>(v) <= static_cast<uint64_t>(Limits::max())
                    : Limits::is_signed && v >= static_cast<int64_t>(Limits::min());
    } else if (j.is_number_float()) {
      // Exactly the doubles that convert: (min - 1, max + 1), NaN excluded.
      const double v = j.template get_ref<const typename Json::number_float_t&>();
      const double end = std::ldexp(1.0, Limits::digits);  // max + 1
      fits = v < end && (Limits::is_signed ? v >= -end : v > -1.0);
    }
    if (!fits) {
      throw std::out_of_range(absl::StrCat("number ", j.dump(), " does not fit a ", sizeof(T) * 8, "-bit integer"));
    }
  }
};

using json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, double,
                                  std::allocator, CheckedSerializer>;

const char* UnitName(Metric::Unit unit) { return unit == Metric::Unit::kCount ? "count" : "ns"; }
const char* RecordedName(Metric::Recorded r) { return r == Metric::Recorded::kSelf ? "self" : "inclusive"; }

void WriteOptionalCount(JsonWriter& w, const char* key, int64_t value) {
  w.Key(key);
  if (value >= 0) {
    w.Int(value);
  } else {
    w.Null();
  }
}

void WriteMemory(JsonWriter& w, const NodeMemory& m) {
  w.BeginObject();
  for (const NodeMemoryField& field : kNodeMemoryFields) {
    w.Key(field.name);
    w.Int(m.*field.value);
  }
  w.EndObject();
}

void WriteNode(JsonWriter& w, const Report& report, const NodeRecord& node) {
  const NodeIdentity& id = node.identity;
  w.BeginObject();
  w.Key("id"); w.Int(id.id);
  w.Key("parent"); w.Int(id.parent);
  w.Key("depth"); w.Int(id.depth);
  w.Key("name"); w.String(id.label);
  w.Key("kind"); w.String(id.kind);
  w.Key("schema"); w.String(id.schema);
  w.Key("module"); w.String(id.module);
  w.Key("source"); w.String(id.source);
  if (!id.archive_source.empty()) {
    w.Key("archive_source"); w.String(id.archive_source);
  }
  w.Key("input_shapes"); w.String(node.input_shapes);
  w.Key("output_shapes"); w.String(node.output_shapes);
  w.Key("calls"); w.IntArray(node.calls);
  w.Key("total_ns"); w.IntArray(node.time().total);
  if (report.metrics.size() > 1) {
    w.Key("series");
    w.BeginObject();
    for (size_t m = 1; m < report.metrics.size() && m < node.metrics.size(); ++m) {
      const Series& s = node.metrics[m];
      w.Key(report.metrics[m].name);
      w.IntArray(report.metrics[m].recorded == Metric::Recorded::kInclusive ? s.total : s.self);
    }
    w.EndObject();
  }
  // Derived, for readers that want numbers without statistics of their own.
  const Summary time = Summarize(node.time().total);
  int64_t calls = 0;
  for (int64_t c : node.calls) calls += c;
  w.Key("count"); w.Approx(node.calls.empty() ? 0.0 : static_cast<double>(calls) / node.calls.size());
  w.Key("mean_us"); w.Approx(time.mean / 1e3);
  w.Key("std_us"); w.Approx(time.std / 1e3);
  w.Key("min_us"); w.Approx(time.min / 1e3);
  w.Key("median_us"); w.Approx(time.median / 1e3);
  w.Key("p90_us"); w.Approx(time.p90 / 1e3);
  w.Key("max_us"); w.Approx(time.max / 1e3);
  w.Key("self_us"); w.Approx(Summarize(node.time().self).mean / 1e3);
  w.Key("percent"); w.Approx(report.PercentOfRun(time.mean));
  for (size_t m = 1; m < report.metrics.size() && m < node.metrics.size(); ++m) {
    const Metric& metric = report.metrics[m];
    const bool ns = metric.unit == Metric::Unit::kNanoseconds;
    const double scale = ns ? 1e3 : 1;
    w.Key(absl::StrCat(metric.name, ns ? "_us" : ""));
    w.Approx(Summarize(node.metrics[m].total).mean / scale);
    w.Key(absl::StrCat(metric.name, ns ? "_self_us" : "_self"));
    w.Approx(Summarize(node.metrics[m].self).mean / scale);
  }
  for (size_t q = 0; q < report.quantities.size() && q < node.quantities.size(); ++q) {
    w.Key(report.quantities[q].name);
    w.Double(node.quantities[q]);
  }
  if (!node.work_counted) {
    w.Key("work_counted");
    w.Bool(false);
  }
  if (node.memory.has_value()) {
    w.Key("memory");
    WriteMemory(w, *node.memory);
  }
  if (!node.top_kernels.empty()) {
    w.Key("top_kernels");
    w.BeginArray();
    for (const auto& [name, ns] : node.top_kernels) {
      w.BeginArray();
      w.String(name);
      w.Int(ns);
      w.EndArray();
    }
    w.EndArray();
  }
  w.EndObject();
}

// --- Reading. ---

int64_t OptionalCount(const json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? j.at(key).get<int64_t>() : -1;
}

NodeMemory MemoryFromJson(const json& j) {
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

Metric MetricFromJson(const json& j) {
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
void ReadVersion1Extras(const json& j, Report& report, NodeRecord& node) {
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
    for (const json& t : j.at("kernels").at("top")) {
      node.top_kernels.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
    }
  }
}

NodeRecord NodeFromJson(const json& j, Report& report, int version) {
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
      const int m = report.FindMetric(name);
      if (m <= 0) throw std::invalid_argument(absl::StrCat("node ", id.id, " has a series of unknown metric '", name, "'"));
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
    for (const json& t : j.at("top_kernels")) node.top_kernels.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
  }
  if (version == 1) ReadVersion1Extras(j, report, node);
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

void WriteVerification(JsonWriter& w, const std::optional<Verification>& verification) {
  if (!verification.has_value()) {
    w.Null();
    return;
  }
  const Verification& v = *verification;
  w.BeginObject();
  w.Key("identical"); w.Bool(v.identical);
  w.Key("within_tolerance"); w.Bool(v.within_tolerance);
  w.Key("max_abs_error"); w.Double(v.max_abs_error);
  w.Key("max_rel_error"); w.Double(v.max_rel_error);
  w.Key("rtol"); w.Double(v.rtol);
  w.Key("atol"); w.Double(v.atol);
  w.Key("detail"); w.String(v.detail);
  w.Key("reference"); w.String(v.reference);
  w.EndObject();
}

std::optional<Verification> VerificationFromJson(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  const json& v = j.at(key);
  Verification verification;
  verification.identical = v.at("identical").get<bool>();
  verification.within_tolerance = v.value("within_tolerance", false);
  verification.max_abs_error = v.value("max_abs_error", 0.0);
  verification.max_rel_error = v.value("max_rel_error", 0.0);
  verification.rtol = v.value("rtol", 0.0);
  verification.atol = v.value("atol", 0.0);
  verification.detail = v.value("detail", "");
  verification.reference = v.value("reference", "native execution");
  return verification;
}

void WriteEvents(JsonWriter& w, const std::vector<TraceEvent>& events) {
  w.BeginArray();
  for (const TraceEvent& e : events) {
    w.Chunk();
    w.BeginArray();
    w.Int(e.node);
    w.Int(e.run);
    w.Int(e.start_ns);
    w.Int(e.duration_ns);
    w.EndArray();
  }
  w.EndArray();
}

std::vector<TraceEvent> EventsFromJson(const json& j, const char* key) {
  std::vector<TraceEvent> events;
  if (!j.contains(key)) return events;
  for (const json& e : j.at(key)) {
    events.push_back(TraceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(), e.at(2).get<int64_t>(),
                                e.at(3).get<int64_t>()});
  }
  return events;
}

}  // namespace

void WriteReportJson(const Report& report, JsonWriter& w) {
  w.BeginObject();
  w.Key("schema_version"); w.Int(Report::kSchemaVersion);
  w.Key("model"); w.String(report.model);
  if (!report.process.empty()) {
    w.Key("process");
    w.String(report.process);
  }
  if (!report.report_id.empty()) {
    w.Key("report_id");
    w.String(report.report_id);
  }
  if (!report.graph_hash.empty()) {
    w.Key("graph_hash");
    w.String(report.graph_hash);
  }
  w.Key("clock"); w.String(report.clock);
  w.Key("runs"); w.Int(report.runs);
  w.Key("warmup"); w.Int(report.warmup);
  w.Key("timer_overhead_ns"); w.Double(report.timer_overhead_ns);
  w.Key("timer_inner_ns"); w.Double(report.timer_inner_ns);
  w.Key("timer_block_ns"); w.Double(report.timer_block_ns);
  w.Key("compensated"); w.Bool(report.compensated);
  w.Key("coverage"); w.Approx(report.coverage());
  w.Key("total_us"); w.Approx(report.total_us());
  w.Key("run_ns"); w.IntArray(report.run_ns());
  w.Key("run_start_ns"); w.IntArray(report.run_start_ns);
  w.Key("metrics");
  w.BeginArray();
  for (const Metric& m : report.metrics) {
    w.BeginObject();
    w.Key("name"); w.String(m.name);
    w.Key("description"); w.String(m.description);
    w.Key("unit"); w.String(UnitName(m.unit));
    w.Key("recorded"); w.String(RecordedName(m.recorded));
    w.Key("run_total"); w.IntArray(m.run_total);
    w.Key("unattributed"); w.IntArray(m.unattributed);
    w.EndObject();
  }
  w.EndArray();
  w.Key("verified");
  if (report.verification.has_value() || report.gradient_verification.has_value()) {
    w.Bool(report.verified());
  } else {
    w.Null();
  }
  w.Key("verification"); WriteVerification(w, report.verification);
  w.Key("gradient_verification"); WriteVerification(w, report.gradient_verification);
  w.Key("loss"); w.String(report.loss);
  w.Key("gradient_bytes");
  w.BeginArray();
  for (const ModuleBytes& m : report.gradient_bytes) {
    w.BeginArray();
    w.String(m.module);
    w.Int(m.bytes);
    w.EndArray();
  }
  w.EndArray();
  WriteOptionalCount(w, "parameters", report.parameters);
  WriteOptionalCount(w, "trainable_parameters", report.trainable_parameters);
  WriteOptionalCount(w, "model_bytes", report.model_bytes);
  WriteOptionalCount(w, "input_bytes", report.input_bytes);
  WriteOptionalCount(w, "peak_bytes", report.memory.has_value() ? report.memory->peak_bytes : -1);
  w.Key("memory");
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    w.BeginObject();
    w.Key("peak_bytes"); w.Int(m.peak_bytes);
    w.Key("peak_node"); w.Int(m.peak_node);
    w.Key("allocated_bytes"); w.Int(m.allocated_bytes);
    w.Key("freed_bytes"); w.Int(m.freed_bytes);
    w.Key("allocations"); w.Int(m.allocations);
    if (m.backward) {
      w.Key("backward_peak_bytes"); w.Int(m.backward_peak_bytes);
      w.Key("backward_peak_node"); w.Int(m.backward_peak_node);
      w.Key("saved_bytes"); w.Int(m.saved_bytes);
    }
    w.Key("timeline");
    w.BeginArray();
    for (const MemoryPoint& p : m.timeline) {
      w.BeginArray();
      w.Int(p.node);
      w.Int(p.live_bytes);
      w.EndArray();
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  if (!report.quantities.empty()) {
    w.Key("quantities");
    w.BeginArray();
    for (const Quantity& q : report.quantities) {
      w.BeginObject();
      w.Key("name"); w.String(q.name);
      w.Key("unit");
      w.String(q.unit == Quantity::Unit::kFlops ? "flops" : q.unit == Quantity::Unit::kBytes ? "bytes" : "count");
      w.Key("description"); w.String(q.description);
      w.EndObject();
    }
    w.EndArray();
    // Kinds whose work is not counted, and their share of the run.
    w.Key("uncounted");
    w.BeginArray();
    for (const UncountedKind& u : report.uncounted) {
      w.BeginObject();
      w.Key("kind"); w.String(u.kind);
      w.Key("nodes"); w.Int(u.nodes);
      w.Key("percent"); w.Approx(u.percent);
      w.EndObject();
    }
    w.EndArray();
  }
  if (report.ceilings.has_value()) {
    const Ceilings& c = *report.ceilings;
    w.Key("peak_gflops"); w.Approx(c.peak_gflops);
    w.Key("peak_gbps"); w.Approx(c.peak_gbps);
    w.Key("blas_gflops"); w.Approx(c.blas_gflops);
    w.Key("conv_gflops"); w.Approx(c.conv_gflops);
    w.Key("ceilings_threads"); w.Int(c.threads);
    w.Key("ceilings_source"); w.String(c.source);
  }
  if (report.machine.has_value()) {
    w.Key("blas"); w.String(report.machine->blas);
    w.Key("blas_threads"); w.Int(report.machine->blas_threads);
  }
  w.Key("nodes");
  w.BeginArray();
  for (const NodeRecord& node : report.nodes) {
    w.Newline();
    WriteNode(w, report, node);
  }
  w.EndArray();
  w.Key("ir");
  w.BeginArray();
  for (const IrLine& line : report.ir) {
    w.Newline();
    w.BeginArray();
    w.String(line.text);
    w.Int(line.node);
    w.EndArray();
  }
  w.EndArray();
  w.Key("events"); WriteEvents(w, report.events);
  w.Key("backward_events"); WriteEvents(w, report.backward_events);
  w.Key("dropped_events"); w.Int(report.dropped_events);
  w.Key("device"); w.String(report.device);
  w.Key("device_note"); w.String(report.device_note);
  w.Key("device_events");
  w.BeginArray();
  for (const DeviceEvent& e : report.device_events) {
    w.BeginArray();
    w.Int(e.node);
    w.Int(e.run);
    w.String(e.name);
    w.String(e.kind);
    w.Int(e.start_ns);
    w.Int(e.duration_ns);
    w.EndArray();
  }
  w.EndArray();
  if (report.machine.has_value()) {
    const Machine& m = *report.machine;
    w.Key("machine");
    w.BeginObject();
    w.Key("host"); w.String(m.host);
    w.Key("cpu"); w.String(m.cpu);
    w.Key("governor"); w.String(m.governor);
    w.Key("cpu_mhz"); w.Approx(m.cpu_mhz);
    w.Key("cores"); w.Int(m.cores);
    w.Key("threads"); w.Int(m.threads);
    w.Key("interop_threads"); w.Int(m.interop_threads);
    w.Key("blas"); w.String(m.blas);
    w.Key("blas_threads"); w.Int(m.blas_threads);
    w.Key("libtorch"); w.String(m.libtorch);
    w.Key("kernel"); w.String(m.kernel);
    w.Key("load_average"); w.Approx(m.load_average);
    w.EndObject();
  }
  w.Key("notes");
  w.BeginArray();
  for (const std::string& note : report.notes) w.String(note);
  w.EndArray();
  if (!report.run_sources.empty()) {
    w.Key("run_sources");
    w.BeginArray();
    for (const RunSource& source : report.run_sources) {
      w.BeginArray();
      w.String(source.name);
      w.Int(source.first_run);
      w.Int(source.runs);
      if (!source.process.empty() || !source.report.empty()) w.String(source.process);
      if (!source.report.empty()) w.String(source.report);
      w.EndArray();
    }
    w.EndArray();
  }
  w.EndObject();
}

void StreamReportJson(const Report& report, TextSink& sink) {
  JsonWriter writer(&sink);
  WriteReportJson(report, writer);
  sink.Append("\n");
}

std::string ReportToJson(const Report& report) {
  TextSink sink;
  StreamReportJson(report, sink);
  return sink.Take();
}

absl::StatusOr<Report> ReportFromJson(absl::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("report is not valid JSON");
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
      for (const json& m : j.at("metrics")) report.metrics.push_back(MetricFromJson(m));
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
        for (const json& m : j.at("gradient_bytes")) {
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
      for (const json& q : j.at("quantities")) {
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
      c.threads = j.value("ceilings_threads", -1);
      c.source = j.value("ceilings_source", "");
      report.ceilings = c;
    }
    for (const json& node : j.at("nodes")) report.nodes.push_back(NodeFromJson(node, report, version));
    for (NodeRecord& node : report.nodes) node.metrics.resize(report.metrics.size());
    if (j.contains("memory") && !j.at("memory").is_null()) {
      const json& m = j.at("memory");
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
      for (const json& p : m.at("timeline")) memory.timeline.push_back(MemoryPoint{p.at(0).get<int>(), p.at(1).get<int64_t>()});
      report.memory = memory;
    }
    if (j.contains("ir")) {
      for (const json& line : j.at("ir")) report.ir.push_back(IrLine{line.at(0).get<std::string>(), line.at(1).get<int>()});
    }
    report.events = EventsFromJson(j, "events");
    report.backward_events = EventsFromJson(j, "backward_events");
    report.dropped_events = j.value("dropped_events", int64_t{0});
    report.device = j.value("device", "");
    report.device_note = j.value("device_note", "");
    if (j.contains("device_events")) {
      for (const json& e : j.at("device_events")) {
        report.device_events.push_back(DeviceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(),
                                                   e.at(2).get<std::string>(), e.at(3).get<std::string>(),
                                                   e.at(4).get<int64_t>(), e.at(5).get<int64_t>()});
      }
    }
    report.notes = j.value("notes", std::vector<std::string>{});
    if (j.contains("machine") && j.at("machine").is_object()) {
      const json& jm = j.at("machine");
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
      m.libtorch = jm.value("libtorch", "");
      m.kernel = jm.value("kernel", "");
      m.load_average =
          jm.contains("load_average") && jm.at("load_average").is_number() ? jm.at("load_average").get<double>() : -1;
      report.machine = m;
    }
    if (j.contains("run_sources")) {
      for (const json& source : j.at("run_sources")) {
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
