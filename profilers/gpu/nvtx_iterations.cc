#include "profilers/gpu/nvtx_iterations.h"

#include "absl/strings/str_cat.h"

#ifdef GRAPHPROF_WITH_CUDA
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#endif

namespace graphprof {
namespace {

class CudaProfilerControl final : public ProfilerControl {
 public:
  void PushRange(const std::string& name) override { NvtxPush(name.c_str()); }
  void PopRange() override { NvtxPop(); }
#ifdef GRAPHPROF_WITH_CUDA
  absl::Status Start() override { return Check("cudaProfilerStart", cudaProfilerStart()); }
  absl::Status Stop() override { return Check("cudaProfilerStop", cudaProfilerStop()); }

 private:
  static absl::Status Check(const char* what, cudaError_t err) {
    if (err == cudaSuccess) return absl::OkStatus();
    cudaGetLastError();  // clear it: the profile goes on
    return absl::UnavailableError(absl::StrCat(what, ": ", cudaGetErrorString(err)));
  }
#else
  absl::Status Start() override { return NoCuda("cudaProfilerStart"); }
  absl::Status Stop() override { return NoCuda("cudaProfilerStop"); }

 private:
  static absl::Status NoCuda(const char* what) {
    return absl::UnavailableError(absl::StrCat(what, ": graphprof was built without CUDA (rebuild with --config=cuda)"));
  }
#endif
};

}  // namespace

std::unique_ptr<ProfilerControl> MakeCudaProfilerControl() { return std::make_unique<CudaProfilerControl>(); }

absl::StatusOr<std::unique_ptr<NvtxIterations>> NvtxIterations::Create(NvtxIterationOptions options,
                                                                        ProfilerControl* control) {
  if (options.name.empty()) return absl::InvalidArgumentError("NVTX iterations need a range name");
  if (options.n_warmups < 0) {
    return absl::InvalidArgumentError(absl::StrCat("n_warmups must be 0 or more (got ", options.n_warmups, ")"));
  }
  if (options.n_iters < 1 && options.n_iters != -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("n_iters must be at least 1, or -1 for every call after the warm-ups (got ", options.n_iters, ")"));
  }
  std::unique_ptr<ProfilerControl> owned;
  if (control == nullptr) {
    owned = MakeCudaProfilerControl();
    control = owned.get();
  }
  return std::unique_ptr<NvtxIterations>(new NvtxIterations(std::move(options), control, std::move(owned)));
}

NvtxIterations::NvtxIterations(NvtxIterationOptions options, ProfilerControl* control,
                               std::unique_ptr<ProfilerControl> owned)
    : options_(std::move(options)), owned_(std::move(owned)), control_(control) {
  for (int i = 0; i < options_.n_iters; ++i) names_.push_back(absl::StrCat(options_.name, "_", i));
}

NvtxIterations::~NvtxIterations() { Finish(); }

void NvtxIterations::Finish() {
  finished_ = true;
  if (recording_) EndCall();
  if (capturing_) {
    Remember(control_->Stop());
    capturing_ = false;
  }
}

void NvtxIterations::Remember(const absl::Status& status) {
  if (status.ok() || !note_.empty()) return;  // the first problem is the one to read
  note_ = std::string(status.message());
}

void NvtxIterations::BeginCall() {
  const int call = calls_++;
  const bool after_warmup = call >= options_.n_warmups;
  if (finished_ || !after_warmup || (options_.n_iters != -1 && recorded_ >= options_.n_iters)) return;
  if (recorded_ == 0) {
    Remember(control_->Start());
    capturing_ = true;
  }
  if (recorded_ >= static_cast<int>(names_.size())) names_.push_back(absl::StrCat(options_.name, "_", recorded_));
  control_->PushRange(names_[recorded_]);
  recording_ = true;
}

void NvtxIterations::EndCall() {
  if (!recording_) return;
  control_->PopRange();
  recording_ = false;
  ++recorded_;
  if (options_.n_iters != -1 && recorded_ == options_.n_iters) {
    Remember(control_->Stop());
    capturing_ = false;
  }
}

NvtxIterationObserver::NvtxIterationObserver(int n_warmups, int n_iters, bool node_ranges, ProfilerControl* control)
    : n_warmups_(n_warmups), n_iters_(n_iters), node_ranges_(node_ranges), control_(control) {}

absl::Status NvtxIterationObserver::Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
  const int last = n_iters_ == -1 ? n_warmups_ + 1 : n_warmups_ + n_iters_;
  if (last > runs) {
    return absl::InvalidArgumentError(absl::StrCat("NVTX iterations: ", n_warmups_, " warm-up and ", n_iters_,
                                                   " recorded runs need ", last, " timed runs, not ", runs));
  }
  name_ = plan.name();
  absl::StatusOr<std::unique_ptr<NvtxIterations>> iterations =
      NvtxIterations::Create({name_, n_warmups_, n_iters_}, control_);
  if (!iterations.ok()) return iterations.status();
  iterations_ = *std::move(iterations);
  labels_.clear();
  if (node_ranges_) labels_ = NvtxNodeLabels(plan);
  return absl::OkStatus();
}

void NvtxIterationObserver::BeginRun(int run) { iterations_->BeginCall(); }

void NvtxIterationObserver::EndRun(int run) { iterations_->EndCall(); }

void NvtxIterationObserver::BeginNode(const NodePlan& node) {
  if (node_ranges_ && iterations_->recording()) iterations_->control()->PushRange(labels_[node.id]);
}

void NvtxIterationObserver::EndNode(const NodePlan& node) {
  if (node_ranges_ && iterations_->recording()) iterations_->control()->PopRange();
}

absl::StatusOr<Collected> NvtxIterationObserver::Collect(int runs) {
  iterations_->Finish();  // closes a capture range still open
  const int recorded = iterations_->recorded();
  std::string note = recorded == 0
                         ? std::string("NVTX: no timed run was recorded")
                         : absl::StrCat("NVTX: timed runs ", n_warmups_, "-", n_warmups_ + recorded - 1,
                                        " recorded as ranges ", name_, "_0..", name_, "_", recorded - 1,
                                        node_ranges_ ? " (with node ranges)" : "",
                                        ", inside cudaProfilerStart/Stop");
  if (!iterations_->note().empty()) absl::StrAppend(&note, " (", iterations_->note(), ")");
  Collected collected;
  collected.notes.push_back(std::move(note));
  return collected;
}

}  // namespace graphprof
