// NodeObserver: something that acts around every node of the timed runs,
// beside the host clock: NVTX ranges, CUDA events, CUPTI correlation ids.
//
// BeginNode/EndNode run on the hot path, just outside the host timestamps (so
// an observer's own cost is not charged to the node): they must not allocate,
// lock or block. Prepare may allocate; EndRun may do per-run work such as
// waiting for the device; Contribute adds what was observed to the Report.
#ifndef GRAPHPROF_PROFILERS_NODE_OBSERVER_H_
#define GRAPHPROF_PROFILERS_NODE_OBSERVER_H_

#include "absl/status/status.h"
#include "interpreter/graph_plan.h"
#include "profilers/report/report.h"

namespace graphprof {

class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  // Before the timed runs: how many there will be, and how many node
  // executions one run had in the inspection run (to size buffers).
  virtual absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
    return absl::OkStatus();
  }
  virtual void BeginRun(int run) {}
  virtual void BeginNode(const NodePlan& node) {}
  virtual void EndNode(const NodePlan& node) {}
  virtual void EndRun(int run) {}
  // After the runs, once the Report is built.
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
