#include "profilers/report/report.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "profilers/report/stats.h"

namespace graphprof {
namespace {

Metric TimeMetric() {
  Metric m;
  m.name = "time";
  m.description = "host time (wall clock around each node)";
  m.unit = Metric::Unit::kNanoseconds;
  m.recorded = Metric::Recorded::kInclusive;
  return m;
}

// Children come after their parent in id order, so one pass from the last
// node to the first sees every node's children before the node itself.
void DeriveSeries(std::vector<NodeRecord>& nodes, size_t m, Metric::Recorded recorded) {
  const int n = static_cast<int>(nodes.size());
  const bool from_total = recorded == Metric::Recorded::kInclusive;
  for (NodeRecord& node : nodes) {
    Series& s = node.metrics[m];
    if (from_total) {
      s.self = s.total;
    } else {
      s.total = s.self;
    }
  }
  for (int id = n - 1; id >= 0; --id) {
    const int parent = nodes[id].identity.parent;
    if (parent < 0 || parent >= id) continue;
    Series& p = nodes[parent].metrics[m];
    const Series& c = nodes[id].metrics[m];
    if (from_total) {
      for (size_t r = 0; r < p.self.size() && r < c.total.size(); ++r) p.self[r] -= c.total[r];
    } else {
      AddPerRun(p.total, c.total);
    }
  }
  // Clock jitter can leave a parent a few ns short of its children.
  if (from_total) {
    for (NodeRecord& node : nodes) {
      for (int64_t& v : node.metrics[m].self) v = std::max<int64_t>(v, 0);
    }
  }
}

// A node's self value of each quantity, by its scope (Quantity::Scope).
void DeriveSelfQuantities(std::vector<NodeRecord>& nodes, const std::vector<Quantity>& quantities) {
  for (NodeRecord& node : nodes) node.self_quantities = node.quantities;
  for (const NodeRecord& node : nodes) {
    const int parent = node.identity.parent;
    if (parent < 0 || parent >= static_cast<int>(nodes.size())) continue;
    std::vector<double>& p = nodes[parent].self_quantities;
    for (size_t q = 0; q < quantities.size(); ++q) {
      if (quantities[q].scope == Quantity::Scope::kInclusive) p[q] -= node.quantities[q];
      if (quantities[q].scope == Quantity::Scope::kBlocksOwnAll) p[q] = 0;
    }
  }
}

}  // namespace

const std::vector<Quantity>& MemoryQuantities() {
  using S = Quantity::Scope;
  constexpr auto kBytes = Quantity::Unit::kBytes;
  static const std::vector<Quantity> quantities = {
      {"allocated_bytes", "bytes allocated while it ran", kBytes, S::kInclusive, true, "alloc", true, true},
      {"freed_bytes", "bytes freed while it ran (its dead inputs included)", kBytes, S::kInclusive, true},
      {"allocations", "allocations while it ran", Quantity::Unit::kCount, S::kInclusive, true},
      {"peak_bytes", "highest live bytes while it ran", kBytes, S::kLevel, true, "peak"},
      {"live_after_bytes", "live bytes right after it", kBytes, S::kLevel, true},
      {"output_bytes", "bytes of its outputs, each storage once", kBytes, S::kBlocksOwnAll, true, "output"},
      // Training steps: bytes it allocated in forward that were still alive
      // when forward ended and were freed by backward, i.e. kept for
      // backward (saved activations and the autograd graph's buffers).
      {"saved_bytes", "bytes it kept for backward (training steps)", kBytes, S::kInclusive, true, "saved", true,
       false, true},
  };
  return quantities;
}

bool HasMemoryColumn(const Report& report, const Quantity& q) {
  const int index = report.FindQuantity(q.name);
  return q.memory && !q.heading.empty() && report.memory.has_value() && index >= 0 &&
         report.quantities[index].memory && (!q.training_only || report.memory->backward);
}

const char* UnitName(Unit unit) {
  switch (unit) {
    case Unit::kNanoseconds: return "ns";
    case Unit::kCount: return "count";
    case Unit::kFlops: return "flops";
    case Unit::kBytes: return "bytes";
  }
  return "count";
}

Unit UnitNamed(absl::string_view name, Unit otherwise) {
  for (Unit unit : {Unit::kNanoseconds, Unit::kCount, Unit::kFlops, Unit::kBytes}) {
    if (name == UnitName(unit)) return unit;
  }
  return otherwise;
}

bool NodeRecord::executed() const {
  for (int64_t c : calls) {
    if (c > 0) return true;
  }
  return false;
}

Report::Report() { metrics.push_back(TimeMetric()); }

int Report::AddMetric(Metric metric) {
  int index = FindMetric(metric.name);
  if (index < 0) {
    index = static_cast<int>(metrics.size());
    metrics.push_back(std::move(metric));
  }
  for (NodeRecord& node : nodes) {
    if (node.metrics.size() <= static_cast<size_t>(index)) node.metrics.resize(index + 1);
    std::vector<int64_t>& recorded = node.metrics[index].recorded(metrics[index]);
    if (recorded.size() < static_cast<size_t>(runs)) recorded.resize(runs, 0);
  }
  return index;
}

int Report::AddQuantity(Quantity quantity) {
  int index = FindQuantity(quantity.name);
  if (index < 0) {
    index = static_cast<int>(quantities.size());
    quantities.push_back(std::move(quantity));
  }
  for (NodeRecord& node : nodes) node.quantities.resize(quantities.size(), 0);
  return index;
}

bool Report::counts_work() const {
  return std::any_of(quantities.begin(), quantities.end(), [](const Quantity& q) { return !q.memory; });
}

bool Report::measures_memory() const {
  return std::any_of(quantities.begin(), quantities.end(), [](const Quantity& q) { return q.memory; });
}

void Report::DeclareMemory() {
  for (const Quantity& q : MemoryQuantities()) AddQuantity(q);
}

double Report::QuantityOf(const NodeRecord& node, int q) const {
  return q >= 0 && static_cast<size_t>(q) < node.quantities.size() ? node.quantities[q] : 0;
}

void Report::Finalize() {
  for (NodeRecord& node : nodes) {
    node.metrics.resize(metrics.size());
    node.quantities.resize(quantities.size(), 0);
  }
  for (size_t m = 0; m < metrics.size(); ++m) DeriveSeries(nodes, m, metrics[m].recorded);
  DeriveSelfQuantities(nodes, quantities);
  // Kinds whose work is not counted, by their share of the run (self time).
  uncounted.clear();
  if (counts_work()) {
    std::map<std::string, UncountedKind> kinds;
    for (const NodeRecord& node : nodes) {
      if (node.work_counted || !node.executed()) continue;
      UncountedKind& k = kinds[node.identity.kind];
      k.kind = node.identity.kind;
      ++k.nodes;
      k.percent += PercentOfRun(Mean(node.time().self));
    }
    for (auto& [kind, k] : kinds) uncounted.push_back(k);
    std::stable_sort(uncounted.begin(), uncounted.end(),
                     [](const UncountedKind& a, const UncountedKind& b) { return a.percent > b.percent; });
  }
}

double Report::total_us() const { return Mean(run_ns()) / 1e3; }

double Report::PercentOfRun(double ns) const {
  const double mean_run_ns = total_us() * 1e3;
  return mean_run_ns > 0 ? 100.0 * ns / mean_run_ns : 0;
}

double Report::PercentOf(int m, double value) const {
  if (m < 0 || m >= static_cast<int>(metrics.size())) return 0;
  const std::vector<int64_t>& run_total = metrics[m].run_total;
  double denominator = Mean(run_total);
  if (run_total.empty()) {
    for (const NodeRecord& node : nodes) {
      if (node.identity.parent < 0 && node.metrics.size() > static_cast<size_t>(m)) denominator += Mean(node.metrics[m].total);
    }
  }
  return denominator > 0 ? 100.0 * value / denominator : 0;
}

double Report::coverage() const { return CoverageOf(0); }

double Report::CoverageOf(int m) const {
  if (m < 0 || m >= static_cast<int>(metrics.size())) return 0;
  const std::vector<int64_t>& run_total = metrics[m].run_total;
  const std::vector<int64_t>& unattributed = metrics[m].unattributed;
  if (run_total.empty()) return 0;
  // Node by node, each run's sum in its own accumulator: the same additions
  // in the same order as run by run, but each node's series is read once,
  // in order (a merge of 64 reports: 640 runs x 10k nodes).
  std::vector<double> inside(run_total.size(), 0.0);
  for (size_t r = 0; r < run_total.size() && r < unattributed.size(); ++r) {
    inside[r] = static_cast<double>(unattributed[r]);
  }
  for (const NodeRecord& node : nodes) {
    if (node.identity.parent >= 0 || node.metrics.size() <= static_cast<size_t>(m)) continue;
    const std::vector<int64_t>& total = node.metrics[m].total;
    const size_t runs = std::min(total.size(), run_total.size());
    for (size_t r = 0; r < runs; ++r) inside[r] += static_cast<double>(total[r]);
  }
  double sum = 0;
  for (size_t r = 0; r < run_total.size(); ++r) {
    sum += run_total[r] > 0 ? inside[r] / static_cast<double>(run_total[r]) : 0;
  }
  return sum / static_cast<double>(run_total.size());
}

int64_t Report::executions_per_run() const {
  int64_t executions = 0;
  for (const NodeRecord& node : nodes) {
    if (!node.calls.empty()) executions += node.calls[0];
  }
  return executions;
}

void SetGradientVerification(Report& report, Verification v) {
  if (v.compared == 0) {
    report.gradient_verification.reset();
    report.notes.push_back(
        "gradients not verified: no parameter received a gradient in either run, so there was nothing to compare");
    return;
  }
  report.gradient_verification = std::move(v);
}

std::string GraphHash(const std::vector<IrLine>& ir) {
  uint64_t h = 1469598103934665603ull;
  for (const IrLine& line : ir) {
    // Addresses printed in the IR ("of Python compilation unit at: 0x7f...")
    // differ between processes: hash "0x" and skip the digits.
    const std::string& t = line.text;
    for (size_t i = 0; i < t.size(); ++i) {
      unsigned char c = t[i];
      h ^= c;
      h *= 1099511628211ull;
      if (c == 'x' && i > 0 && t[i - 1] == '0') {
        while (i + 1 < t.size() && absl::ascii_isxdigit(t[i + 1])) ++i;
      }
    }
    h ^= '\n';
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

std::string MachineWarning(const Report& base, const Report& current) {
  if (!base.machine.has_value() || !current.machine.has_value()) return "";
  const std::vector<std::string> fields = MachineDifferences(*base.machine, *current.machine);
  if (fields.empty()) return "";
  return absl::StrCat("the reports' machines differ in ", absl::StrJoin(fields, ", "), " (base: ",
                      FormatMachine(*base.machine), "; current: ", FormatMachine(*current.machine), ")");
}

}  // namespace graphprof
