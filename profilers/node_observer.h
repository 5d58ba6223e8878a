// NodeObserver: the collector protocol. A collector acts on the runs of a
// profile and returns what it measured for the Report: NVTX ranges, CUDA events
// and CUPTI correlation ids around every node of the timed runs; the
// backward half of training steps (BackwardPass) after every forward.
//
//   Columns            the metrics/quantities it fills, declared once: the
//                      runner checks them when it registers the collector
//   BeforeForward /    around every run's forward (warm-up, inspection,
//   AfterForward       timed), outside the timing, with the output
//   Prepare            before the timed runs (sizes buffers)
//   BeginRun/EndRun,   the timed runs: around each run and each node
//   BeginNode/EndNode  (only when ObservesNodes())
//   Collect            after the runs: returns what it measured (Collected);
//                      the runner inserts it and then finalizes the report
//
// BeginNode/EndNode run on the hot path, just outside the host timestamps (so
// an observer's own cost is not charged to the node): they must not allocate,
// lock or block. A collector that observes nodes puts the timed runs on the
// two-read path (and turns compensation off); one that does not
// (ObservesNodes() false) leaves them as they are. Prepare may allocate;
// EndRun may do per-run work such as waiting for the device.
#ifndef GRAPHPROF_PROFILERS_NODE_OBSERVER_H_
#define GRAPHPROF_PROFILERS_NODE_OBSERVER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/collected.h"
#include "profilers/report/report.h"

namespace graphprof {

class NodeObserver {
 public:
  // The runs of a profile, in order: untimed warm-up runs, one inspection
  // run (shapes, memory, work), the timed runs.
  enum class Phase { kWarmup, kInspection, kTimed };

  virtual ~NodeObserver() = default;
  // Whether the collector needs BeginRun/BeginNode/EndNode/EndRun. No
  // default: the answer decides how the runs are timed (above), so every
  // collector states it.
  virtual bool ObservesNodes() const = 0;
  // Whether forward runs need autograd (training steps).
  virtual bool NeedsGradients() const { return false; }
  // Before every run's forward, its inputs copied, outside its timing.
  virtual void BeforeForward(Phase phase) {}
  // After every forward that succeeded, outside its timing, with its output
  // (`run`: the warm-up's or timed run's index, 0 for the inspection). An
  // error fails the run.
  virtual absl::Status AfterForward(Phase phase, int run, const c10::IValue& output) { return absl::OkStatus(); }
  // Before the timed runs: how many there will be, and how many node
  // executions one run had in the inspection run (to size buffers).
  virtual absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
    return absl::OkStatus();
  }
  virtual void BeginRun(int run) {}
  virtual void BeginNode(const NodePlan& node) {}
  virtual void EndNode(const NodePlan& node) {}
  virtual void EndRun(int run) {}
  // The columns Collect fills, without values, each with its sampling
  // (Column::sampling: kPerRun, a metric, or kOnce, a quantity). The runner checks them when the
  // collector is registered (ProfileRunner::Create; CheckColumns in
  // collected.h) and adds them to the report. profile_graph checks --sort
  // before the runs against DeclaredReport (profiler.h: the profile's own
  // columns) and the device collectors' declarations (CheckSortKey).
  virtual std::vector<Column> Columns() const { return {}; }
  // After the `runs` timed runs made: what the collector measured, as
  // values (collected.h). The runner inserts them into the columns Columns()
  // declared (values for any other column fail the profile, nothing
  // written) and finalizes the report after every collector's are in.
  virtual absl::StatusOr<Collected> Collect(int runs) { return Collected{}; }
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_NODE_OBSERVER_H_
