// The toolbox: Timeit, Profileit, Benchmark, sizes, NVTX, node observers.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <torch/cuda.h>

#include <sstream>

#include "absl/strings/match.h"
#include "tools/zoo/zoo.h"
#include "profilers/toolbox/benchmark.h"
#include "profilers/toolbox/device_sync.h"
#include "profilers/gpu/cuda_allocator_stats.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/device_memory.h"
#include "profilers/gpu/nvtx.h"
#include "profilers/toolbox/profileit.h"
#include "profilers/profiler.h"
#include "profilers/toolbox/sizes.h"
#include "profilers/toolbox/timeit.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::PlanIr;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::TestClock;

TEST(TimeitTest, DurationOnlyAfterTheScopeAndDivided) {
  auto clock = std::make_shared<ManualClock>();
  TimeitResult result;
  std::ostringstream log;
  {
    TimeitOptions options;
    options.avg_time_divisor = 4;
    options.log = true;
    options.label = "step";
    options.log_stream = &log;
    options.clock = clock;
    Timeit timer(&result, options);
    clock->Advance(2'000'000'000);  // 2 s
    EXPECT_FALSE(result.seconds().ok()) << "still running";
    EXPECT_EQ(result.seconds().status().code(), absl::StatusCode::kFailedPrecondition);
  }
  ASSERT_TRUE(result.seconds().ok());
  EXPECT_DOUBLE_EQ(*result.seconds(), 0.5);
  EXPECT_EQ(log.str(), "step: 0.500000s\n");
}

TEST(TimeitTest, ResetLogsTheLapAndRestarts) {
  auto clock = std::make_shared<ManualClock>();
  TimeitResult result;
  std::ostringstream log;
  {
    TimeitOptions options;
    options.log = true;
    options.log_stream = &log;
    options.clock = clock;
    Timeit timer(&result, options);
    clock->Advance(3'000'000'000);
    EXPECT_DOUBLE_EQ(timer.Reset(), 3.0);
    ASSERT_TRUE(result.seconds().ok()) << "a Reset() completes a measurement";
    EXPECT_DOUBLE_EQ(*result.seconds(), 3.0);
    clock->Advance(1'000'000'000);
  }
  EXPECT_DOUBLE_EQ(*result.seconds(), 1.0) << "the lap after the reset, not the whole scope";
  EXPECT_EQ(log.str(), "Time: 3.000000s\nTime: 1.000000s\n");

  // Without logging nothing is printed.
  std::ostringstream quiet;
  {
    TimeitOptions options;
    options.log_stream = &quiet;
    options.clock = clock;
    Timeit timer(nullptr, options);
    timer.Reset();
  }
  EXPECT_EQ(quiet.str(), "");
}

TEST(TimeitTest, SynchronisesBeforeEveryClockRead) {
  // The synchronisation must come before the clock is read at the start and
  // at the end: a fake device whose queued work finishes (advancing the
  // clock) only when synchronised.
  auto clock = std::make_shared<ManualClock>();
  std::vector<std::string> events;
  TimeitResult result;
  {
    TimeitOptions options;
    options.clock = clock;
    options.synchronize = [&] {
      events.push_back("sync");
      clock->Advance(5'000'000'000);  // the device drains its queue
    };
    Timeit timer(&result, options);
    events.push_back("work");
    clock->Advance(1'000'000'000);
    EXPECT_DOUBLE_EQ(timer.Reset(), 6.0) << "the work and the drain at its end";
    events.push_back("work");
  }
  EXPECT_EQ(events, (std::vector<std::string>{"sync", "work", "sync", "sync", "work", "sync"}))
      << "at entry, at Reset (end of one lap, start of the next) and at exit";
  // Entry sync is before the start read (not counted); each end sync is inside.
  EXPECT_DOUBLE_EQ(*result.seconds(), 5.0) << "the second lap: the drain at exit is inside";
  // The default synchronises only where there is a device (none here: it does nothing).
  EXPECT_EQ(SynchronizeDevice(), ProbeCuda().available || torch::cuda::is_available());
}

TEST(ProfileitTest, ReturnsResultAndMemoryStats) {
  auto [tensor, stats] = Profileit([] { return torch::zeros({256, 256}).add(1); });
  EXPECT_EQ(tensor.numel(), 65536);
  EXPECT_GE(stats.allocated_bytes, 2 * 65536 * 4);  // zeros + add result
  EXPECT_GE(stats.peak_bytes, 2 * 65536 * 4);
  EXPECT_GE(stats.allocations, 2);
  auto slept = Profileit([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
  EXPECT_GE(slept.stats.seconds, 0.002) << "at least the time slept";
  int calls = 0;
  Profiled<void> none = Profileit([&] { ++calls; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(none.stats.allocated_bytes, 0);

  StatsSummary summary = SummarizeStats({ProfileStats{1.0, 10, 20, 1}, ProfileStats{3.0, 30, 5, 1}});
  EXPECT_EQ(summary.count, 2);
  EXPECT_DOUBLE_EQ(summary.seconds_mean, 2.0);
  EXPECT_DOUBLE_EQ(summary.seconds_std, std::sqrt(2.0));
  EXPECT_EQ(summary.max_peak_bytes, 30);
  EXPECT_EQ(summary.max_allocated_bytes, 20);
}

// A caching allocator whose counters the test drives: allocations move
// current and peak; ResetPeaks sets the peaks to the current values.
class FakeAllocatorStats : public AllocatorStatsSource {
 public:
  void Allocate(int64_t bytes) {
    allocated += bytes;
    reserved = std::max(reserved, allocated);
    peak_allocated = std::max(peak_allocated, allocated);
    peak_reserved = std::max(peak_reserved, reserved);
  }
  absl::Status ResetPeaks() override {
    events.push_back("reset");
    if (!reset_error.ok()) return reset_error;
    peak_allocated = allocated;
    peak_reserved = reserved;
    return absl::OkStatus();
  }
  absl::StatusOr<AllocatorStats> Read() override {
    events.push_back("read");
    AllocatorStats s;
    s.device = "cuda:7";
    s.allocated_bytes = allocated;
    s.reserved_bytes = reserved;
    s.active_bytes = allocated;
    s.peak_allocated_bytes = peak_allocated;
    s.peak_reserved_bytes = peak_reserved;
    s.peak_active_bytes = peak_allocated;
    return s;
  }
  int64_t allocated = 0, reserved = 0, peak_allocated = 0, peak_reserved = 0;
  absl::Status reset_error;
  std::vector<std::string> events;
};

class FakeDeviceInfo : public DeviceMemoryInfoSource {
 public:
  absl::StatusOr<DeviceMemoryInfo> Read() override {
    ++reads;
    DeviceMemoryInfo info;
    info.device = "cuda:7";
    info.total_bytes = 1000;
    info.used_bytes = used;
    info.free_bytes = 1000 - used;
    return info;
  }
  int64_t used = 0;
  int reads = 0;
};

TEST(ProfileitTest, DeviceMemoryOfTheCallFromTheSources) {
  FakeAllocatorStats allocator;
  allocator.Allocate(1000);  // an older peak, before the call
  allocator.allocated = 100;
  FakeDeviceInfo info;
  std::vector<std::string> order;
  ProfileitOptions options;
  options.allocator = &allocator;
  options.device_info = &info;
  options.synchronize = [&] { order.push_back("sync"); };
  auto [value, stats] = Profileit(
      [&] {
        order.push_back("call");
        allocator.Allocate(500);
        allocator.allocated -= 500;
        info.used = 700;
        return 42;
      },
      options);
  EXPECT_EQ(value, 42);
  EXPECT_EQ(order, (std::vector<std::string>{"sync", "call", "sync"}));
  EXPECT_EQ(allocator.events, (std::vector<std::string>{"reset", "read"}));
  ASSERT_TRUE(stats.device_allocator.ok()) << stats.device_allocator.status();
  EXPECT_EQ(stats.device_allocator->peak_allocated_bytes, 600) << "the call's peak, not the older 1000";
  EXPECT_EQ(stats.device_allocator->peak_reserved_bytes, 1000) << "reserved memory stays reserved";
  EXPECT_EQ(stats.device_allocator->peak_active_bytes, 600);
  EXPECT_EQ(stats.device_allocator->allocated_bytes, 100);
  ASSERT_TRUE(stats.device_info.ok()) << stats.device_info.status();
  EXPECT_EQ(info.reads, 1);
  EXPECT_EQ(stats.device_info->used_bytes, 700) << "read after the call";
  EXPECT_EQ(stats.device_info->free_bytes, 300);

  // A failed reset leaves no peak to report: its error, not an older window's peak.
  allocator.reset_error = absl::InternalError("reset refused");
  ProfileStats failed = Profileit([] {}, options).stats;
  EXPECT_EQ(failed.device_allocator.status(), absl::InternalError("reset refused"));
}

TEST(ProfileitTest, WithoutADeviceTheDeviceFieldsSayWhy) {
  // This machine: Debian's CPU LibTorch, no GPU, no driver.
  ProfileStats stats = Profileit([] { return torch::ones({8}); }).stats;
  const absl::Status allocator = CudaAllocatorStatsStatus();
  if (!allocator.ok()) {
    EXPECT_EQ(stats.device_allocator.status(), allocator);
  }
  const CudaStatus cuda = ProbeCuda();
  if (!cuda.available) {
    EXPECT_EQ(stats.device_info.status(), cuda.ToStatus());
    EXPECT_FALSE(stats.device_info.status().message().empty());
  }
  if (!torch::cuda::is_available()) {
    ASSERT_FALSE(stats.device_allocator.ok()) << "never zeros that look like a measurement";
    EXPECT_TRUE(absl::StrContains(stats.device_allocator.status().message(), "CUDA")) << stats.device_allocator.status();
  }
  StatsSummary summary = SummarizeStats({stats, stats});
  EXPECT_FALSE(summary.device_allocator.ok());
  EXPECT_TRUE(absl::StartsWith(summary.device_allocator.status().message(), "call 0: "))
      << summary.device_allocator.status();
}

TEST(ProfileitTest, SummaryOfDeviceMemory) {
  auto with_device = [](int64_t peak_allocated, int64_t peak_reserved, int64_t peak_active, int64_t free,
                        int64_t used) {
    ProfileStats s;
    AllocatorStats a;
    a.peak_allocated_bytes = peak_allocated;
    a.peak_reserved_bytes = peak_reserved;
    a.peak_active_bytes = peak_active;
    s.device_allocator = a;
    DeviceMemoryInfo i;
    i.free_bytes = free;
    i.used_bytes = used;
    s.device_info = i;
    return s;
  };
  StatsSummary summary = SummarizeStats({with_device(10, 300, 12, 500, 40), with_device(30, 200, 33, 450, 90),
                                         with_device(20, 100, 21, 480, 60)});
  ASSERT_TRUE(summary.device_allocator.ok()) << summary.device_allocator.status();
  EXPECT_EQ(summary.device_allocator->max_allocated_bytes, 30);
  EXPECT_EQ(summary.device_allocator->max_reserved_bytes, 300);
  EXPECT_EQ(summary.device_allocator->max_active_bytes, 33);
  ASSERT_TRUE(summary.device_info.ok()) << summary.device_info.status();
  EXPECT_EQ(summary.device_info->min_free_bytes, 450);
  EXPECT_EQ(summary.device_info->max_used_bytes, 90);

  // One call without device statistics: the summary has none, and says which call.
  ProfileStats missing = with_device(1, 1, 1, 1, 1);
  missing.device_info = absl::UnavailableError("NVML not loaded");
  summary = SummarizeStats({with_device(10, 300, 12, 500, 40), missing});
  EXPECT_TRUE(summary.device_allocator.ok());
  EXPECT_EQ(summary.device_info.status(), absl::UnavailableError("call 1: NVML not loaded"));
  EXPECT_EQ(SummarizeStats({}).device_info.status().code(), absl::StatusCode::kUnavailable);
}

TEST(BenchmarkTest, ComparesCasesWithTheTestClock) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %ns : int):
  %y : Tensor = graphprof_test::advance(%x, %ns)
  return (%y)
)IR");
  ASSERT_NE(plan, nullptr);
  BenchmarkOptions options;
  options.warmup = 2;
  options.steps = 5;
  options.clock = TestClock();
  std::vector<BenchmarkCase> cases = {InterpreterCase("fast", plan, {torch::ones({1}), int64_t{100}}),
                                      InterpreterCase("slow", plan, {torch::ones({1}), int64_t{300}})};
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark(cases, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ((*rows)[0].forward_s, 500e-9);
  EXPECT_DOUBLE_EQ((*rows)[1].forward_s, 1500e-9);
  const std::string table = RenderBenchmark(*rows, options);
  EXPECT_TRUE(absl::StrContains(table, "3.000")) << table;  // ratio slow/fast
  options.per_step = true;
  rows = Benchmark(cases, options);
  ASSERT_TRUE(rows.ok());
  EXPECT_DOUBLE_EQ((*rows)[1].forward_s, 300e-9);
}

TEST(BenchmarkTest, BackwardPassAndFailures) {
  absl::StatusOr<ZooModel> model = MakeZooModel("mlp");
  ASSERT_TRUE(model.ok());
  BenchmarkOptions options;
  options.warmup = 1;
  options.steps = 2;
  options.backward = true;
  std::vector<c10::IValue> inputs = model->ExampleInputs(0);
  absl::StatusOr<std::vector<BenchmarkRow>> rows =
      Benchmark({ModuleCase("native", model->module, inputs), InterpreterCase("interpreter", PlanModule(model->module), inputs)},
                options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  for (const BenchmarkRow& row : *rows) {
    EXPECT_EQ(row.backward_ns.count, options.steps) << row.name << ": one backward pass timed per step";
    EXPECT_EQ(row.forward_ns.count, options.steps) << row.name;
  }
  // Backward really ran: the parameters have gradients.
  for (const torch::jit::Named<at::Tensor>& p : model->module.named_parameters()) {
    EXPECT_TRUE(p.value.grad().defined()) << p.name;
  }
  EXPECT_TRUE(absl::StrContains(RenderBenchmark(*rows, options), "Backward"));

  auto no_grad_plan = PlanIr("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  return (%y)\n");
  absl::StatusOr<std::vector<BenchmarkRow>> fails =
      Benchmark({InterpreterCase("relu", no_grad_plan, {torch::ones({2})})}, options);
  ASSERT_FALSE(fails.ok());
  EXPECT_TRUE(absl::StrContains(fails.status().message(), "relu: backward needs")) << fails.status();
  options.steps = 0;
  absl::StatusOr<std::vector<BenchmarkRow>> no_steps = Benchmark({ModuleCase("m", model->module, inputs)}, options);
  EXPECT_TRUE(absl::StrContains(no_steps.status().message(), "steps must be at least 1")) << no_steps.status();
  options.steps = 1;
  options.warmup = 0;
  absl::StatusOr<std::vector<BenchmarkRow>> no_warmup = Benchmark({ModuleCase("m", model->module, inputs)}, options);
  EXPECT_TRUE(absl::StrContains(no_warmup.status().message(), "warmup must be at least 1")) << no_warmup.status();
  options.warmup = 1;
  EXPECT_TRUE(absl::StrContains(Benchmark({}, options).status().message(), "no cases")) << "an empty list is refused";
}

TEST(BenchmarkTest, CountsAndNamesAreCheckedBeforeAnythingRuns) {
  int calls = 0;
  auto counting = [&](std::string name) { return CallableCase(std::move(name), [&] { ++calls; }); };
  BenchmarkOptions options;
  options.warmup = 1;
  options.steps = 1;
  struct Bad {
    int warmup, steps;
    std::vector<std::string> names;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {-3, 1, {"a"}, "warmup must be at least 1 (got -3)"},
           {1, -1, {"a"}, "steps must be at least 1 (got -1)"},
           {1, 0, {"a"}, "steps must be at least 1 (got 0)"},
           {1, 1, {"a", ""}, "case 1 has no name"},
           {1, 1, {"a", "b", "a"}, "two cases are named 'a'"},
       }) {
    options.warmup = bad.warmup;
    options.steps = bad.steps;
    std::vector<BenchmarkCase> cases;
    for (const std::string& name : bad.names) cases.push_back(counting(name));
    absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark(cases, options);
    ASSERT_FALSE(rows.ok()) << bad.message;
    EXPECT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(rows.status().message(), bad.message)) << rows.status();
  }
  EXPECT_EQ(calls, 0) << "nothing ran";
  options.warmup = 2;
  options.steps = 3;
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark({counting("a"), counting("b")}, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(calls, 2 * 5);
  EXPECT_EQ((*rows)[0].name, "a");
  EXPECT_EQ((*rows)[1].name, "b");
  const std::string table = RenderBenchmark(*rows, options);
  EXPECT_TRUE(absl::StrContains(table, "\na ") && absl::StrContains(table, "\nb ")) << table;
}

TEST(BenchmarkTest, InterpreterSweepGetsFreshArgumentsEveryStep) {
  auto plan = PlanIr("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  return (%y)\n");
  ASSERT_NE(plan, nullptr);
  std::vector<int64_t> rows_seen;
  BenchmarkOptions options;
  options.warmup = 1;
  options.steps = 3;
  BenchmarkCase sweep = InterpreterSweepCase("relu", plan, [&](int step) {
    return std::vector<c10::IValue>{torch::ones({step + 1, 2})};
  });
  // Wrap the step to see the size each call got.
  auto forward = sweep.forward;
  sweep.forward = [&, forward](int step) -> absl::StatusOr<c10::IValue> {
    absl::StatusOr<c10::IValue> out = forward(step);
    if (out.ok()) rows_seen.push_back(out->toTensor().size(0));
    return out;
  };
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark({sweep}, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows_seen, (std::vector<int64_t>{1, 2, 3, 4})) << "warm-up step 0, then the timed steps";
  EXPECT_EQ((*rows)[0].forward_ns.count, 3);
}

TEST(BenchmarkTest, CasesRotateAndSweepTheirArguments) {
  std::vector<std::string> order;
  std::vector<int> sizes;
  auto module = MakeZooModel("mlp");
  ASSERT_TRUE(module.ok());
  BenchmarkOptions options;
  options.warmup = 1;
  options.steps = 2;
  std::vector<std::pair<int, int>> progress;
  options.progress = [&](int done, int total) { progress.emplace_back(done, total); };
  std::vector<BenchmarkCase> cases = {
      CallableCase("a", [&] { order.push_back("a"); }), CallableCase("b", [&] { order.push_back("b"); }),
      ModuleSweepCase("sweep", module->module, [&](int step) {
        sizes.push_back(step + 1);
        return std::vector<c10::IValue>{torch::randn({step + 1, 784})};
      })};
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark(cases, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "b", "a", "a", "b"})) << "a b s, b s a, s a b";
  EXPECT_EQ(sizes, (std::vector<int>{1, 2, 3})) << "one argument set per step, batch growing";
  EXPECT_EQ(progress, (std::vector<std::pair<int, int>>{{1, 3}, {2, 3}, {3, 3}}));
  EXPECT_EQ((*rows)[2].name, "sweep");
}

TEST(SizesTest, ParametersModelAndDataSizes) {
  absl::StatusOr<ZooModel> resnet = MakeZooModel("resnet18");
  ASSERT_TRUE(resnet.ok());
  EXPECT_EQ(CountParameters(resnet->module), 11689512);  // torchvision's resnet18
  absl::StatusOr<ZooModel> mlp = MakeZooModel("mlp");
  ASSERT_TRUE(mlp.ok());
  EXPECT_EQ(CountParameters(mlp->module), 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  absl::StatusOr<int64_t> bytes = SerializedModelSize(mlp->module);
  ASSERT_TRUE(bytes.ok());
  EXPECT_GT(*bytes, CountParameters(mlp->module) * 4);
  at::Tensor t = torch::zeros({10, 10});
  EXPECT_EQ(DataSize(std::vector<c10::IValue>{t, t.view({100}), t[0]}), 400);  // one storage
  EXPECT_EQ(DataSize(c10::IValue(c10::ivalue::Tuple::create({t, torch::zeros({5})}))), 420);
}

// Records the order of observer calls.
class RecordingObserver : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions) override {
    calls.push_back("prepare " + std::to_string(runs) + " " + std::to_string(executions));
    return absl::OkStatus();
  }
  void BeginRun(int run) override { calls.push_back("run " + std::to_string(run)); }
  void BeginNode(const NodePlan& node) override { calls.push_back("+" + std::to_string(node.id)); }
  void EndNode(const NodePlan& node) override { calls.push_back("-" + std::to_string(node.id)); }
  void EndRun(int run) override { calls.push_back("end " + std::to_string(run)); }
  absl::StatusOr<Collected> Collect(int runs) override {
    calls.push_back("collect " + std::to_string(runs));
    Collected collected;
    collected.notes.push_back("observed");
    return collected;
  }
  std::vector<std::string> calls;
};

TEST(NodeObserverTest, CalledAroundEveryNodeOfTimedRunsOnly) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %c : bool):
  %y : Tensor = prim::If(%c)
    block0():
      %r : Tensor = aten::relu(%x)
      -> (%r)
    block1():
      -> (%x)
  return (%y)
)IR");
  ASSERT_NE(plan, nullptr);
  RecordingObserver observer;
  ProfileOptions options;
  options.warmup = 1;
  options.runs = 2;
  options.observers = {&observer};
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({2}), true}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->notes, std::vector<std::string>{"observed"});
  EXPECT_EQ(observer.calls, (std::vector<std::string>{"prepare 2 2", "run 0", "+0", "+1", "-1", "-0", "end 0", "run 1",
                                                       "+0", "+1", "-1", "-0", "end 1", "collect 2"}));
}

TEST(NvtxTest, RangesAreSafeWithOrWithoutNvtx) {
#ifdef GRAPHPROF_WITH_NVTX
  EXPECT_TRUE(NvtxAvailable());
#else
  EXPECT_FALSE(NvtxAvailable());
#endif
  { NvtxRange range("outer"); NvtxRange inner(std::string("inner")); }
  auto plan = PlanIr("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  return (%y)\n");
  ASSERT_NE(plan, nullptr);
  NvtxObserver nvtx;
  ProfileOptions options;
  options.runs = 2;
  options.observers = {&nvtx};
  EXPECT_TRUE(Profile(plan, {torch::ones({2})}, options).ok());
}

}  // namespace
}  // namespace graphprof
