// NVTX iteration control with a recording ProfilerControl: which calls get
// ranges, their names, where the capture range starts and stops, and the
// observer profile_graph uses over the timed runs.
#include <gtest/gtest.h>

#include <stdexcept>

#include "absl/strings/match.h"
#include "profilers/gpu/nvtx_iterations.h"
#include "profilers/profiler.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::PlanIr;

class RecordingControl : public ProfilerControl {
 public:
  void PushRange(const std::string& name) override { events.push_back("push " + name); }
  void PopRange() override { events.push_back("pop"); }
  absl::Status Start() override {
    events.push_back("start");
    return start_error;
  }
  absl::Status Stop() override {
    events.push_back("stop");
    return absl::OkStatus();
  }
  std::vector<std::string> events;
  absl::Status start_error;
};

// Runs `calls` calls, each logging "call <i>".
void Calls(NvtxIterations& nvtx, RecordingControl& control, int calls) {
  for (int i = 0; i < calls; ++i) {
    nvtx.Call([&] { control.events.push_back("call " + std::to_string(i)); });
  }
}

TEST(NvtxIterationsTest, SkipsWarmupsThenRecordsNumberedCallsInOneCaptureRange) {
  RecordingControl control;
  absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create({"step", 2, 3}, &control);
  ASSERT_TRUE(nvtx.ok()) << nvtx.status();
  Calls(**nvtx, control, 7);
  EXPECT_EQ(control.events, (std::vector<std::string>{"call 0", "call 1",                                 //
                                                      "start", "push step_0", "call 2", "pop",            //
                                                      "push step_1", "call 3", "pop",                     //
                                                      "push step_2", "call 4", "pop", "stop",             //
                                                      "call 5", "call 6"}));
  EXPECT_EQ((*nvtx)->calls(), 7);
  EXPECT_EQ((*nvtx)->recorded(), 3);
  EXPECT_EQ((*nvtx)->note(), "");
  nvtx->reset();
  EXPECT_EQ(control.events.back(), "call 6") << "closed already: nothing more at the end";
}

TEST(NvtxIterationsTest, AllCallsAfterWarmupsUntilFinished) {
  RecordingControl control;
  {
    absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create({"fwd", 1, -1}, &control);
    ASSERT_TRUE(nvtx.ok()) << nvtx.status();
    Calls(**nvtx, control, 3);
  }
  EXPECT_EQ(control.events, (std::vector<std::string>{"call 0", "start", "push fwd_0", "call 1", "pop", "push fwd_1",
                                                      "call 2", "pop", "stop"}))
      << "the capture range closes when it goes";
}

TEST(NvtxIterationsTest, RangesCloseWhenTheCallThrows) {
  RecordingControl control;
  absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create({"f", 0, 1}, &control);
  ASSERT_TRUE(nvtx.ok());
  EXPECT_THROW((*nvtx)->Call([]() -> int { throw std::runtime_error("boom"); }), std::runtime_error);
  EXPECT_EQ(control.events, (std::vector<std::string>{"start", "push f_0", "pop", "stop"}));
  EXPECT_FALSE((*nvtx)->recording());
  EXPECT_EQ((*nvtx)->Call([] { return 7; }), 7) << "values pass through";
}

TEST(NvtxIterationsTest, AFailingProfilerApiIsANoteNotAFailure) {
  RecordingControl control;
  control.start_error = absl::UnavailableError("cudaProfilerStart: no CUDA device");
  absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create({"f", 0, 2}, &control);
  ASSERT_TRUE(nvtx.ok());
  Calls(**nvtx, control, 2);
  EXPECT_EQ((*nvtx)->recorded(), 2) << "the ranges are still there for NVTX tools";
  EXPECT_EQ((*nvtx)->note(), "cudaProfilerStart: no CUDA device");
}

TEST(NvtxIterationsTest, BadOptionsAreRefused) {
  RecordingControl control;
  struct Bad {
    NvtxIterationOptions options;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{{{"", 0, 1}, "need a range name"},
                                         {{"f", -1, 1}, "n_warmups must be 0 or more (got -1)"},
                                         {{"f", 0, 0}, "n_iters must be at least 1, or -1"},
                                         {{"f", 0, -2}, "(got -2)"}}) {
    absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create(bad.options, &control);
    ASSERT_FALSE(nvtx.ok()) << bad.message;
    EXPECT_TRUE(absl::StrContains(nvtx.status().message(), bad.message)) << nvtx.status();
  }
}

TEST(NvtxIterationsTest, TheDefaultControlSaysWhyThereIsNoProfilerHere) {
  std::unique_ptr<ProfilerControl> control = MakeCudaProfilerControl();
  control->PushRange("safe without a tool");
  control->PopRange();
  const absl::Status start = control->Start();
  if (!start.ok()) {
    // Without --config=cuda: built without CUDA; with it but no device: the runtime's error.
    EXPECT_TRUE(absl::StartsWith(start.message(), "cudaProfilerStart: ")) << start;
  }
  control->Stop().IgnoreError();
}

TEST(NvtxIterationObserverTest, RecordsTheChosenTimedRunsWithNodeRanges) {
  auto plan = PlanIr("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  %z : Tensor = aten::neg(%y)\n  return (%z)\n",
                     "tiny");
  ASSERT_NE(plan, nullptr);
  RecordingControl control;
  NvtxIterationObserver observer(/*n_warmups=*/1, /*n_iters=*/2, /*node_ranges=*/true, &control);
  ProfileOptions options;
  options.warmup = 2;  // untimed: never seen by observers
  options.runs = 4;
  options.observers = {&observer};
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({2})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(control.events, (std::vector<std::string>{"start", "push tiny_0", "push 0 relu", "pop", "push 1 neg", "pop",
                                                      "pop", "push tiny_1", "push 0 relu", "pop", "push 1 neg", "pop",
                                                      "pop", "stop"}))
      << "timed run 0 skipped, runs 1 and 2 recorded, run 3 not";
  bool noted = false;
  for (const std::string& note : report->notes) {
    noted |= note == "NVTX: timed runs 1-2 recorded as ranges tiny_0..tiny_1 (with node ranges), inside "
                     "cudaProfilerStart/Stop";
  }
  EXPECT_TRUE(noted) << (report->notes.empty() ? "no notes" : report->notes.back());

  NvtxIterationObserver too_many(3, 2, false, &control);
  options.observers = {&too_many};
  absl::StatusOr<Report> refused = Profile(plan, {torch::ones({2})}, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "need 5 timed runs, not 4")) << refused.status();
}

}  // namespace
}  // namespace graphprof
