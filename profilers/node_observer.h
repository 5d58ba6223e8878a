// NodeObserver: the collector protocol. A collector acts on the runs of a
// profile and adds what it measured to the Report: NVTX ranges, CUDA events
// and CUPTI correlation ids around every node of the timed runs; the
// backward half of training steps (BackwardPass) after every forward.
//
//   Declare            the metrics/quantities it adds, before any run
//   BeforeForward /    around every run's forward (warm-up, inspection,
//   AfterForward       timed), outside the timing, with the output
//   Prepare            before the timed runs (sizes buffers)
//   BeginRun/EndRun,   the timed runs: around each run and each node
//   BeginNode/EndNode  (only when ObservesNodes())
//   Contribute         after the runs, into the built Report
//
// BeginNode/EndNode run on the hot path, just outside the host timestamps (so
// an observer's own cost is not charged to the node): they must not allocate,
// lock or block. A collector that observes nodes puts the timed runs on the
// two-read path (and turns compensation off); one that does not
// (ObservesNodes() false) leaves them as they are. Prepare may allocate;
// EndRun may do per-run work such as waiting for the device.
#ifndef GRAPHPROF_PROFILERS_NODE_OBSERVER_H_
#define GRAPHPROF_PROFILERS_NODE_OBSERVER_H_

#include "absl/status/status.h"
#include "interpreter/graph_plan.h"
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
  // After the runs, once the Report is built. The report is finalized
  // (Report::Finalize) after every collector contributed.
  virtual absl::Status Contribute(Report& report) { return absl::OkStatus(); }
  // The metrics and quantities Contribute adds, added to `report` with no
  // values (Report::AddMetric / AddQuantity). A report skeleton declared
  // before the runs (DeclaredReport, profiler.h) knows every column the
  // session's report will have: profile_graph checks --sort against it.
  // Contribute declares through this too, so the two cannot disagree.
  virtual void Declare(Report& report) const {}
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_NODE_OBSERVER_H_
