// CheckStructure (report_checks.h).
#include "profilers/report/report_checks.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

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

}  // namespace

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

}  // namespace graphprof
