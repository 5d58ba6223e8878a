// Profile(): the whole profiling session for one graph and one set of inputs.
//
//   1. measure the timer's own per-node cost (reported as timer_overhead_ns):
//      a graph of cheap nodes run plain and timed, in the clock's own time
//   2. `warmup` plain runs (not recorded)
//   3. one inspection run: shapes, and memory when options.memory is set
//   4. `runs` timed runs: per-node times into preallocated storage, with the
//      observers (if any) called around every node
//   With options.backward, each of those runs is a training step: forward
//   with gradients enabled, then loss and backward (BackwardPass: timed
//   function by function in the timed runs and attributed to the nodes that
//   created the functions; saved-for-backward memory in the inspection run).
//   5. a Report built from the samples, completed by the observers; with
//      `compensate`, the timer's measured cost is taken off (Compensate), so
//      If/Loop self times and run totals do not carry the children's timer
//      reads (Report::compensated, timer_overhead_ns, timer_inner_ns,
//      timer_block_ns)
//
// Every run gets its own deep copy of `inputs` (made outside the timed
// region), so models that mutate their inputs see the same values each run;
// the caller's inputs are never touched.
#ifndef GRAPHPROF_PROFILERS_PROFILER_H_
#define GRAPHPROF_PROFILERS_PROFILER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/autograd/training_step.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/report/report.h"
#include "profilers/time_source.h"

namespace graphprof {

struct ProfileOptions {
  // How the graphs a session, an A/B or the CLI plans for these runs are
  // planned (GraphPlan::Build): allow_side_effects above all.
  PlanOptions plan;
  int warmup = 3;
  int runs = 10;
  bool memory = false;  // memory view (inspection run; use one intra-op thread)
  bool trace = true;    // keep per-execution events for the Chrome trace
  // At most this many trace events (24 bytes each) are kept; the rest are
  // counted in Report::dropped_events and a note says so.
  size_t max_trace_events = 4'000'000;
  std::shared_ptr<TimeSource> clock;  // null: DefaultTimeSource() (TSC where invariant)
  // Subtract the timer's measured cost from parents (see above). Not done
  // with observers, whose cost varies by node.
  bool compensate = true;
  // Training steps: every run is forward with gradients enabled, a loss,
  // then backward (BackwardPass); gradients are reset before each run.
  // The parameters keep the last timed run's gradients.
  BackwardOptions backward;
  // Act around every node of the timed runs and add to the report (NVTX
  // ranges, CUDA-event device time, CUPTI kernels). Not owned.
  std::vector<NodeObserver*> observers;
  // Adaptive run count (--runs=auto): `runs` is then the most. After
  // `min_runs` timed runs, and every few runs after, timing stops once the
  // run time's median and the medians of the top-level nodes that hold 80%
  // of it all have 95% intervals (distribution-free, rank_test.h
  // MedianInterval) narrower than `width` of their median, or once
  // `max_time_s` seconds have been spent in timed runs. A note says which.
  //
  // `stop` (profile_graph check's sequential gate) replaces the width rule:
  // at each look (after `min_runs` timed runs, then every 5) it is given a
  // report of the timed runs so far (ProfileRunner::Snapshot: finalized, no
  // collectors' columns, so set it only without observers and training
  // steps) and returns why to stop now, or nullopt to go on. The budget and
  // `runs` still bound it.
  struct Adaptive {
    bool enabled = false;
    int min_runs = 10;
    double width = 0.02;
    double max_time_s = 60;
    std::function<std::optional<std::string>(const Report& so_far)> stop;
  };
  Adaptive adaptive;
  // Called before every run (warm-up, inspection, timed), after its inputs
  // are copied and before its clock starts: profile_graph's ranks meet at a
  // barrier there, so run k of every rank is the same step. `run` counts
  // every run of the profile from 0; an error ends the profile with it.
  std::function<absl::Status(int run)> before_run;
  // Called after each run: phase is "warmup", "inspect" or "timed"
  // (and once with ("warmup", 0, warmup) before the first).
  std::function<void(const char* phase, int done, int total)> progress;
  // Called every few thousand node executions during a run with the nodes
  // done so far and the nodes per run (0 until the inspection run counted them).
  std::function<void(int64_t done, int64_t per_run)> node_progress;
};

// Runs the session; on success the report is finalized. If `output` is
// given, it receives the last run's output.
absl::StatusOr<Report> Profile(std::shared_ptr<const GraphPlan> plan,
                               const std::vector<c10::IValue>& inputs,
                               const ProfileOptions& options = {},
                               c10::IValue* output = nullptr);

// A report skeleton with every metric and quantity a Profile() with
// `options` adds, without values: host time, the work quantities
// (DeclareWork), backward's metrics for training steps and each observer's
// (NodeObserver::Columns). SortKeys() of it are the sort keys the report
// will have, known before any run.
Report DeclaredReport(const ProfileOptions& options);
// The columns a profile's report has before any collector's: host time, the
// work quantities and, with `memory`, the memory quantities, without values.
Report OwnColumns(bool memory);
// The work quantities every profile's report has ("flops", "bytes"),
// without values.
void DeclareWork(Report& report);

// This process, as Report::process names it ("pid@host:start"): the same
// for every report one process makes.
const std::string& ProcessIdentity();
// A new Report::report_id of this process ("<ProcessIdentity()>/<n>").
std::string NewReportId();

// What timing one node execution costs (ProfilingInterpreter, one clock).
struct TimerCost {
  // Added to the time of whatever encloses the node (its parent, or the
  // run): its clock reads (one, chained; two with observers), the sample,
  // the trace event, the dispatch.
  double per_execution_ns = 0;
  // The part of that inside the node's own interval (what a node doing
  // nothing measures).
  double inner_ns = 0;
  // With chained reads: the read made on entering a block, added to the
  // block's owner (an If or Loop, or the run for the graph's own block).
  double per_block_ns = 0;
};

// A block with nodes, for counting block entries: the node that owns it (-1:
// the graph's own block, entered once per run) and its first node (which
// runs exactly once each time the block is entered).
struct BlockStart {
  int owner = -1;
  int first = 0;
};
// The blocks of `plan` that have nodes (BuildReport passes them to
// Compensate when the runs read the clock on entering blocks).
std::vector<BlockStart> BlockStarts(const GraphPlan& plan);

// The Report for what `interpreter` recorded (inspection + timed runs),
// compensated for `timer` when `compensate`.
Report BuildReport(const ProfilingInterpreter& interpreter, int warmup, TimerCost timer = {},
                   bool compensate = false);

// Takes the timer's cost off the recorded times, as instrumenting profilers
// do: inner_ns per execution off every node's own time, per_execution_ns per
// nested execution (children, their children, ...) off every enclosing
// node's inclusive time and off the run's (which also loses inner_ns once),
// and per_block_ns per block entered inside a node (counted from `blocks`'
// first nodes) off it and everything enclosing it. Self times then no longer
// carry the children's instrumentation, and times still nest (a parent is
// never below the sum of its children unless the estimate overshoots, when
// self time floors at 0). Trace events keep the raw intervals. Sets
// Report::compensated; Finalize afterwards.
void Compensate(Report& report, const TimerCost& timer, const std::vector<BlockStart>& blocks = {});

// Measures TimerCost for `clock` (with trace events when `trace`; chained
// reads, or two reads per node as with observers when `two_reads`): 1,000
// cheap nodes run plain and timed, interleaved, best of 20 each; the
// difference per node (and per block entry, chained), and the smallest mean
// node time, in the clock's nanoseconds (0 for a clock that does not tick by
// itself).
constexpr int kCalibrationNodes = 1000;
TimerCost MeasureTimerCost(const std::shared_ptr<TimeSource>& clock, bool trace, bool two_reads = false);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_PROFILER_H_
