#include "profilers/report_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "profilers/stats.h"

namespace graphprof {
namespace {

using nlohmann::json;

json MemoryToJson(const NodeMemory& m) {
  return json{{"allocated_bytes", m.allocated_bytes}, {"freed_bytes", m.freed_bytes},
              {"allocations", m.allocations},         {"peak_bytes", m.peak_bytes},
              {"live_after_bytes", m.live_after_bytes}, {"output_bytes", m.output_bytes}};
}

NodeMemory MemoryFromJson(const json& j) {
  NodeMemory m;
  m.allocated_bytes = j.at("allocated_bytes").get<int64_t>();
  m.freed_bytes = j.at("freed_bytes").get<int64_t>();
  m.allocations = j.at("allocations").get<int64_t>();
  m.peak_bytes = j.at("peak_bytes").get<int64_t>();
  m.live_after_bytes = j.at("live_after_bytes").get<int64_t>();
  m.output_bytes = j.at("output_bytes").get<int64_t>();
  return m;
}

json NodeToJson(const Report& report, const NodeRecord& node) {
  const NodeIdentity& id = node.identity;
  const Summary time = Summarize(node.total_ns);
  const Summary self = Summarize(node.self_ns);
  int64_t calls = 0;
  for (int64_t c : node.calls) calls += c;
  json j{{"id", id.id},
         {"parent", id.parent},
         {"depth", id.depth},
         {"name", id.label},
         {"kind", id.kind},
         {"schema", id.schema},
         {"module", id.module},
         {"source", id.source},
         {"input_shapes", node.input_shapes},
         {"output_shapes", node.output_shapes},
         {"calls", node.calls},
         {"total_ns", node.total_ns},
         {"count", node.calls.empty() ? 0.0 : static_cast<double>(calls) / node.calls.size()},
         {"mean_us", time.mean / 1e3},
         {"std_us", time.std / 1e3},
         {"min_us", time.min / 1e3},
         {"median_us", time.median / 1e3},
         {"p90_us", time.p90 / 1e3},
         {"max_us", time.max / 1e3},
         {"self_us", self.mean / 1e3},
         {"percent", report.PercentOfRun(time.mean)}};
  if (node.memory.has_value()) j["memory"] = MemoryToJson(*node.memory);
  if (!node.device_ns.empty()) {
    j["device_ns"] = node.device_ns;
    j["device_us"] = Summarize(node.device_ns).mean / 1e3;
  }
  if (node.kernels.has_value()) {
    json top = json::array();
    for (const auto& [name, ns] : node.kernels->top) top.push_back({name, ns});
    j["kernels"] = json{{"count", node.kernels->count}, {"total_ns", node.kernels->total_ns}, {"top", top}};
  }
  return j;
}

NodeRecord NodeFromJson(const json& j) {
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
  node.input_shapes = j.value("input_shapes", "");
  node.output_shapes = j.value("output_shapes", "");
  node.calls = j.at("calls").get<std::vector<int64_t>>();
  node.total_ns = j.at("total_ns").get<std::vector<int64_t>>();
  if (j.contains("memory")) node.memory = MemoryFromJson(j.at("memory"));
  if (j.contains("device_ns")) node.device_ns = j.at("device_ns").get<std::vector<int64_t>>();
  if (j.contains("kernels")) {
    const json& k = j.at("kernels");
    KernelSummary kernels;
    kernels.count = k.at("count").get<int64_t>();
    kernels.total_ns = k.at("total_ns").get<int64_t>();
    for (const json& t : k.at("top")) kernels.top.emplace_back(t.at(0).get<std::string>(), t.at(1).get<int64_t>());
    node.kernels = kernels;
  }
  return node;
}

}  // namespace

std::string ReportToJson(const Report& report, int indent) {
  json nodes = json::array();
  for (const NodeRecord& node : report.nodes) nodes.push_back(NodeToJson(report, node));
  json events = json::array();
  for (const TraceEvent& e : report.events) events.push_back({e.node, e.run, e.start_ns, e.duration_ns});
  json memory = nullptr;
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    json timeline = json::array();
    for (const MemoryPoint& p : m.timeline) timeline.push_back({p.node, p.live_bytes});
    memory = json{{"peak_bytes", m.peak_bytes},           {"peak_node", m.peak_node},
                  {"allocated_bytes", m.allocated_bytes}, {"freed_bytes", m.freed_bytes},
                  {"allocations", m.allocations},         {"timeline", timeline}};
  }
  json j{{"schema_version", Report::kSchemaVersion},
         {"model", report.model},
         {"clock", report.clock},
         {"runs", report.runs},
         {"warmup", report.warmup},
         {"timer_overhead_ns", report.timer_overhead_ns},
         {"coverage", report.coverage()},
         {"total_us", report.total_us()},
         {"run_ns", report.run_ns},
         {"run_start_ns", report.run_start_ns},
         {"verified", report.verified.has_value() ? json(*report.verified) : json(nullptr)},
         {"parameters", report.parameters >= 0 ? json(report.parameters) : json(nullptr)},
         {"model_bytes", report.model_bytes >= 0 ? json(report.model_bytes) : json(nullptr)},
         {"input_bytes", report.input_bytes >= 0 ? json(report.input_bytes) : json(nullptr)},
         {"peak_bytes", report.memory.has_value() ? json(report.memory->peak_bytes) : json(nullptr)},
         {"memory", memory},
         {"nodes", nodes},
         {"events", events},
         {"dropped_events", report.dropped_events},
         {"device", report.device},
         {"device_note", report.device_note}};
  if (!report.device_events.empty()) {
    json device_events = json::array();
    for (const DeviceEvent& e : report.device_events) {
      device_events.push_back({e.node, e.run, e.name, e.kind, e.start_ns, e.duration_ns});
    }
    j["device_events"] = device_events;
  }
  return j.dump(indent) + "\n";
}

absl::StatusOr<Report> ReportFromJson(absl::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("report is not valid JSON");
  try {
    if (!j.is_object() || !j.contains("schema_version")) {
      return absl::InvalidArgumentError("not a graphprof report (no schema_version)");
    }
    const int version = j.at("schema_version").get<int>();
    if (version != Report::kSchemaVersion) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported report schema_version ", version,
                                                     " (this graphprof reads ", Report::kSchemaVersion, ")"));
    }
    Report report;
    report.model = j.at("model").get<std::string>();
    report.clock = j.value("clock", "steady_clock");
    report.runs = j.at("runs").get<int>();
    report.warmup = j.at("warmup").get<int>();
    report.timer_overhead_ns = j.at("timer_overhead_ns").get<double>();
    report.run_ns = j.at("run_ns").get<std::vector<int64_t>>();
    report.run_start_ns = j.value("run_start_ns", std::vector<int64_t>{});
    if (!j.at("verified").is_null()) report.verified = j.at("verified").get<bool>();
    auto optional_count = [&](const char* key) -> int64_t {
      return j.contains(key) && !j.at(key).is_null() ? j.at(key).get<int64_t>() : -1;
    };
    report.parameters = optional_count("parameters");
    report.model_bytes = optional_count("model_bytes");
    report.input_bytes = optional_count("input_bytes");
    for (const json& node : j.at("nodes")) report.nodes.push_back(NodeFromJson(node));
    for (size_t i = 0; i < report.nodes.size(); ++i) {
      if (report.nodes[i].identity.id != static_cast<int>(i)) {
        return absl::InvalidArgumentError(absl::StrCat("report node ", i, " has id ", report.nodes[i].identity.id));
      }
    }
    if (j.contains("memory") && !j.at("memory").is_null()) {
      const json& m = j.at("memory");
      MemorySummary memory;
      memory.peak_bytes = m.at("peak_bytes").get<int64_t>();
      memory.peak_node = m.at("peak_node").get<int>();
      memory.allocated_bytes = m.at("allocated_bytes").get<int64_t>();
      memory.freed_bytes = m.at("freed_bytes").get<int64_t>();
      memory.allocations = m.at("allocations").get<int64_t>();
      for (const json& p : m.at("timeline")) memory.timeline.push_back(MemoryPoint{p.at(0).get<int>(), p.at(1).get<int64_t>()});
      report.memory = memory;
    }
    if (j.contains("events")) {
      for (const json& e : j.at("events")) {
        report.events.push_back(TraceEvent{e.at(0).get<int32_t>(), e.at(1).get<int32_t>(),
                                           e.at(2).get<int64_t>(), e.at(3).get<int64_t>()});
      }
    }
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
    report.Finalize();
    return report;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed report JSON: ", e.what()));
  }
}

std::string Report::ToJson() const { return ReportToJson(*this); }

absl::StatusOr<Report> Report::FromJson(absl::string_view json) { return ReportFromJson(json); }

}  // namespace graphprof
