#include "profilers/report/html_timeline.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "profilers/report/views.h"

namespace graphprof::html_internal {
namespace {

// One lane: a run source's first timed run.
struct Lane {
  std::string label;
  int run = 0;
  int source = 0;
  std::vector<const TraceEvent*> events;
};

// The lanes of a merged report (html_timeline.h); fewer than two: none.
std::vector<Lane> LanesOf(const Report& report) {
  std::vector<Lane> lanes;
  if (report.run_sources.size() < 2 || report.run_start_ns.size() != static_cast<size_t>(report.runs)) return lanes;
  std::vector<int> lane_of_run(report.runs, -1);
  for (size_t s = 0; s < report.run_sources.size(); ++s) {
    const RunSource& source = report.run_sources[s];
    if (source.runs <= 0 || source.first_run < 0 || source.first_run >= report.runs) continue;
    lane_of_run[source.first_run] = static_cast<int>(lanes.size());
    lanes.push_back(Lane{source.rank >= 0 ? absl::StrCat("rank ", source.rank) : source.name, source.first_run,
                         static_cast<int>(s), {}});
  }
  const int nodes = static_cast<int>(report.nodes.size());
  for (const TraceEvent& e : report.events) {
    if (e.node < 0 || e.node >= nodes || e.run < 0 || e.run >= report.runs || lane_of_run[e.run] < 0) continue;
    lanes[lane_of_run[e.run]].events.push_back(&e);
  }
  lanes.erase(std::remove_if(lanes.begin(), lanes.end(), [](const Lane& l) { return l.events.empty(); }), lanes.end());
  if (lanes.size() < 2) lanes.clear();
  return lanes;
}

// The nodes on which each run source is called a straggler in the node
// view (none without one).
std::vector<std::vector<int64_t>> StragglerNodes(const Report& report, const View* nodes) {
  std::vector<std::vector<int64_t>> by_source(report.run_sources.size());
  if (nodes == nullptr) return by_source;
  for (const ViewRow& row : nodes->rows) {
    const ViewRow::Straggler s = row.straggler();
    if (s.source >= 0 && s.source < static_cast<int>(by_source.size())) by_source[s.source].push_back(row.id);
  }
  return by_source;
}

void WriteLanes(JsonWriter& w, const Report& report, const std::vector<Lane>& lanes, const View* nodes) {
  const std::vector<std::vector<int64_t>> stragglers = StragglerNodes(report, nodes);
  int64_t longest = 0;
  for (const Lane& lane : lanes) longest = std::max(longest, report.run_ns()[lane.run]);
  w.BeginObject();
  w.Key("run"); w.Null();
  w.Key("duration_ns"); w.Int(longest);
  w.Key("lanes");
  w.BeginArray();
  for (const Lane& lane : lanes) {
    w.BeginObject();
    w.Key("label"); w.String(lane.label);
    w.Key("run"); w.Int(lane.run);
    w.Key("duration_ns"); w.Int(report.run_ns()[lane.run]);
    w.Key("stragglers"); w.IntArray(stragglers[lane.source]);
    w.EndObject();
  }
  w.EndArray();
  std::vector<std::pair<const TraceEvent*, int>> events;
  for (size_t l = 0; l < lanes.size(); ++l) {
    for (const TraceEvent* e : lanes[l].events) events.emplace_back(e, static_cast<int>(l));
  }
  w.Key("events");
  w.Tuples(events, [&](const std::pair<const TraceEvent*, int>& x) {
    const TraceEvent& e = *x.first;
    w.Int(e.node);
    w.Int(e.start_ns - report.run_start_ns[e.run]);
    w.Int(e.duration_ns);
    w.Int(report.nodes[e.node].identity.depth);
    w.Int(x.second);
  });
  w.Key("memory"); w.Null();
  w.Key("peak"); w.Null();
  w.EndObject();
}

}  // namespace

void WriteTimeline(JsonWriter& w, const Report& report, const View* nodes) {
  if (report.run_ns().empty() || report.events.empty()) return w.Null();
  if (const std::vector<Lane> lanes = LanesOf(report); !lanes.empty()) return WriteLanes(w, report, lanes, nodes);
  const int64_t origin = report.run_start_ns.empty() ? 0 : report.run_start_ns[0];
  std::vector<const TraceEvent*> first_run;
  for (const TraceEvent& e : report.events) {
    if (e.run == 0 && e.node >= 0 && e.node < static_cast<int>(report.nodes.size())) first_run.push_back(&e);
  }
  w.BeginObject();
  w.Key("run"); w.Int(0);
  w.Key("duration_ns"); w.Int(report.run_ns()[0]);
  w.Key("events");
  w.Tuples(first_run, [&](const TraceEvent* e) {
    w.Int(e->node);
    w.Int(e->start_ns - origin);
    w.Int(e->duration_ns);
    w.Int(report.nodes[e->node].identity.depth);
  });
  // The inspection run's live bytes, one point per node execution in
  // completion order, which is the order run 0's events were recorded in.
  const std::vector<MemoryPoint>* timeline = report.memory.has_value() ? &report.memory->timeline : nullptr;
  bool aligned = timeline != nullptr && timeline->size() == first_run.size();
  for (size_t k = 0; aligned && k < first_run.size(); ++k) aligned = first_run[k]->node == (*timeline)[k].node;
  w.Key("memory");
  w.OrNull(aligned, [&] {
    size_t k = 0;
    w.Tuples(first_run, [&](const TraceEvent* e) {
      w.Int(e->start_ns + e->duration_ns - origin);
      w.Int((*timeline)[k++].live_bytes);
    });
  });
  w.Key("peak");
  const auto peak = !aligned ? first_run.end() : std::find_if(first_run.begin(), first_run.end(), [&](const TraceEvent* e) {
    return e->node == report.memory->peak_node;
  });
  const TraceEvent* peak_event = peak != first_run.end() ? *peak : nullptr;
  w.OrNull(peak_event != nullptr, [&] {
    w.BeginObject();
    w.Key("t_ns"); w.Int(peak_event->start_ns + peak_event->duration_ns / 2 - origin);
    w.Key("bytes"); w.Int(report.memory->peak_bytes);
    w.Key("node"); w.Int(peak_event->node);
    w.EndObject();
  });
  w.EndObject();
}

}  // namespace graphprof::html_internal
