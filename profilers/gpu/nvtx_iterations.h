// NVTX iteration control (torch_geometric.profile.nvtxit in C++): let the
// first n_warmups calls of something pass unmarked, then mark each of the
// next n_iters calls with an NVTX range named "<name>_0", "<name>_1", ...,
// with cudaProfilerStart() before the first of them and cudaProfilerStop()
// after the last, so that Nsight Systems' capture range
//
//   nsys profile --capture-range=cudaProfilerApi ./my_program
//
// records exactly those calls, warm-up excluded.
//
//   auto nvtx = graphprof::NvtxIterations::Create({"step", /*n_warmups=*/5, /*n_iters=*/10});
//   for (...) (*nvtx)->Call([&] { Step(); });
//
// Two differences from nvtxit, both on purpose: the recorded calls share one
// capture range (nvtxit starts and stops the profiler around every call, and
// nsys's default --capture-range-end=stop-shutdown then keeps only the
// first), and range numbers count recorded calls from 0 (nvtxit's count the
// warm-ups too). A failing profiler API (no device) is soft: the calls and
// ranges go on, note() says what failed. profile_graph's --nvtx_warmup and
// --nvtx_iters put this around the timed runs (NvtxIterationObserver).
#ifndef GRAPHPROF_PROFILERS_GPU_NVTX_ITERATIONS_H_
#define GRAPHPROF_PROFILERS_GPU_NVTX_ITERATIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/gpu/nvtx.h"
#include "profilers/node_observer.h"

namespace graphprof {

// What NvtxIterations drives: NVTX ranges and the CUDA profiler API. Tests
// give it a recording fake.
class ProfilerControl {
 public:
  virtual ~ProfilerControl() = default;
  virtual void PushRange(const std::string& name) = 0;
  virtual void PopRange() = 0;
  virtual absl::Status Start() = 0;  // cudaProfilerStart
  virtual absl::Status Stop() = 0;   // cudaProfilerStop
};

// NVTX (no-ops without --config=cuda) and cudaProfilerStart/Stop (without
// --config=cuda: Unavailable; without a device: the runtime's error).
std::unique_ptr<ProfilerControl> MakeCudaProfilerControl();

struct NvtxIterationOptions {
  std::string name;   // range names: name_0, name_1, ...
  int n_warmups = 0;  // calls let through first, unmarked (>= 0)
  int n_iters = -1;   // calls recorded after them (>= 1), or -1: all the rest
};

class NvtxIterations {
 public:
  // InvalidArgument for an empty name, n_warmups < 0, or n_iters neither
  // >= 1 nor -1. `control` must outlive it; null: MakeCudaProfilerControl().
  static absl::StatusOr<std::unique_ptr<NvtxIterations>> Create(NvtxIterationOptions options,
                                                                ProfilerControl* control = nullptr);
  ~NvtxIterations();  // Finish()
  NvtxIterations(const NvtxIterations&) = delete;
  NvtxIterations& operator=(const NvtxIterations&) = delete;

  // Around every call (Call() does both, also when `fn` throws).
  void BeginCall();
  void EndCall();
  template <typename F>
  decltype(auto) Call(F&& fn) {
    struct End {
      NvtxIterations* self;
      ~End() { self->EndCall(); }
    } end{this};
    BeginCall();
    return std::forward<F>(fn)();
  }

  // Ends a recorded call still open and stops the capture range if it is
  // still open (n_iters = -1, or fewer calls than n_warmups + n_iters).
  // Later calls are not recorded.
  void Finish();

  // True between BeginCall and EndCall of a recorded call.
  bool recording() const { return recording_; }
  int calls() const { return calls_; }        // begun so far
  int recorded() const { return recorded_; }  // recorded so far
  // What went wrong with the profiler API first, "" when nothing did.
  const std::string& note() const { return note_; }
  ProfilerControl* control() const { return control_; }

 private:
  NvtxIterations(NvtxIterationOptions options, ProfilerControl* control,
                 std::unique_ptr<ProfilerControl> owned);
  void Remember(const absl::Status& status);

  NvtxIterationOptions options_;
  std::unique_ptr<ProfilerControl> owned_;
  ProfilerControl* control_;
  std::vector<std::string> names_;  // made before the calls that use them
  int calls_ = 0;
  int recorded_ = 0;
  bool recording_ = false;
  bool capturing_ = false;
  bool finished_ = false;
  std::string note_;
};

// profile_graph's --nvtx_warmup/--nvtx_iters: NvtxIterations over the timed
// runs (each run one call, named after the graph), and with `node_ranges`
// (--nvtx) a range per node inside the recorded runs only. Collect returns a
// note saying which runs were recorded, and what failed if anything did.
class NvtxIterationObserver : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  // `control`: as NvtxIterations::Create's (node ranges go through it too).
  NvtxIterationObserver(int n_warmups, int n_iters, bool node_ranges, ProfilerControl* control = nullptr);

  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) override;
  void BeginRun(int run) override;
  void EndRun(int run) override;
  void BeginNode(const NodePlan& node) override;
  void EndNode(const NodePlan& node) override;
  absl::StatusOr<Collected> Collect(int runs) override;

 private:
  int n_warmups_;
  int n_iters_;
  bool node_ranges_;
  ProfilerControl* control_;
  std::string name_;
  std::unique_ptr<NvtxIterations> iterations_;
  std::vector<std::string> labels_;  // node ranges, by node id
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_NVTX_ITERATIONS_H_
