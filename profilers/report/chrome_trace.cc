#include "profilers/report/chrome_trace.h"

#include "absl/strings/str_cat.h"
#include "profilers/report/json_writer.h"

namespace graphprof {
namespace {

constexpr int kPid = 1;
constexpr int kHostTid = 1;
constexpr int kDeviceTid = 2;
constexpr int kBackwardTid = 3;

void Metadata(JsonWriter& w, const char* what, int tid, const std::string& name) {
  w.Newline();
  w.BeginObject();
  w.Key("name"); w.String(what);
  w.Key("ph"); w.String("M");
  w.Key("pid"); w.Int(kPid);
  if (tid > 0) {
    w.Key("tid"); w.Int(tid);
  }
  w.Key("args");
  w.BeginObject();
  w.Key("name"); w.String(name);
  w.EndObject();
  w.EndObject();
}

// A complete event, its args object's members written by `args`.
template <typename Args>
void Complete(JsonWriter& w, absl::string_view name, const char* category, int tid, int64_t start_ns,
              int64_t duration_ns, Args&& args) {
  w.Newline();
  w.BeginObject();
  w.Key("name"); w.String(name);
  w.Key("cat"); w.String(category);
  w.Key("ph"); w.String("X");
  w.Key("ts"); w.Micros(start_ns);
  w.Key("dur"); w.Micros(duration_ns);
  w.Key("pid"); w.Int(kPid);
  w.Key("tid"); w.Int(tid);
  w.Key("args");
  w.BeginObject();
  args();
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::string RenderChromeTrace(const Report& report) {
  TextSink sink;
  sink.buffer()->reserve(256 + report.events.size() * 160);
  StreamChromeTrace(report, sink);
  return sink.Take();
}

void StreamChromeTrace(const Report& report, TextSink& sink) {
  JsonWriter w(&sink);
  w.BeginObject();
  w.Key("traceEvents");
  w.BeginArray();
  Metadata(w, "process_name", 0, absl::StrCat("graphprof: ", report.model));
  Metadata(w, "thread_name", kHostTid, "host (interpreter)");
  const std::vector<int64_t>& run_ns = report.run_ns();
  for (size_t r = 0; r < run_ns.size() && r < report.run_start_ns.size(); ++r) {
    Complete(w, absl::StrCat("run ", r), "run", kHostTid, report.run_start_ns[r], run_ns[r],
             [&] { w.Key("run"); w.Int(static_cast<int64_t>(r)); });
  }
  const int num_nodes = static_cast<int>(report.nodes.size());
  for (const TraceEvent& e : report.events) {
    if (e.node < 0 || e.node >= num_nodes) continue;
    const NodeRecord& node = report.nodes[e.node];
    Complete(w, node.identity.label, "node", kHostTid, e.start_ns, e.duration_ns, [&] {
      w.Key("id"); w.Int(e.node);
      w.Key("kind"); w.String(node.identity.kind);
      w.Key("module"); w.String(node.identity.module);
      w.Key("run"); w.Int(e.run);
    });
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
      w.Newline();
      w.BeginObject();
      w.Key("name"); w.String("live bytes (inspection run)");
      w.Key("ph"); w.String("C");
      w.Key("ts"); w.Micros(first_run[k]->start_ns + first_run[k]->duration_ns);
      w.Key("pid"); w.Int(kPid);
      w.Key("args");
      w.BeginObject();
      w.Key("live_bytes"); w.Int(timeline[k].live_bytes);
      w.EndObject();
      w.EndObject();
    }
  }
  // Backward: each autograd function, named after the node that created it.
  if (!report.backward_events.empty()) Metadata(w, "thread_name", kBackwardTid, "backward (autograd functions)");
  for (const TraceEvent& e : report.backward_events) {
    const bool ours = e.node >= 0 && e.node < num_nodes;
    Complete(w, ours ? absl::StrCat(report.nodes[e.node].identity.label, " (backward)") : "(unattributed backward)",
             "backward", kBackwardTid, e.start_ns, e.duration_ns, [&] {
               w.Key("node"); w.Int(ours ? e.node : -1);
               if (ours) {
                 w.Key("kind"); w.String(report.nodes[e.node].identity.kind);
                 w.Key("module"); w.String(report.nodes[e.node].identity.module);
               }
               w.Key("run"); w.Int(e.run);
             });
  }
  if (!report.device_events.empty()) Metadata(w, "thread_name", kDeviceTid, absl::StrCat("device ", report.device));
  for (const DeviceEvent& e : report.device_events) {
    Complete(w, e.name, "device", kDeviceTid, e.start_ns, e.duration_ns, [&] {
      w.Key("kind"); w.String(e.kind);
      w.Key("run"); w.Int(e.run);
      w.Key("node"); w.Int(e.node);
      if (e.node >= 0 && e.node < num_nodes) {
        w.Key("node_name"); w.String(report.nodes[e.node].identity.label);
      }
    });
  }
  w.EndArray();
  w.Key("displayTimeUnit"); w.String("ns");
  w.Key("otherData");
  w.BeginObject();
  w.Key("model"); w.String(report.model);
  w.Key("clock"); w.String(report.clock);
  w.Key("runs"); w.Int(report.runs);
  w.Key("dropped_events"); w.Int(report.dropped_events);
  w.EndObject();
  w.EndObject();
  sink.Append("\n");
}

}  // namespace graphprof
