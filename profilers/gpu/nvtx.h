// NVTX ranges, for Nsight Systems and other NVTX tools.
//
// NVTX (nvtx3, header-only, from the CUDA toolkit) is compiled in under
// --config=cuda. Without it NvtxAvailable() is false and everything here is
// a no-op. With it but no tool attached, NVTX calls return at once.
//
//   { graphprof::NvtxRange range("preprocess"); Preprocess(); }
//
// NvtxObserver wraps every node of the timed runs in a range named by the
// node's label (profile_graph --nvtx).
#ifndef GRAPHPROF_PROFILERS_GPU_NVTX_H_
#define GRAPHPROF_PROFILERS_GPU_NVTX_H_

#include <string>
#include <vector>

#include "profilers/node_observer.h"

namespace graphprof {

// True when built with NVTX support (--config=cuda).
bool NvtxAvailable();

// nvtxRangePushA / nvtxRangePop on this thread (no-ops without NVTX), for
// ranges that do not follow a C++ scope; NvtxRange is the scoped form.
void NvtxPush(const char* name);
void NvtxPop();

// The range name of every node, by node id: "<id> <label>".
std::vector<std::string> NvtxNodeLabels(const GraphPlan& plan);

class NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  explicit NvtxRange(const std::string& name) : NvtxRange(name.c_str()) {}
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

class NvtxObserver : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) override;
  void BeginRun(int run) override;
  void EndRun(int run) override;
  void BeginNode(const NodePlan& node) override;
  void EndNode(const NodePlan& node) override;

 private:
  std::vector<std::string> labels_;  // by node id, built once
  std::vector<std::string> run_labels_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_NVTX_H_
