#include "profilers/chrome_trace.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace graphprof {

std::string RenderChromeTrace(const Report& report) {
  using nlohmann::json;
  constexpr int kPid = 1;
  constexpr int kHostTid = 1;
  constexpr int kDeviceTid = 2;
  json events = json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", kPid},
                    {"args", {{"name", absl::StrCat("graphprof: ", report.model)}}}});
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", kPid}, {"tid", kHostTid},
                    {"args", {{"name", "host (interpreter)"}}}});
  for (size_t r = 0; r < report.run_ns.size() && r < report.run_start_ns.size(); ++r) {
    events.push_back({{"name", absl::StrCat("run ", r)},
                      {"cat", "run"},
                      {"ph", "X"},
                      {"ts", report.run_start_ns[r] / 1e3},
                      {"dur", report.run_ns[r] / 1e3},
                      {"pid", kPid},
                      {"tid", kHostTid},
                      {"args", {{"run", r}}}});
  }
  for (const TraceEvent& e : report.events) {
    if (e.node < 0 || e.node >= static_cast<int>(report.nodes.size())) continue;
    const NodeRecord& node = report.nodes[e.node];
    events.push_back({{"name", node.identity.label},
                      {"cat", "node"},
                      {"ph", "X"},
                      {"ts", e.start_ns / 1e3},
                      {"dur", e.duration_ns / 1e3},
                      {"pid", kPid},
                      {"tid", kHostTid},
                      {"args",
                       {{"id", e.node},
                        {"kind", node.identity.kind},
                        {"module", node.identity.module},
                        {"shapes", node.input_shapes},
                        {"source", node.identity.source},
                        {"run", e.run}}}});
  }
  // Live bytes as a counter track over the first timed run. The memory
  // timeline comes from the inspection run, one point per node execution in
  // completion order, which is the order run 0's events were recorded in; it
  // is drawn only when the two runs executed the same nodes.
  if (report.memory.has_value()) {
    std::vector<const TraceEvent*> first_run;
    for (const TraceEvent& e : report.events) {
      if (e.run == 0) first_run.push_back(&e);
    }
    const std::vector<MemoryPoint>& timeline = report.memory->timeline;
    bool aligned = first_run.size() == timeline.size();
    for (size_t k = 0; aligned && k < timeline.size(); ++k) aligned = first_run[k]->node == timeline[k].node;
    for (size_t k = 0; aligned && k < timeline.size(); ++k) {
      events.push_back({{"name", "live bytes (inspection run)"},
                        {"ph", "C"},
                        {"ts", (first_run[k]->start_ns + first_run[k]->duration_ns) / 1e3},
                        {"pid", kPid},
                        {"args", {{"live_bytes", timeline[k].live_bytes}}}});
    }
  }
  if (!report.device_events.empty()) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", kPid}, {"tid", kDeviceTid},
                      {"args", {{"name", absl::StrCat("device ", report.device)}}}});
  }
  for (const DeviceEvent& e : report.device_events) {
    json args{{"kind", e.kind}, {"run", e.run}, {"node", e.node}};
    if (e.node >= 0 && e.node < static_cast<int>(report.nodes.size())) {
      args["node_name"] = report.nodes[e.node].identity.label;
    }
    events.push_back({{"name", e.name},
                      {"cat", "device"},
                      {"ph", "X"},
                      {"ts", e.start_ns / 1e3},
                      {"dur", e.duration_ns / 1e3},
                      {"pid", kPid},
                      {"tid", kDeviceTid},
                      {"args", args}});
  }
  json trace{{"traceEvents", events},
             {"displayTimeUnit", "ns"},
             {"otherData",
              {{"model", report.model}, {"clock", report.clock}, {"runs", report.runs},
               {"dropped_events", report.dropped_events}}}};
  return trace.dump() + "\n";
}

}  // namespace graphprof
