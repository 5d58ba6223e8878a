#include "profilers/gpu/nvtx.h"

#include "absl/strings/str_cat.h"

#ifdef GRAPHPROF_WITH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace graphprof {
namespace {

void Push(const char* name) {
#ifdef GRAPHPROF_WITH_NVTX
  nvtxRangePushA(name);
#else
  (void)name;
#endif
}

void Pop() {
#ifdef GRAPHPROF_WITH_NVTX
  nvtxRangePop();
#endif
}

}  // namespace

bool NvtxAvailable() {
#ifdef GRAPHPROF_WITH_NVTX
  return true;
#else
  return false;
#endif
}

NvtxRange::NvtxRange(const char* name) { Push(name); }
NvtxRange::~NvtxRange() { Pop(); }

absl::Status NvtxObserver::Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
  labels_.clear();
  for (const NodePlan& node : plan.nodes()) labels_.push_back(absl::StrCat(node.id, " ", node.identity.label));
  run_labels_.clear();
  for (int r = 0; r < runs; ++r) run_labels_.push_back(absl::StrCat(plan.name(), " run ", r));
  return absl::OkStatus();
}

void NvtxObserver::BeginRun(int run) {
  Push(run < static_cast<int>(run_labels_.size()) ? run_labels_[run].c_str() : "run");
}
void NvtxObserver::EndRun(int run) { Pop(); }
void NvtxObserver::BeginNode(const NodePlan& node) { Push(labels_[node.id].c_str()); }
void NvtxObserver::EndNode(const NodePlan& node) { Pop(); }

}  // namespace graphprof
