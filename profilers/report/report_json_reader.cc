// ReportFromJson: reading a report back (the writer is report_json.cc).
//
// Reports are parsed with simdjson's DOM (several hundred MB/s and more,
// against nlohmann's tens: merging 64 reports of a 10k-node graph reads 640
// MB) into a tape the reader walks once. Every access goes through Json
// (json_value.h), which throws Malformed with a sentence for people when a
// key is missing or a value has the wrong type or does not fit its field;
// ReportFromJson turns that into InvalidArgument "malformed report JSON:
// ...". Integers that the field's type cannot hold are refused (1e300 into
// an int64 is undefined behaviour, 4294967298 runs would wrap), and after
// reading, the report must be one graphprof could have written
// (report_checks.h: ids, series lengths, magnitudes below 2^60).
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "profilers/report/json_value.h"
#include "profilers/report/report_checks.h"
#include "profilers/report/report_json.h"

namespace graphprof {
namespace {

namespace dom = simdjson::dom;
using json_internal::Json;
using json_internal::Malformed;
using json_internal::Members;

// --- Reading. ---

int64_t OptionalCount(const Json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? j.at(key).get<int64_t>() : -1;
}

// A node's "memory" object: its memory quantities (declared on the first;
// self values are derived by Finalize).
void MemoryFromJson(const Json& j, Report& report, NodeRecord& node) {
  for (const Column& q : MemoryQuantities()) {
    // Declared on the first node: adding a column fits every node read so far.
    int index = report.FindQuantity(q.name);
    if (index < 0) index = report.AddQuantity(q);
    if (index < 0 || !report.columns[index].memory) {
      throw std::invalid_argument(absl::StrCat("quantity '", q.name, "' is both work and memory"));
    }
    const int64_t v = q.training_only ? j.value(q.name, int64_t{0}) : j.at(q.name).get<int64_t>();
    if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) {
      throw std::invalid_argument(absl::StrCat("memory '", q.name, "' is ", v, ", beyond 2^53"));
    }
    report.FitNode(node);
    node.quantities[index] = static_cast<double>(v);
  }
}

// A column's name, description and unit (`otherwise` for a unit name UnitName does not give).
Column ColumnFromJson(const Json& j, Unit otherwise) {
  Column c;
  c.name = j.at("name").get<std::string>();
  c.description = j.value("description", "");
  c.unit = UnitNamed(j.value("unit", ""), otherwise);
  return c;
}

Column MetricFromJson(const Json& j) {
  Column m = ColumnFromJson(j, Unit::kNanoseconds);
  m.scope = j.value("recorded", "inclusive") == "self" ? Column::Scope::kSelf : Column::Scope::kInclusive;
  m.run_total = j.value("run_total", std::vector<int64_t>{});
  m.unattributed = j.value("unattributed", std::vector<int64_t>{});
  return m;
}

void KernelsFromJson(const Json& list, NodeRecord& node) {
  for (const Json& t : list) node.top_kernels.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
}

// Version 1 kept device time as device_ns and kernels as per-run means.
void ReadVersion1Extras(const Json& j, Report& report, NodeRecord& node) {
  if (j.contains("device_ns")) {
    Column device;
    device.name = "device";
    device.description = "device time (CUDA events around each node)";
    device.scope = Column::Scope::kSelf;
    int m = report.FindMetric(device.name);
    if (m < 0) m = report.AddMetric(device);
    if (m < 0) throw std::invalid_argument("metric 'device' is also a quantity");
    report.FitNode(node);
    node.metrics[m].self = j.at("device_ns").get<std::vector<int64_t>>();
  }
  if (j.contains("kernels")) KernelsFromJson(j.at("kernels").at("top"), node);
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
  if (j.contains("fused_modules")) id.fused_modules = j.at("fused_modules").get<std::vector<std::string>>();
  node.input_shapes = j.value("input_shapes", "");
  node.output_shapes = j.value("output_shapes", "");
  node.calls = j.at("calls").get<std::vector<int64_t>>();
  report.FitNode(node);
  node.metrics[0].total = j.at("total_ns").get<std::vector<int64_t>>();
  if (j.contains("series")) {
    for (const auto& [name, values] : j.at("series").items()) {
      const int m = report.FindMetric(absl::string_view(name.data(), name.size()));
      if (m <= 0) throw std::invalid_argument(absl::StrCat("node ", id.id, " has a series of unknown metric '", std::string(name), "'"));
      node.metrics[m].recorded(report.columns[m]) = values.get<std::vector<int64_t>>();
    }
  }
  for (size_t q = 0; q < report.columns.size(); ++q) {
    if (report.columns[q].per_run() || report.columns[q].memory) continue;  // memory: in "memory", below
    const std::string& key = report.columns[q].name;
    if (j.contains(key) && !j.at(key).is_null()) node.quantities[q] = j.at(key).get<double>();
  }
  node.work_counted = j.value("work_counted", true);
  if (j.contains("memory")) MemoryFromJson(j.at("memory"), report, node);
  if (j.contains("top_kernels")) KernelsFromJson(j.at("top_kernels"), node);
  if (version == 1) ReadVersion1Extras(json, report, node);
  return node;
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
  // Reports written before the key: their criterion was element-wise unless
  // the detail says it was the float64 run.
  const std::string criterion = v.value("criterion", "");
  if (criterion == "float64_scale" ||
      (criterion.empty() && absl::StartsWith(v.value("detail", ""), "against a float64 run"))) {
    verification.criterion = Verification::Criterion::kFloat64Scale;
  } else if (!criterion.empty() && criterion != "elementwise") {
    throw std::invalid_argument(absl::StrCat(key, ".criterion: unknown criterion '", criterion, "'"));
  }
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

// `j`'s number at `key`; -1 when there is none.
double NumberOr(const Json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : -1.0;
}

// The top-level scalars: model, identity, run counts, the timer.
void ReadHeader(const Json& j, Report& report) {
  report.model = j.at("model").get<std::string>();
  report.clock = j.value("clock", "steady_clock");
  report.process = j.value("process", "");
  report.report_id = j.value("report_id", "");
  report.rank = j.value("rank", -1);
  report.world_size = j.value("world_size", 0);
  report.graph_hash = j.value("graph_hash", "");
  report.runs = j.at("runs").get<int>();
  report.warmup = j.at("warmup").get<int>();
  report.timer_overhead_ns = j.at("timer_overhead_ns").get<double>();
  report.timer_inner_ns = j.value("timer_inner_ns", 0.0);
  report.timer_block_ns = j.value("timer_block_ns", 0.0);
  report.compensated = j.value("compensated", false);
}

// Version 2 and later: the declared metrics ("time" first), both
// verifications, the training step's loss and gradient bytes.
absl::Status ReadColumnsAndVerification(const Json& j, Report& report) {
  report.columns.clear();
  for (const Json& m : j.at("metrics")) {
    Column metric = MetricFromJson(m);
    if (IndexByName(report.columns, metric.name) >= 0) {
      return absl::InvalidArgumentError(absl::StrCat("report has metric '", metric.name, "' twice"));
    }
    report.columns.push_back(std::move(metric));
  }
  if (report.columns.empty() || report.columns[0].name != "time") {
    return absl::InvalidArgumentError("report metrics must start with 'time'");
  }
  report.verification = VerificationFromJson(j, "verification");
  report.gradient_verification = VerificationFromJson(j, "gradient_verification");
  report.loss = j.value("loss", "");
  if (j.contains("gradient_bytes")) {
    for (const Json& m : j.at("gradient_bytes")) {
      report.gradient_bytes.push_back(ModuleBytes{m.at(0).get<std::string>(), m.at(1).get<int64_t>()});
    }
  }
  return absl::OkStatus();
}

// The declared quantities (work counters; memory is declared by its nodes).
absl::Status ReadQuantities(const Json& j, Report& report) {
  if (!j.contains("quantities")) return absl::OkStatus();
  for (const Json& q : j.at("quantities")) {
    Column quantity = ColumnFromJson(q, Unit::kCount);
    quantity.scope = Column::Scope::kOwn;
    if (IndexByName(report.columns, quantity.name) >= 0) {
      return absl::InvalidArgumentError(absl::StrCat("report has quantity '", quantity.name, "' twice"));
    }
    report.AddQuantity(std::move(quantity));
  }
  return absl::OkStatus();
}

// The machine's ceilings, when the report has them.
absl::Status ReadCeilings(const Json& j, Report& report) {
  if (!j.contains("peak_gflops")) return absl::OkStatus();
  Ceilings c;
  c.peak_gflops = NumberOr(j, "peak_gflops");
  c.peak_gbps = NumberOr(j, "peak_gbps");
  c.blas_gflops = NumberOr(j, "blas_gflops");
  c.conv_gflops = NumberOr(j, "conv_gflops");
  if (j.contains("bandwidth")) {
    for (const Json& level : j.at("bandwidth")) {
      const BandwidthLevel l{level.at(0).get<int64_t>(), level.at(1).get<double>()};
      if (l.bytes <= 0 || !(l.gbps > 0) || (!c.bandwidth.empty() && l.bytes <= c.bandwidth.back().bytes)) {
        return absl::InvalidArgumentError("'bandwidth': expected [bytes, GB/s] pairs above 0 with growing bytes");
      }
      c.bandwidth.push_back(l);
    }
  }
  c.threads = j.value("ceilings_threads", -1);
  c.source = j.value("ceilings_source", "");
  report.ceilings = c;
  return absl::OkStatus();
}

// The run's memory summary (the per-node values are read with the nodes).
std::optional<MemorySummary> MemorySummaryFromJson(const Json& j) {
  if (!j.contains("memory") || j.at("memory").is_null()) return std::nullopt;
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
  return memory;
}

// The device's name, note and events.
void ReadDevice(const Json& j, Report& report) {
  report.device = j.value("device", "");
  report.device_note = j.value("device_note", "");
  if (!j.contains("device_events")) return;
  for (const Json& e : j.at("device_events")) {
    report.device_events.push_back(DeviceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(),
                                               e.at(2).get<std::string>(), e.at(3).get<std::string>(),
                                               e.at(4).get<int64_t>(), e.at(5).get<int64_t>()});
  }
}

std::optional<Machine> MachineFromJson(const Json& j) {
  if (!j.contains("machine") || !j.at("machine").is_object()) return std::nullopt;
  const Json& jm = j.at("machine");
  Machine m;
  m.host = jm.value("host", "");
  m.cpu = jm.value("cpu", "");
  m.governor = jm.value("governor", "");
  m.cpu_mhz = NumberOr(jm, "cpu_mhz");
  m.cores = jm.value("cores", -1);
  m.threads = jm.value("threads", -1);
  m.interop_threads = jm.value("interop_threads", -1);
  m.parallel = jm.value("parallel", "");
  m.blas = jm.value("blas", "");
  m.blas_threads = jm.value("blas_threads", -1);
  m.blas_core = jm.value("blas_core", "");
  m.vector_isa = jm.value("vector_isa", "");
  m.libtorch = jm.value("libtorch", "");
  m.kernel = jm.value("kernel", "");
  m.load_average = NumberOr(jm, "load_average");
  return m;
}

// A merged report's sources: each a range of the runs.
absl::Status ReadRunSources(const Json& j, Report& report) {
  if (report.world_size < 0 || (report.world_size > 0 && (report.rank < 0 || report.rank >= report.world_size))) {
    return absl::InvalidArgumentError(absl::StrCat("report rank ", report.rank, " of world size ", report.world_size));
  }
  if (!j.contains("run_sources")) return absl::OkStatus();
  for (const Json& source : j.at("run_sources")) {
    RunSource rs;
    if (source.is_object()) {  // schema 4
      rs.name = source.at("name").get<std::string>();
      rs.first_run = source.at("first_run").get<int>();
      rs.runs = source.at("runs").get<int>();
      rs.process = source.value("process", "");
      rs.report = source.value("report", "");
      rs.rank = source.value("rank", -1);
      rs.world_size = source.value("world_size", 0);
      if (rs.world_size < 0 || (rs.world_size > 0 && (rs.rank < 0 || rs.rank >= rs.world_size))) {
        return absl::InvalidArgumentError(absl::StrCat("report run source '", rs.name, "' has rank ", rs.rank,
                                                       " of world size ", rs.world_size));
      }
    } else {  // schema 1 to 3: [name, first_run, runs, process, report]
      rs = RunSource{source.at(0).get<std::string>(), source.at(1).get<int>(), source.at(2).get<int>()};
      if (source.size() > 3) rs.process = source.at(3).get<std::string>();
      if (source.size() > 4) rs.report = source.at(4).get<std::string>();
    }
    if (rs.first_run < 0 || rs.runs < 0 || rs.first_run > report.runs || rs.runs > report.runs - rs.first_run) {
      return absl::InvalidArgumentError(absl::StrCat("report run source '", rs.name, "' is out of range"));
    }
    report.run_sources.push_back(rs);
  }
  return absl::OkStatus();
}

// Reads the report in `j` (schema `version`) into `report`, in the order the
// fields depend on each other: the columns and the run count before the
// nodes (whose per-run values they size), the nodes before the memory
// summary. Throws Malformed or std::invalid_argument for a missing key or a
// wrong type; returns InvalidArgument for values no graphprof writes.
absl::Status ReadReport(const Json& j, int version, Report& report) {
  ReadHeader(j, report);
  if (report.runs < 0 || report.warmup < 0) return absl::InvalidArgumentError("report has negative run counts");
  if (version >= 2) {
    if (absl::Status read = ReadColumnsAndVerification(j, report); !read.ok()) return read;
  } else if (!j.at("verified").is_null()) {
    Verification verification;
    verification.identical = j.at("verified").get<bool>();
    report.verification = verification;
  }
  report.columns[0].run_total = j.at("run_ns").get<std::vector<int64_t>>();
  // Checked here, before any node is read: the nodes' per-run values are
  // sized by runs (found by report_json_fuzzer: runs 555555553 with 3 run
  // times had the reader allocate 4 GiB for a version-1 node's device time).
  if (report.run_ns().size() != static_cast<size_t>(report.runs)) {
    return absl::InvalidArgumentError(
        absl::StrCat("report has ", report.run_ns().size(), " run times for ", report.runs, " runs"));
  }
  report.run_start_ns = j.value("run_start_ns", std::vector<int64_t>{});
  report.parameters = OptionalCount(j, "parameters");
  report.trainable_parameters = OptionalCount(j, "trainable_parameters");
  report.model_bytes = OptionalCount(j, "model_bytes");
  report.input_bytes = OptionalCount(j, "input_bytes");
  report.inputs = j.value("inputs", "");
  report.passes = j.value("passes", "");
  report.unverified_reason = j.value("unverified_reason", "");
  if (absl::Status read = ReadQuantities(j, report); !read.ok()) return read;
  if (absl::Status read = ReadCeilings(j, report); !read.ok()) return read;
  report.nodes.reserve(j.at("nodes").size());
  for (const Json& node : j.at("nodes")) report.nodes.push_back(NodeFromJson(node, report, version));
  for (NodeRecord& node : report.nodes) report.FitNode(node);
  report.memory = MemorySummaryFromJson(j);
  if (j.contains("ir")) {
    for (const Json& line : j.at("ir")) report.ir.push_back(IrLine{line.at(0).get<std::string>(), line.at(1).get<int>()});
  }
  report.events = EventsFromJson(j, "events");
  report.backward_events = EventsFromJson(j, "backward_events");
  report.dropped_events = j.value("dropped_events", int64_t{0});
  ReadDevice(j, report);
  report.notes = j.value("notes", std::vector<std::string>{});
  report.machine = MachineFromJson(j);
  return ReadRunSources(j, report);
}

// Parses `text`; `padded`: kJsonPadding readable bytes follow it, so
// simdjson reads it in place instead of from a padded copy.
absl::StatusOr<Report> ParseReport(absl::string_view text, bool padded_in_place) {
  static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "simdjson reads further past the text");
  // The parser and its tape live while the report is read. A thread keeps
  // its parser for reports up to 16 MB, so that reading many (merge) reuses
  // the tape's memory instead of faulting in a new one each time; a bigger
  // report gets a parser of its own, freed afterwards.
  // (A parser holds several times the document: 16 MB keeps it near 200 MB.)
  // Text without padding is copied into a padded buffer, kept the same way:
  // a fresh 10 MB buffer per report cost more in page faults than the copy.
  constexpr size_t kKeptParserBytes = size_t{16} << 20;
  thread_local dom::parser kept;
  thread_local std::vector<char> kept_text;
  std::optional<dom::parser> own;
  std::vector<char> own_text;
  const bool keep = text.size() <= kKeptParserBytes;
  dom::parser& parser = keep ? kept : own.emplace();
  dom::element root;
  // A UTF-8 byte order mark (editors write one) is not JSON; skip it.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const char* data = text.data();
  if (!padded_in_place) {
    std::vector<char>& padded = keep ? kept_text : own_text;
    if (padded.size() < text.size() + simdjson::SIMDJSON_PADDING) padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
    std::copy(text.begin(), text.end(), padded.begin());
    std::fill_n(padded.begin() + text.size(), simdjson::SIMDJSON_PADDING, '\0');
    data = padded.data();
  }
  if (const simdjson::error_code error = parser.parse(data, text.size(), false).get(root);
      error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("report is not valid JSON (", simdjson::error_message(error), ")"));
  }
  const Json j(root, "");
  try {
    json_internal::RefuseDuplicateKeys(root);
    if (j.is_object() && !j.contains("schema_version") && j.contains("a") && j.contains("b") && j.contains("diff")) {
      return absl::InvalidArgumentError(
          "an A/B output (two reports, 'a' and 'b', and their diff), not one report: profile one side, or take "
          "one out (jq .b)");
    }
    if (j.is_object() && !j.contains("schema_version") && j.contains("offenders") && j.contains("diff")) {
      return absl::InvalidArgumentError("a `profile_graph check` output, not a report");
    }
    if (!j.is_object() || !j.contains("schema_version")) {
      return absl::InvalidArgumentError("not a graphprof report (no schema_version)");
    }
    const int version = j.at("schema_version").get<int>();
    if (version < 1 || version > Report::kSchemaVersion) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported report schema_version ", version,
                                                     " (this graphprof reads 1 to ", Report::kSchemaVersion, ")"));
    }
    Report report;
    if (absl::Status read = ReadReport(j, version, report); !read.ok()) return read;
    if (absl::Status valid = ValidateReport(report); !valid.ok()) return valid;
    report.Finalize();
    return report;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed report JSON: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<Report> ReportFromJson(absl::string_view json) { return ParseReport(json, false); }

absl::StatusOr<Report> ReportFromPaddedJson(absl::string_view json) { return ParseReport(json, true); }

}  // namespace graphprof
