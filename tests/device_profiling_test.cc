// The GPU path's logic, tested without a GPU: CUDA-event device time with a
// fake event API, CUPTI attribution with synthetic records, and the
// no-device fallbacks (which also hold in --config=cuda builds here).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/csv_report.h"
#include "profilers/collected.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/cupti_collector.h"
#include "profilers/gpu/device_timer.h"
#include "profilers/gpu/kernel_attribution.h"
#include "profilers/profiler.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::PlanIr;
using ::graphprof::testing::TestClock;

// A node's per-run values of a metric: self or total.
std::vector<int64_t> Values(const Report& report, int node, const char* metric, bool self = true) {
  const int m = report.FindMetric(metric);
  EXPECT_GT(m, 0) << metric;
  if (m <= 0) return {};
  const Series& s = report.nodes[node].metrics[m];
  return self ? s.self : s.total;
}

// A "device" that runs in step with the host: an event records the test
// clock's time, so a node's device time is what graphprof_test::advance adds.
class FakeEventApi : public EventApi {
 public:
  absl::Status Create(size_t count, std::vector<Event>* events) override {
    for (size_t i = 0; i < count; ++i) {
      times_.push_back(std::make_unique<int64_t>(-1));
      events->push_back(times_.back().get());
    }
    return absl::OkStatus();
  }
  void Destroy(const std::vector<Event>&) override {}
  void Record(Event event) override {
    *static_cast<int64_t*>(event) = TestClock()->NowNs();
    ++records;
  }
  absl::Status Synchronize(Event event) override {
    ++synchronizations;
    return *static_cast<int64_t*>(event) >= 0 ? absl::OkStatus() : absl::InternalError("never recorded");
  }
  absl::StatusOr<double> ElapsedMs(Event start, Event stop) override {
    return static_cast<double>(*static_cast<int64_t*>(stop) - *static_cast<int64_t*>(start)) / 1e6;
  }
  std::string DeviceName() const override { return "fake:0"; }

  int records = 0;
  int synchronizations = 0;

 private:
  std::vector<std::unique_ptr<int64_t>> times_;
};

constexpr char kGraph[] = R"IR(
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %a : int = prim::Constant[value=300]()
  %b : int = prim::Constant[value=50]()
  %y : Tensor = graphprof_test::advance(%x, %a)
  %z : Tensor = prim::Loop(%n, %true, %y)
    block0(%i : int, %h : Tensor):
      %h2 : Tensor = graphprof_test::advance(%h, %b)
      -> (%true, %h2)
  return (%z)
)IR";

TEST(DeviceEventTimerTest, AttributesDeviceTimeToLeafNodesPerRun) {
  auto plan = PlanIr(kGraph);
  ASSERT_NE(plan, nullptr);
  auto api = std::make_unique<FakeEventApi>();
  FakeEventApi* fake = api.get();
  DeviceEventTimer timer(std::move(api));
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 3;
  options.clock = TestClock();
  options.observers = {&timer};
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({1}), int64_t{4}}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->device, "fake:0");
  // Nodes: 0-2 constants, 3 advance(300), 4 loop, 5 body advance(50).
  EXPECT_EQ(Values(*report, 3, "device"), (std::vector<int64_t>{300, 300, 300}));
  EXPECT_EQ(Values(*report, 5, "device"), (std::vector<int64_t>{200, 200, 200}));
  EXPECT_EQ(Values(*report, 4, "device"), (std::vector<int64_t>{0, 0, 0})) << "If/Loop nodes are not timed";
  EXPECT_EQ(Values(*report, 4, "device", /*self=*/false), (std::vector<int64_t>{200, 200, 200}))
      << "a Loop's total is its body's";
  EXPECT_EQ(Values(*report, 0, "device"), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(fake->synchronizations, 3) << "one wait per run, none per node";
  EXPECT_EQ(fake->records, 3 * 2 * 8);  // 3 constants + advance + 4 body executions
  EXPECT_EQ(timer.dropped(), 0);
  // Host time is untouched by device time.
  EXPECT_EQ(report->nodes[3].time().total, (std::vector<int64_t>{300, 300, 300}));

  const int device = report->FindMetric("device");
  absl::StatusOr<View> kinds = MakeView(*report, ViewOptions{GroupBy::kKind, "device", 0});
  ASSERT_TRUE(kinds.ok());
  EXPECT_EQ(kinds->rows[0].name, "graphprof_test::advance");
  EXPECT_DOUBLE_EQ(kinds->rows[0].metrics[device].total.mean, 500);
  EXPECT_DOUBLE_EQ(kinds->sums.metrics[device].total.mean, 500) << "the Loop adds nothing of its own";
  const std::string table = RenderTable(*report, *kinds);
  EXPECT_TRUE(absl::StrContains(table, "device_us")) << table;
  const std::string csv = RenderCsv(*report, *kinds);
  EXPECT_TRUE(absl::StrContains(csv, ",total_us,device_us,device_self_us,flops,")) << csv;
  EXPECT_TRUE(absl::StrContains(csv, ",0.500,0.500,,,,,,,,,false,,,,,\n")) << csv << "no work counted for a custom op: empty, not 0";

  absl::StatusOr<Report> back = ReportFromJson(ReportToJson(*report));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Values(*back, 5, "device"), Values(*report, 5, "device"));
  EXPECT_EQ(Values(*back, 4, "device", false), Values(*report, 4, "device", false));
  EXPECT_EQ(back->device, "fake:0");
}

TEST(DeviceEventTimerTest, ExhaustedPoolDropsInsteadOfAllocating) {
  auto plan = PlanIr(kGraph);
  ASSERT_NE(plan, nullptr);
  DeviceEventTimer timer(std::make_unique<FakeEventApi>());
  ProfilingInterpreter profiler(plan, TestClock());
  ASSERT_TRUE(timer.Prepare(*plan, 1, /*executions_per_run=*/0).ok());  // 16 pairs
  profiler.AddObserver(&timer);
  profiler.BeginInspection(false);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), int64_t{30}}).ok());
  profiler.BeginTimedRuns(1, 0);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), int64_t{30}}).ok());
  Report report = BuildReport(profiler, 0);
  absl::StatusOr<Collected> collected = timer.Collect(report.runs);
  ASSERT_TRUE(collected.ok()) << collected.status();
  ASSERT_TRUE(InsertCollected(timer.Columns(), *std::move(collected), report).ok());
  report.Finalize();
  EXPECT_EQ(timer.dropped(), 3 + 1 + 30 - 16);
  EXPECT_TRUE(absl::StrContains(report.device_note, "not timed on the device")) << report.device_note;
  EXPECT_EQ(Values(report, 5, "device")[0], 50 * (16 - 4));
}

TEST(KernelAttributionTest, JoinsCorrelationsAndActivities) {
  constexpr int kNodes = 3, kRuns = 2;
  KernelAttribution attribution(kNodes, kRuns);
  // Run 0: node 1 launches two kernels and a memcpy; run 1: node 1 one
  // kernel, node 2 a memset. One kernel has no correlation.
  attribution.AddCorrelation({10, KernelAttribution::ExternalId(0, 1, kNodes)});
  attribution.AddCorrelation({11, KernelAttribution::ExternalId(0, 1, kNodes)});
  attribution.AddCorrelation({20, KernelAttribution::ExternalId(1, 1, kNodes)});
  attribution.AddCorrelation({21, KernelAttribution::ExternalId(1, 2, kNodes)});
  attribution.AddActivity({ActivityRecord::Kind::kKernel, "gemm", 10, 1000, 1600});
  attribution.AddActivity({ActivityRecord::Kind::kMemcpy, "memcpy HtoD", 11, 1700, 1800});
  attribution.AddActivity({ActivityRecord::Kind::kKernel, "relu", 11, 1800, 1850});
  attribution.AddActivity({ActivityRecord::Kind::kKernel, "gemm", 20, 5000, 5400});
  attribution.AddActivity({ActivityRecord::Kind::kMemset, "memset", 21, 5500, 5510});
  attribution.AddActivity({ActivityRecord::Kind::kKernel, "orphan", 99, 6000, 6100});
  EXPECT_EQ(attribution.unattributed(), 1);

  Report report;
  report.runs = kRuns;
  report.columns[0].run_total = {1, 1};
  report.nodes.resize(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    report.nodes[i].identity.id = i;
    report.nodes[i].calls = {1, 1};
    report.nodes[i].metrics = {Series{{0, 0}, {}}};
  }
  report.Finalize();
  ASSERT_TRUE(InsertCollected(KernelAttribution::Columns(),
                              attribution.Collect(report.runs, [](int64_t t) { return t - 1000; }, /*top_names=*/2),
                              report)
                  .ok());
  report.Finalize();
  EXPECT_EQ(Values(report, 1, "kernels"), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(Values(report, 1, "kernel_time"), (std::vector<int64_t>{750, 400}));
  const std::vector<std::pair<std::string, int64_t>>& top = report.nodes[1].top_kernels;
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0], std::make_pair(std::string("gemm"), int64_t{500}));  // per run
  EXPECT_EQ(top[1], std::make_pair(std::string("memcpy HtoD"), int64_t{50}));
  EXPECT_EQ(Values(report, 2, "kernel_time"), (std::vector<int64_t>{0, 10}));
  EXPECT_TRUE(report.nodes[0].top_kernels.empty());
  ASSERT_EQ(report.device_events.size(), 6u);
  EXPECT_EQ(report.device_events[0].start_ns, 0);
  EXPECT_EQ(report.device_events[0].node, 1);
  EXPECT_EQ(report.device_events[0].run, 0);
  EXPECT_EQ(report.device_events[3].run, 1);
  EXPECT_EQ(report.device_events[5].node, -1);
  EXPECT_EQ(report.device_events[1].kind, "memcpy");

  const nlohmann::json trace = nlohmann::json::parse(RenderChromeTrace(report));
  int device = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") == "device") {
      ++device;
      EXPECT_EQ(e["tid"], 2);
    }
  }
  EXPECT_EQ(device, 6);
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "kernels", 0});
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->rows[0].id, 1);
  EXPECT_TRUE(absl::StrContains(RenderTable(report, *nodes), "kernel_time_us"));
  absl::StatusOr<Report> back = ReportFromJson(ReportToJson(report));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->nodes[1].top_kernels, top);
  EXPECT_EQ(Values(*back, 1, "kernels"), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(back->device_events.size(), 6u);
}

TEST(NoDeviceTest, ProbeSaysWhyAndCollectorsStepAside) {
  const CudaStatus cuda = ProbeCuda();
  if (cuda.available) {
    EXPECT_TRUE(absl::StartsWith(cuda.device_name, "cuda:")) << cuda.device_name;
    EXPECT_NE(MakeCudaEventApi(), nullptr);
    GTEST_SKIP() << "a CUDA device is present: the no-device path cannot be tested here";
  }
  EXPECT_TRUE(cuda.reason == "no CUDA device" || cuda.reason == "graphprof was built without CUDA") << cuda.reason;
  EXPECT_EQ(MakeCudaEventApi(), nullptr);

  // CUPTI fails softly: the profile completes, host numbers intact.
  auto plan = PlanIr("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n  return (%y)\n");
  ASSERT_NE(plan, nullptr);
  CuptiKernelCollector kernels;
  ProfileOptions options;
  options.runs = 2;
  options.observers = {&kernels};
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({4})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->runs, 2);
  EXPECT_FALSE(kernels.enabled());
  EXPECT_TRUE(absl::StrContains(report->device_note, "kernel columns disabled")) << report->device_note;
  EXPECT_EQ(report->FindMetric("kernels"), -1) << "no kernel metrics without CUPTI data";
}

}  // namespace
}  // namespace graphprof
