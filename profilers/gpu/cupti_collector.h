// CuptiKernelCollector: kernels, memcpys and memsets of the timed runs from
// CUPTI's activity API, attributed to nodes (see kernel_attribution.h).
//
// Per node it pushes an external correlation id (run, node) on entry and pops
// it on exit; after the runs it flushes CUPTI's buffers and joins records.
// CUPTI failures are soft: the collector turns itself off and says why in
// Report::device_note; host and CUDA-event results are unaffected. Only one
// collector may be active in a process at a time (CUPTI's buffers are global).
#ifndef GRAPHPROF_PROFILERS_GPU_CUPTI_COLLECTOR_H_
#define GRAPHPROF_PROFILERS_GPU_CUPTI_COLLECTOR_H_

#include <cstdint>
#include <string>

#include "profilers/node_observer.h"

namespace graphprof {

class CuptiKernelCollector : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  CuptiKernelCollector();
  ~CuptiKernelCollector() override;

  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) override;
  void BeginRun(int run) override;
  void BeginNode(const NodePlan& node) override;
  void EndNode(const NodePlan& node) override;
  absl::StatusOr<Collected> Collect(int runs) override;
  std::vector<Column> Columns() const override;  // KernelAttribution's metrics

  // False after a CUPTI error (or when built without CUDA); why() says why.
  bool enabled() const { return enabled_; }
  const std::string& why() const { return why_; }

 private:
  // Turns off CUPTI activity collection if it is on.
  void StopActivities();
  void Disable(std::string why);

  bool enabled_ = false;
  std::string why_;
  int runs_ = 0;
  int num_nodes_ = 0;
  int run_ = 0;
  uint64_t device_origin_ns_ = 0;  // CUPTI clock at the start of the first run
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_CUPTI_COLLECTOR_H_
