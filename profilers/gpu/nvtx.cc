#include "profilers/gpu/nvtx.h"

#include "absl/strings/str_cat.h"

#ifdef GRAPHPROF_WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace graphprof {

void NvtxPush(const char* name) {
#ifdef GRAPHPROF_WITH_NVTX
  nvtxRangePushA(name);
#else
  (void)name;
#endif
}

void NvtxPop() {
#ifdef GRAPHPROF_WITH_NVTX
  nvtxRangePop();
#endif
}

bool NvtxAvailable() {
#ifdef GRAPHPROF_WITH_NVTX
  return true;
#else
  return false;
#endif
}

NvtxRange::NvtxRange(const char* name) { NvtxPush(name); }
NvtxRange::~NvtxRange() { NvtxPop(); }

std::vector<std::string> NvtxNodeLabels(const GraphPlan& plan) {
  std::vector<std::string> labels;
  labels.reserve(plan.nodes().size());
  for (const NodePlan& node : plan.nodes()) labels.push_back(absl::StrCat(node.id, " ", node.identity.label));
  return labels;
}

absl::Status NvtxObserver::Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
  labels_ = NvtxNodeLabels(plan);
  run_labels_.clear();
  for (int r = 0; r < runs; ++r) run_labels_.push_back(absl::StrCat(plan.name(), " run ", r));
  return absl::OkStatus();
}

void NvtxObserver::BeginRun(int run) {
  NvtxPush(run < static_cast<int>(run_labels_.size()) ? run_labels_[run].c_str() : "run");
}
void NvtxObserver::EndRun(int run) { NvtxPop(); }
void NvtxObserver::BeginNode(const NodePlan& node) { NvtxPush(labels_[node.id].c_str()); }
void NvtxObserver::EndNode(const NodePlan& node) { NvtxPop(); }

}  // namespace graphprof
