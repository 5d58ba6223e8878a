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

Column TimeMetric() {
  Column m;
  m.name = "time";
  m.description = "host time (wall clock around each node)";
  m.unit = Unit::kNanoseconds;
  m.scope = Column::Scope::kInclusive;
  return m;
}

// Children come after their parent in id order, so one pass from the last
// node to the first sees every node's children before the node itself.
void DeriveSeries(std::vector<NodeRecord>& nodes, size_t m, Column::Scope scope) {
  const int n = static_cast<int>(nodes.size());
  const bool from_total = scope != Column::Scope::kSelf;
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

// A node's self value of each quantity, by its scope (Column::Scope).
void DeriveSelfQuantities(std::vector<NodeRecord>& nodes, const std::vector<Column>& columns) {
  for (NodeRecord& node : nodes) node.self_quantities = node.quantities;
  for (const NodeRecord& node : nodes) {
    const int parent = node.identity.parent;
    if (parent < 0 || parent >= static_cast<int>(nodes.size())) continue;
    std::vector<double>& p = nodes[parent].self_quantities;
    for (size_t q = 0; q < columns.size(); ++q) {
      if (columns[q].per_run()) continue;
      if (columns[q].scope == Column::Scope::kInclusive) p[q] -= node.quantities[q];
      if (columns[q].scope == Column::Scope::kBlocksOwnAll) p[q] = 0;
    }
  }
}

}  // namespace

namespace {

// A memory quantity's declaration, by name: its table column and where the
// tables show it are said by what is called, not by position.
class MemoryQuantity {
 public:
  MemoryQuantity(const char* name, const char* description, Unit unit, Column::Scope scope) {
    column_.name = name;
    column_.description = description;
    column_.unit = unit;
    column_.scope = scope;
    column_.sampling = Column::Sampling::kOnce;
    column_.memory = true;
  }
  // Its column in the memory tables ("<heading>_bytes" in CSV and pandas).
  MemoryQuantity& Heading(const char* heading) {
    column_.heading = heading;
    return *this;
  }
  MemoryQuantity& OnSumsRows() {
    column_.in_sums = true;
    return *this;
  }
  // The module text view shows "self_<heading>" beside it.
  MemoryQuantity& WithModuleSelf() {
    column_.module_self = true;
    return *this;
  }
  // Measured in training steps only (Report::training_steps).
  MemoryQuantity& TrainingStepsOnly() {
    column_.training_only = true;
    return *this;
  }
  operator Column() const { return column_; }  // NOLINT: the list below reads as declarations

 private:
  Column column_;
};

}  // namespace

const std::vector<Column>& MemoryQuantities() {
  using S = Column::Scope;
  constexpr Unit kBytes = Unit::kBytes;
  static const std::vector<Column> quantities = {
      MemoryQuantity("allocated_bytes", "bytes allocated while it ran", kBytes, S::kInclusive)
          .Heading("alloc")
          .OnSumsRows()
          .WithModuleSelf(),
      MemoryQuantity("freed_bytes", "bytes freed while it ran (its dead inputs included)", kBytes, S::kInclusive),
      MemoryQuantity("allocations", "allocations while it ran", Unit::kCount, S::kInclusive),
      MemoryQuantity("peak_bytes", "highest live bytes while it ran", kBytes, S::kLevel).Heading("peak"),
      MemoryQuantity("live_after_bytes", "live bytes right after it", kBytes, S::kLevel),
      MemoryQuantity("output_bytes", "bytes of its outputs, each storage once", kBytes, S::kBlocksOwnAll)
          .Heading("output"),
      // Training steps: bytes it allocated in forward that were still alive
      // when forward ended and were freed by backward, i.e. kept for
      // backward (saved activations and the autograd graph's buffers).
      MemoryQuantity("saved_bytes", "bytes it kept for backward (training steps)", kBytes, S::kInclusive)
          .Heading("saved")
          .OnSumsRows()
          .TrainingStepsOnly(),
  };
  return quantities;
}

bool HasMemoryColumn(const Report& report, const Column& q) {
  const int index = report.FindQuantity(q.name);
  return q.memory && !q.heading.empty() && report.memory.has_value() && index >= 0 &&
         report.columns[index].memory && (!q.training_only || report.training_steps());
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

Report::Report() { columns.push_back(TimeMetric()); }

namespace {

std::vector<int> IndicesOf(const std::vector<Column>& columns, Column::Sampling sampling) {
  std::vector<int> indices;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].sampling == sampling) indices.push_back(static_cast<int>(c));
  }
  return indices;
}

int Find(const std::vector<Column>& columns, absl::string_view name, Column::Sampling sampling) {
  const int c = IndexByName(columns, name);
  return c >= 0 && columns[c].sampling == sampling ? c : -1;
}

}  // namespace

std::vector<int> Report::Metrics() const { return IndicesOf(columns, Column::Sampling::kPerRun); }
std::vector<int> Report::Quantities() const { return IndicesOf(columns, Column::Sampling::kOnce); }
int Report::FindMetric(absl::string_view name) const { return Find(columns, name, Column::Sampling::kPerRun); }
int Report::FindQuantity(absl::string_view name) const { return Find(columns, name, Column::Sampling::kOnce); }

void Report::FitNode(NodeRecord& node) const {
  node.metrics.resize(columns.size());
  node.quantities.resize(columns.size(), 0);
  if (!node.self_quantities.empty()) node.self_quantities.resize(columns.size(), 0);
}

namespace {

// Report::AddMetric and AddQuantity: `column` with `sampling`, or the
// column of its name (-1 if that one has the other sampling), fitted to
// every node.
int AddColumn(Report& report, Column column, Column::Sampling sampling) {
  int index = IndexByName(report.columns, column.name);
  if (index >= 0 && report.columns[index].sampling != sampling) return -1;
  if (index < 0) {
    index = static_cast<int>(report.columns.size());
    column.sampling = sampling;
    report.columns.push_back(std::move(column));
  }
  for (NodeRecord& node : report.nodes) report.FitNode(node);
  return index;
}

}  // namespace

int Report::AddMetric(Column metric) {
  const int index = AddColumn(*this, std::move(metric), Column::Sampling::kPerRun);
  if (index < 0) return index;
  for (NodeRecord& node : nodes) {
    std::vector<int64_t>& recorded = node.metrics[index].recorded(columns[index]);
    if (recorded.size() < static_cast<size_t>(runs)) recorded.resize(runs, 0);
  }
  return index;
}

int Report::AddQuantity(Column quantity) { return AddColumn(*this, std::move(quantity), Column::Sampling::kOnce); }

bool Report::counts_work() const {
  return std::any_of(columns.begin(), columns.end(), [](const Column& q) { return !q.per_run() && !q.memory; });
}

bool Report::measures_memory() const {
  return std::any_of(columns.begin(), columns.end(), [](const Column& q) { return !q.per_run() && q.memory; });
}

void Report::DeclareMemory() {
  for (const Column& q : MemoryQuantities()) AddQuantity(q);
}

double Report::QuantityOf(const NodeRecord& node, int q) const {
  return q >= 0 && static_cast<size_t>(q) < node.quantities.size() ? node.quantities[q] : 0;
}

void Report::Finalize() {
  for (NodeRecord& node : nodes) FitNode(node);
  for (int m : Metrics()) DeriveSeries(nodes, m, columns[m].scope);
  DeriveSelfQuantities(nodes, columns);
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
  if (m < 0 || m >= static_cast<int>(columns.size())) return 0;
  const std::vector<int64_t>& run_total = columns[m].run_total;
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
  if (m < 0 || m >= static_cast<int>(columns.size())) return 0;
  const std::vector<int64_t>& run_total = columns[m].run_total;
  const std::vector<int64_t>& unattributed = columns[m].unattributed;
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
