// Report: everything one profiling session measured, as plain data.
//
// One data model, many renderings (TVM's profiling Report is the model): the
// table, CSV, JSON, Chrome trace, annotated IR, HTML and diff renderers all
// read a Report and nothing else. A Report holds raw per-run samples, not
// just summaries, so any view (by node, kind, module, shape) and any
// statistic can be computed from it, also after a JSON round trip.
//
// Columns (Column, below): every per-node value is one declared column,
// measured in every timed run (a metric: host time, device time, backward
// time...) or once (a quantity: work, memory). A metric's Series holds its
// value in every timed run, both inclusive of a node's blocks ("total") and
// without them ("self"): a recorder fills the side it measured
// (Series::recorded) and Finalize derives the other, so statistics, views
// and every rendering treat all columns alike.
//
// Time semantics: a node's value in a run is the sum over its executions in
// that run (a node inside a loop body runs many times). prim::If and
// prim::Loop totals include their blocks, whose nodes also have records.
//
// JSON, the other renderings and the diff live beside this header, each in
// its own target (report_json.h, text_report.h, ...); the machine, the
// ceilings and the verification a report holds have headers of their own
// (machine_info.h, ceilings.h, verification_result.h).
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/ir_line.h"
#include "ir/node_identity.h"
#include "profilers/report/ceilings.h"
#include "profilers/report/machine_info.h"
#include "profilers/report/verification_result.h"

namespace graphprof {

// The unit of a per-node value, a metric's or a quantity's (metrics: time
// or counts; quantities: work or counts).
enum class Unit { kNanoseconds, kCount, kFlops, kBytes };
// Its name in JSON and the diff's column list: "ns", "count", "flops", "bytes".
const char* UnitName(Unit unit);
// The unit UnitName calls `name`; `otherwise` for a name it does not give.
Unit UnitNamed(absl::string_view name, Unit otherwise);

// One per-node value: a column of the report (Report::columns), declared
// once and self-describing: name, unit, sampling, how a node's value relates
// to its blocks' (so how grouped rows combine it), how tables show it. Views,
// merge, diff, JSON, every table, sort keys and the checks iterate that one
// list. Two samplings, named as the JSON names them:
//   metrics     kPerRun: measured in every timed run (host time "time",
//               always columns[0]; device time, backward time, kernel
//               counts): each node holds a Series (NodeRecord::metrics).
//   quantities  kOnce: measured once, in the inspection run, per run (the
//               work a node did, "flops" and "bytes"; the memory it used,
//               MemoryQuantities()): each node holds a value and its self
//               value (NodeRecord::quantities, self_quantities).
struct Column {
  enum class Sampling { kPerRun, kOnce };
  // How a node's value relates to its blocks' (prim::If, prim::Loop): what
  // Finalize derives, and what grouped rows combine.
  enum class Scope {
    // Measured around the node, its blocks included (host time, bytes
    // allocated): Finalize derives the self value (the value minus its
    // block nodes'); grouped rows add the self values.
    kInclusive,
    // Per run: measured for the node alone (device time of leaf nodes,
    // attributed backward time): Finalize derives the total (plus its block
    // nodes'); grouped rows add the self values.
    kSelf,
    // Once: the node's own (work: an If's or a Loop's blocks hold theirs):
    // its self value is its value; grouped rows add the self values.
    kOwn,
    // Once: as kInclusive, but a node with blocks has none of it itself (an
    // If's or a Loop's outputs are its blocks'): its self value is 0.
    kBlocksOwnAll,
    // Once: a level while the node ran (peak bytes, live bytes after it):
    // grouped rows take the maximum of the values.
    kLevel,
  };

  std::string name;         // "time", "device", "flops", "peak_bytes": column stem, sort key, JSON key
  std::string description;  // one line for legends and headers
  Unit unit = Unit::kNanoseconds;
  Scope scope = Scope::kInclusive;
  Sampling sampling = Sampling::kPerRun;  // set by AddMetric / AddQuantity

  // kOnce, memory (MemoryQuantities()): kept, as integers, in each node's
  // "memory" object of the JSON (its self value beside it, "self_<name>",
  // for kInclusive and kBlocksOwnAll), not in the report's list of
  // quantities.
  bool memory = false;
  // Memory tables: the column's heading ("alloc"; CSV and pandas key
  // "<heading>_bytes"), shown on sums rows or not, the module text view's
  // self value beside it ("self_<heading>"), and measured in training steps
  // only (Report::training_steps(): shown only there). No heading: no
  // column (work quantities have theirs, table_columns.cc).
  std::string heading;
  bool in_sums = false;
  bool module_self = false;
  bool training_only = false;

  // kPerRun. The whole run's value, measured independently of the nodes, per
  // timed run (host: run time). Empty when there is none; percentages then
  // refer to the sum of top-level nodes.
  std::vector<int64_t> run_total;
  // Per timed run, the part of run_total measured but not attributed to a
  // node (e.g. backward's gradient accumulation and loss functions); empty
  // when not measured. What neither covers (engine gaps) is 1 - CoverageOf.
  std::vector<int64_t> unattributed;

  bool per_run() const { return sampling == Sampling::kPerRun; }
};

// Whether once-measured column `q` has a self value of its own (Finalize
// derives it; the JSON writes it as "self_<name>" for memory): kInclusive
// and kBlocksOwnAll.
inline bool HasSelfValue(const Column& q) {
  return q.scope == Column::Scope::kInclusive || q.scope == Column::Scope::kBlocksOwnAll;
}

// The memory quantities, in the order reports write them: what
// DeclareMemory adds to a report whose nodes' memory was measured, and what
// the JSON reader declares for a report whose nodes have a "memory" object.
// Bytes are relative to live bytes when the inspection run started.
const std::vector<Column>& MemoryQuantities();

// Index of the element of `list` whose `name` is `name`, or -1.
template <typename T>
int IndexByName(const std::vector<T>& list, absl::string_view name) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// A kind whose work is not counted, and how much of the run it holds.
struct UncountedKind {
  std::string kind;
  int nodes = 0;
  double percent = 0;  // of the run time (self time of its nodes)
};

// One node's values of one metric, per timed run.
struct Series {
  std::vector<int64_t> total;  // its blocks included
  std::vector<int64_t> self;   // without its blocks

  // The side metric `m`'s recorder fills (kSelf: self; else total).
  std::vector<int64_t>& recorded(const Column& m) { return m.scope == Column::Scope::kSelf ? self : total; }
  const std::vector<int64_t>& recorded(const Column& m) const { return m.scope == Column::Scope::kSelf ? self : total; }
};

struct MemoryPoint {
  int node;            // node id
  int64_t live_bytes;  // live bytes after that execution
};

struct MemorySummary {
  int64_t peak_bytes = 0;
  int peak_node = -1;  // the node running when the peak was reached
  int64_t allocated_bytes = 0;
  int64_t freed_bytes = 0;
  int64_t allocations = 0;
  std::vector<MemoryPoint> timeline;  // one point per node execution
  // Training steps: the whole step's peak is max(peak_bytes, backward_peak_bytes).
  bool backward = false;
  int64_t backward_peak_bytes = 0;  // highest live bytes during backward
  int backward_peak_node = -1;      // whose backward functions were running (-1: none of the graph's)
  int64_t saved_bytes = 0;          // all nodes' saved_bytes
};

// Bytes that belong to one module (gradients of its own parameters, say).
struct ModuleBytes {
  std::string module;  // "layer1.0.conv1"; "" is the root module
  int64_t bytes = 0;
};

// One node execution in a timed run, for timelines.
struct TraceEvent {
  int32_t node;
  int32_t run;
  int64_t start_ns;     // since the start of the first timed run
  int64_t duration_ns;
};

// One kernel / memcpy / memset on the device track of the Chrome trace.
struct DeviceEvent {
  int32_t node;         // -1 when it could not be attributed
  int32_t run;
  std::string name;
  std::string kind;     // "kernel", "memcpy", "memset"
  int64_t start_ns;     // since the start of the first timed run (host clock)
  int64_t duration_ns;
};

// 16 hex digits of FNV-1a over the IR lines, addresses ("0x7f...") left
// out: the identity of a graph, the same in every process.
std::string GraphHash(const std::vector<IrLine>& ir);

struct Report;
// One line naming what differs between the machines of two reports ("" if
// nothing does, or either is unknown).
std::string MachineWarning(const Report& base, const Report& current);

// Sets report.gradient_verification to `v`, unless `v` compared nothing: then
// the report says so in a note and claims no gradient verification.
void SetGradientVerification(Report& report, Verification v);


// Where a range of timed runs came from, when reports were merged (one per
// merged report, in order): `runs` runs starting at `first_run`.
struct RunSource {
  std::string name;  // the report's file name, say
  int first_run = 0;
  int runs = 0;
  std::string process;  // the merged report's Report::process (may be empty)
  std::string report;   // its Report::report_id (may be empty: older reports)
  // The report's rank of a torch.distributed program (Report::rank), and
  // its world size; -1 and 0 when it was not a rank.
  int rank = -1;
  int world_size = 0;
};

struct NodeRecord {
  NodeIdentity identity;
  std::string input_shapes;   // "f32[1,3,224,224], f32[64,3,7,7], None"
  std::string output_shapes;
  std::vector<int64_t> calls;  // executions per timed run
  // Each parallel to Report::columns. Metrics (per-run columns): the
  // column's Series (empty for a quantity). Quantities (once-measured
  // columns): the node's values (as the column's scope says), and without
  // its blocks (derived by Finalize: what grouped rows add up, so nothing is
  // counted twice); 0 for a metric.
  std::vector<Series> metrics;
  std::vector<double> quantities;
  std::vector<double> self_quantities;
  bool work_counted = true;  // false: its kind's work is not counted (Report::uncounted)
  // Device work the node launched (CUPTI): the most expensive names with
  // their device time per run, largest first.
  std::vector<std::pair<std::string, int64_t>> top_kernels;

  const Series& time() const { return metrics[0]; }
  // Ran at least once in some timed run.
  bool executed() const;
};

struct Report {
  // 2: metrics as named series. 3: per-node quantities (flops, bytes), the
  // kinds not counted, ceilings, process and report ids, the graph's hash,
  // the machine. Versions 1 and 2 are still read.
  // 4: run_sources as objects (with rank and world_size), the report's
  // rank and world_size.
  static constexpr int kSchemaVersion = 4;

  Report();  // with the "time" metric

  std::string model;
  // The process that measured it ("pid@host:start"): two reports of one
  // process (--ab) saw the same machine state; empty when unknown.
  std::string process;
  // This report's own runs ("<process>/<n>"): merge counts runs once, even
  // when the same report (or a merge that holds it) is given twice.
  std::string report_id;
  // Made by rank `rank` of a torch.distributed program of `world_size`
  // ranks (profilers/session/ranks.h); -1 and 0 otherwise.
  int rank = -1;
  int world_size = 0;
  // A hash of the profiled graph's IR (GraphHash): reports of the same graph
  // merge whatever their files are called; empty in older reports.
  std::string graph_hash;
  std::string clock = "steady_clock";
  int warmup = 0;
  int runs = 0;
  // Measured cost the timer adds to each node execution (a clock read +
  // bookkeeping), the part of it that falls inside the node's own interval,
  // and the cost of the read made on entering a block (0 when nodes were
  // timed with two reads each). When `compensated`, every node's time lost
  // timer_inner_ns per execution, and every parent's (and the run's) lost
  // timer_overhead_ns per nested execution and timer_block_ns per nested
  // block entry (see Compensate() in profiler.h).
  double timer_overhead_ns = 0;
  double timer_inner_ns = 0;
  double timer_block_ns = 0;
  bool compensated = false;
  // Every per-node value (Column): columns[0] is host time ("time").
  std::vector<Column> columns;
  std::vector<UncountedKind> uncounted;  // executed kinds without work counts (Finalize)
  std::optional<Ceilings> ceilings;
  std::vector<int64_t> run_start_ns;  // start of each timed run, since the first
  // Sizes (see toolbox/sizes.h), -1 when unknown.
  int64_t parameters = -1;            // all parameters
  int64_t trainable_parameters = -1;  // those with requires_grad
  int64_t model_bytes = -1;           // the module serialized
  int64_t input_bytes = -1;           // the inputs, each storage once
  // What was profiled, for comparisons (check refuses a baseline of other
  // inputs or passes): the inputs' types and shapes ("f32[1,3,224,224],
  // i64"; "" when unknown: older reports), and the passes applied before
  // profiling ("freeze,cse"; "" for none).
  std::string inputs;
  std::string passes;
  // Output compared with native execution; unset when not checked.
  std::optional<Verification> verification;
  // Why the output was not checked though checking was asked for (a
  // torch.export program without reference outputs); "" otherwise.
  std::string unverified_reason;
  std::vector<NodeRecord> nodes;  // indexed by node id
  std::vector<IrLine> ir;         // the graph's IR, for annotated renderings
  std::optional<MemorySummary> memory;
  std::vector<TraceEvent> events;
  int64_t dropped_events = 0;  // trace events that did not fit the buffer
  // Device profiling: the device used ("cuda:0 NVIDIA H200"), or why there
  // are no device columns ("no CUDA device"); device events for the trace.
  std::string device;
  std::string device_note;
  std::vector<DeviceEvent> device_events;
  // Training steps (--backward; the "backward" metric): what was
  // differentiated, each autograd function's execution (node -1: not the
  // graph's, e.g. AccumulateGrad) for the trace's backward track, parameter
  // gradient bytes per module, and gradients compared with native backward.
  std::string loss;
  std::vector<TraceEvent> backward_events;
  std::vector<ModuleBytes> gradient_bytes;
  std::optional<Verification> gradient_verification;
  std::optional<Machine> machine;
  // Anything else a reader must know, one line each (shown in the summary).
  std::vector<std::string> notes;
  // Set when this report merges several (merge.h): which runs came from which.
  std::vector<RunSource> run_sources;

  // Output (and gradients, when checked) matched native execution; false
  // when nothing was checked.
  bool verified() const {
    return (verification.has_value() || gradient_verification.has_value()) &&
           (!verification.has_value() || verification->passed()) &&
           (!gradient_verification.has_value() || gradient_verification->passed());
  }

  // --- Columns. ---
  // Host run time of each timed run.
  const std::vector<int64_t>& run_ns() const { return columns[0].run_total; }
  // The indices in `columns` of the metrics (per-run columns; time first)
  // and of the quantities (once-measured), each in declaration order; a
  // new vector per call (per-node loops test Column::per_run instead).
  std::vector<int> Metrics() const;
  std::vector<int> Quantities() const;
  // Index of the metric (quantity) named `name`, or -1.
  int FindMetric(absl::string_view name) const;
  int FindQuantity(absl::string_view name) const;
  // Adds `column` as a metric (a quantity), or returns the column of that
  // name, and gives every node a value for it: a zero series of `runs`
  // values (a 0). Returns its index in `columns`; -1 when a quantity (a
  // metric) has that name: names are unique among all columns.
  int AddMetric(Column column);
  int AddQuantity(Column column);
  // A node's value of quantity `q` (0 when the report lacks it).
  double QuantityOf(const NodeRecord& node, int q) const;
  // The same by name ("peak_bytes").
  double QuantityOf(const NodeRecord& node, absl::string_view name) const { return QuantityOf(node, FindQuantity(name)); }
  // Declares MemoryQuantities() (zeros for every node).
  void DeclareMemory();
  // Has a quantity of work (not memory): "flops", "bytes", ...
  bool counts_work() const;
  // Has the memory quantities (its nodes' memory was measured).
  bool measures_memory() const;
  // The runs are training steps (forward, loss, backward): the report has
  // the backward pass's metric, kBackwardMetric. The one test of it; a
  // training step's memory fields (MemorySummary's backward_*, training-only
  // memory columns) are present exactly when this holds and memory was
  // measured (ValidateReport).
  static constexpr char kBackwardMetric[] = "backward";
  bool training_steps() const { return FindMetric(kBackwardMetric) >= 0; }
  // Sizes `node`'s values to `columns` (missing ones: empty series, 0).
  void FitNode(NodeRecord& node) const;

  // Computes derived fields (the other side of every series, self values
  // of quantities) from the raw samples. Idempotent.
  void Finalize();

  // Mean run time in microseconds.
  double total_us() const;
  // `ns` (per run) as a percentage of the mean run time; 0 without runs.
  double PercentOfRun(double ns) const;
  // `value` (per run) of metric `m` as a percentage of that metric's mean run
  // total (or of the top-level sum when it has none).
  double PercentOf(int m, double value) const;
  // Mean over runs of (sum of top-level node times) / (run time).
  double coverage() const;
  // The same for metric `m`: (top-level nodes + its unattributed part) / its
  // run total (backward: the share of backward time inside timed autograd
  // functions); 0 without run totals.
  double CoverageOf(int m) const;
  // Node executions in one run (run 0).
  int64_t executions_per_run() const;
};

// Whether `report`'s tables have memory quantity `q`'s column: it has a
// heading, and the report measured it (training-only quantities: in
// training steps).
bool HasMemoryColumn(const Report& report, const Column& q);

// A node's memory object, as the JSON writes it (each node's "memory") and
// Python gives it (node["memory"]): f(key, value) for each memory quantity's
// value and, where it has one (HasSelfValue), its self value ("self_<name>"),
// as integers, in the report's order.
template <typename F>
void ForEachMemoryValue(const Report& report, const NodeRecord& node, F&& f) {
  for (size_t q = 0; q < report.columns.size() && q < node.quantities.size(); ++q) {
    const Column& quantity = report.columns[q];
    if (quantity.per_run() || !quantity.memory) continue;
    f(quantity.name, static_cast<int64_t>(node.quantities[q]));
    if (HasSelfValue(quantity) && q < node.self_quantities.size()) {
      f("self_" + quantity.name, static_cast<int64_t>(node.self_quantities[q]));
    }
  }
}

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_H_
