// ValidateReport (report_checks.h).
#include "profilers/report/report_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
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
  Magnitudes backward_events, gradient_bytes;
  const size_t columns = report.columns.size();
  std::vector<Magnitudes> values(columns), run_total(columns);
  for (const NodeRecord& node : report.nodes) {
    calls.Add(node.calls);
    for (size_t c = 0; c < columns && c < node.metrics.size() && c < node.quantities.size(); ++c) {
      const Column& column = report.columns[c];
      if (column.per_run()) {
        values[c].Add(node.metrics[c].total);
        values[c].Add(node.metrics[c].self);
      } else if (column.memory) {  // integers of at most 2^53 (CheckNodes)
        values[c].Add(static_cast<int64_t>(node.quantities[c]));
      }
    }
    for (const auto& kernel : node.top_kernels) kernels.Add(kernel.second);
  }
  for (size_t c = 0; c < columns; ++c) {
    run_total[c].Add(report.columns[c].run_total);
    run_total[c].Add(report.columns[c].unattributed);
  }
  run_start.Add(report.run_start_ns);
  auto add_events = [](Magnitudes& to, const auto& events) {
    for (const auto& e : events) {
      to.Add(e.start_ns);
      to.Add(e.duration_ns);
    }
  };
  add_events(events, report.events);
  add_events(backward_events, report.backward_events);
  add_events(device_events, report.device_events);
  for (const ModuleBytes& g : report.gradient_bytes) gradient_bytes.Add(g.bytes);
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    for (int64_t v : {m.peak_bytes, m.allocated_bytes, m.freed_bytes, m.allocations, m.backward_peak_bytes,
                      m.saved_bytes}) {
      timeline.Add(v);
    }
    for (const MemoryPoint& p : m.timeline) timeline.Add(p.live_bytes);
  }
  for (size_t c = 0; c < columns; ++c) {
    const Column& column = report.columns[c];
    const std::string name = column.per_run() ? absl::StrCat("'", column.name, "'") : column.name;
    if (absl::Status s = values[c].Check(name); !s.ok()) return s;
    if (absl::Status s = run_total[c].Check(absl::StrCat(name, " run totals")); !s.ok()) return s;
  }
  for (const auto& [magnitudes, what] : {std::pair{&calls, "calls"}, {&run_start, "run_start_ns"}, {&events, "events"},
                                         {&device_events, "device_events"}, {&timeline, "memory"},
                                         {&backward_events, "backward_events"}, {&gradient_bytes, "gradient_bytes"},
                                         {&kernels, "top_kernels"}}) {
    if (absl::Status s = magnitudes->Check(what); !s.ok()) return s;
  }
  return absl::OkStatus();
}

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

absl::Status Invalid(absl::string_view what) { return absl::InvalidArgumentError(what); }

// Every value of `values` is 0 or more; else a sentence naming `what`.
absl::Status NonNegative(const std::vector<int64_t>& values, const std::function<std::string()>& what) {
  for (size_t r = 0; r < values.size(); ++r) {
    if (values[r] < 0) return Invalid(absl::StrCat(what(), " is negative (", values[r], " in run ", r, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckNodes(const Report& report) {
  const int n = static_cast<int>(report.nodes.size());
  for (int i = 0; i < n; ++i) {
    const NodeRecord& node = report.nodes[i];
    const NodeIdentity& id = node.identity;
    if (id.id != i) return Invalid(absl::StrCat("report node ", i, " has id ", id.id));
    if (id.parent < -1 || id.parent >= i) {
      return Invalid(absl::StrCat("report node ", i, " has parent ", id.parent, " (parents come before their children)"));
    }
    const int depth = id.parent < 0 ? 0 : report.nodes[id.parent].identity.depth + 1;
    if (id.depth != depth) {
      return Invalid(absl::StrCat("report node ", i, " has depth ", id.depth, " (its parent's depth + 1 is ", depth, ")"));
    }
    if (node.calls.size() != static_cast<size_t>(report.runs)) {
      return Invalid(absl::StrCat("report node ", i, " has ", node.calls.size(), " call counts for ", report.runs, " runs"));
    }
    if (absl::Status s = NonNegative(node.calls, [&] { return absl::StrCat("report node ", i, "'s call count"); }); !s.ok()) {
      return s;
    }
    for (size_t c = 0; c < report.columns.size(); ++c) {
      const Column& column = report.columns[c];
      if (column.per_run()) {
        const std::vector<int64_t>& recorded = node.metrics[c].recorded(column);
        // The time of every node is measured in every run; other metrics may
        // be absent on a node (no device work, no autograd function).
        if ((c == 0 || !recorded.empty()) && recorded.size() != static_cast<size_t>(report.runs)) {
          return Invalid(absl::StrCat("report node ", i, " has ", recorded.size(), " values of '", column.name,
                                      "' for ", report.runs, " runs"));
        }
        auto what = [&] { return absl::StrCat("report node ", i, "'s '", column.name, "'"); };
        if (absl::Status st = NonNegative(recorded, what); !st.ok()) return st;
        continue;
      }
      // Work: a count, finite, 0 or more. Memory: bytes relative to the
      // run's start, an integer a double holds exactly.
      const double v = node.quantities[c];
      if (column.memory ? !(std::fabs(v) <= kMaxExactInteger && v == std::trunc(v)) : !(std::isfinite(v) && v >= 0)) {
        return Invalid(absl::StrCat("report node ", i, "'s '", column.name, "' is ", v,
                                    column.memory ? " (an integer of magnitude 2^53 at most)"
                                                  : " (a count: finite, 0 or more)"));
      }
    }
    for (const auto& [name, ns] : node.top_kernels) {
      if (ns < 0) return Invalid(absl::StrCat("report node ", i, "'s kernel time is negative"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckMetrics(const Report& report) {
  const size_t runs = static_cast<size_t>(report.runs);
  for (const Column& m : report.columns) {
    if (m.name.empty()) return Invalid("report has a metric without a name");
    if (!m.per_run()) continue;
    for (const auto& [values, what] : {std::pair{&m.run_total, "run totals"}, {&m.unattributed, "unattributed values"}}) {
      if (!values->empty() && values->size() != runs) {
        return Invalid(absl::StrCat("report metric '", m.name, "' has ", values->size(), " ", what, " for ", runs, " runs"));
      }
      // A copy: a lambda may not capture a structured binding before C++20
      // (clang 14, the fuzzers' compiler, refuses it).
      const char* const named = what;
      if (absl::Status s = NonNegative(*values, [&] { return absl::StrCat("report metric '", m.name, "''s ", named); });
          !s.ok()) {
        return s;
      }
    }
  }
  if (report.run_ns().size() != runs) {
    return Invalid(absl::StrCat("report has ", report.run_ns().size(), " run times for ", runs, " runs"));
  }
  if (std::all_of(report.run_ns().begin(), report.run_ns().end(), [](int64_t v) { return v == 0; })) {
    return Invalid("report's run times are all 0: nothing was measured");
  }
  // The top-level nodes run inside the run, one after another: together
  // they cannot take longer than it. Compensation takes at least as much off
  // the run as off its nodes; kCoverageSlack allows for clocks that are read
  // apart (a merged report's runs are each one process's).
  const Column& time = report.columns[0];
  for (size_t r = 0; r < runs; ++r) {
    int64_t top = 0;
    for (const NodeRecord& node : report.nodes) {
      if (node.identity.parent < 0) top += node.time().total[r];
    }
    const double limit = static_cast<double>(time.run_total[r]) * (1 + kCoverageSlack) + kCoverageSlackNs;
    if (static_cast<double>(top) > limit) {
      return Invalid(absl::StrCat("report's top-level nodes take ", top, " ns in run ", r, ", more than the run's ",
                                  time.run_total[r], " ns"));
    }
  }
  if (!report.run_start_ns.empty() && report.run_start_ns.size() != runs) {
    return Invalid(absl::StrCat("report has ", report.run_start_ns.size(), " run starts for ", runs, " runs"));
  }
  return absl::OkStatus();
}

absl::Status CheckScalars(const Report& report) {
  for (const auto& [value, what] : {std::pair{report.timer_overhead_ns, "timer_overhead_ns"},
                                    {report.timer_inner_ns, "timer_inner_ns"},
                                    {report.timer_block_ns, "timer_block_ns"}}) {
    if (!(std::isfinite(value) && value >= 0)) return Invalid(absl::StrCat("report's ", what, " is ", value));
  }
  if (report.warmup < 0) return Invalid("report has a negative warm-up count");
  for (const ModuleBytes& g : report.gradient_bytes) {
    if (g.bytes < 0) return Invalid("report's gradient bytes are negative");
  }
  if (report.ceilings.has_value()) {
    const Ceilings& c = *report.ceilings;
    for (const auto& [value, what] : {std::pair{c.peak_gflops, "peak_gflops"}, {c.peak_gbps, "peak_gbps"},
                                      {c.blas_gflops, "blas_gflops"}, {c.conv_gflops, "conv_gflops"}}) {
      if (value != -1 && !PlausibleCeiling(value)) {
        return Invalid(absl::StrCat("report's ", what, " is ", value, " (a ceiling is ", kMinCeiling, " to ", kMaxCeiling,
                                    ", or -1: unknown)"));
      }
    }
  }
  const int n = static_cast<int>(report.nodes.size());
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    if (m.peak_node < -1 || m.peak_node >= n || m.backward_peak_node < -1 || m.backward_peak_node >= n) {
      return Invalid("report's memory peak names a node that does not exist");
    }
    for (const MemoryPoint& p : m.timeline) {
      if (p.node < 0 || p.node >= n) return Invalid(absl::StrCat("report's memory timeline names node ", p.node));
    }
    // Report::training_steps() decides what a training step shows; its
    // memory fields come with it (BackwardPass writes both).
    if (m.backward != report.training_steps()) {
      return Invalid(m.backward ? "report's memory has backward fields, but its runs are not training steps"
                                : "report's runs are training steps, but its memory has no backward fields");
    }
  }
  // Merged reports: each source's runs, in order, none twice.
  int next = 0;
  for (const RunSource& s : report.run_sources) {
    if (s.runs < 0 || s.first_run < next || s.first_run > report.runs - s.runs) {
      return Invalid(absl::StrCat("report run source '", s.name, "' is out of range or overlaps another"));
    }
    next = s.first_run + s.runs;
  }
  return absl::OkStatus();
}

}  // namespace

bool PlausibleCeiling(double value) { return std::isfinite(value) && value >= kMinCeiling && value <= kMaxCeiling; }

absl::Status ValidateReport(const Report& report) {
  if (report.runs < 1) {
    return Invalid(absl::StrCat("report has ", report.runs, " timed runs: nothing was measured (a report needs 1 or more)"));
  }
  if (report.nodes.empty()) return Invalid("report has no nodes");
  if (report.columns.empty() || !report.columns[0].per_run() || report.columns[0].name != "time") {
    return Invalid("report metrics must start with 'time'");
  }
  for (const NodeRecord& node : report.nodes) {
    if (node.metrics.size() != report.columns.size() || node.quantities.size() != report.columns.size()) {
      return Invalid("report node has a value per column missing");
    }
  }
  // In this order: each check relies on the ones before it (lengths, then
  // magnitudes that cannot overflow a sum, then sums).
  if (absl::Status s = CheckNodes(report); !s.ok()) return s;
  if (absl::Status s = CheckMagnitudes(report); !s.ok()) return s;
  if (absl::Status s = CheckMetrics(report); !s.ok()) return s;
  return CheckScalars(report);
}

}  // namespace graphprof
