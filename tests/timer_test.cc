// The timer: TscClock and the clock choice, and compensation of the timer's
// own cost (Compensate, MeasureTimerCost, Profile's `compensate`).
//
// Compensation is checked exactly with a clock whose every read costs a known
// amount of (test) time: profiling with it and compensating by that cost must
// give the same times as the free ManualClock, at every nesting depth.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/time_source.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::PlanIr;
using ::graphprof::testing::TestClock;

TEST(TimeSourceTest, ClocksByName) {
  absl::StatusOr<std::shared_ptr<TimeSource>> steady = MakeTimeSource("steady");
  ASSERT_TRUE(steady.ok()) << steady.status();
  EXPECT_EQ((*steady)->kind(), TimeSource::Kind::kSteady);
  EXPECT_EQ((*steady)->name(), "steady_clock");

  absl::StatusOr<std::shared_ptr<TimeSource>> tsc = MakeTimeSource("tsc");
  if (InvariantTscMissing().empty()) {
    ASSERT_TRUE(tsc.ok()) << tsc.status();
    EXPECT_EQ((*tsc)->kind(), TimeSource::Kind::kTsc);
    EXPECT_EQ((*tsc)->name(), "tsc");
    EXPECT_EQ(DefaultTimeSource()->kind(), TimeSource::Kind::kTsc);
  } else {
    ASSERT_FALSE(tsc.ok());
    EXPECT_TRUE(absl::StrContains(tsc.status().message(), InvariantTscMissing())) << tsc.status();
    EXPECT_EQ(DefaultTimeSource()->kind(), TimeSource::Kind::kSteady);
  }

  absl::StatusOr<std::shared_ptr<TimeSource>> bogus = MakeTimeSource("sundial");
  ASSERT_FALSE(bogus.ok());
  EXPECT_EQ(bogus.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bogus.status().message(), "sundial")) << bogus.status();
  EXPECT_TRUE(absl::StrContains(bogus.status().message(), "tsc")) << bogus.status();
}

// The calibrated rate: over the same ~200 ms, TSC nanoseconds and
// steady_clock nanoseconds agree (not a speed assertion: both clocks measure
// one interval). Best of three, so a preemption between the paired reads
// cannot fail it.
TEST(TimeSourceTest, TscAgreesWithSteadyClock) {
  absl::StatusOr<std::shared_ptr<TimeSource>> made = MakeTimeSource("tsc");
  if (!made.ok()) GTEST_SKIP() << made.status();
  TimeSource& tsc = **made;
  SteadyClock steady;
  double best = 1e9;
  for (int attempt = 0; attempt < 3 && best > 0.01; ++attempt) {
    const int64_t tsc0 = tsc.NowNs(), steady0 = steady.NowNs();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int64_t tsc1 = tsc.NowNs(), steady1 = steady.NowNs();
    const double ratio = static_cast<double>(tsc1 - tsc0) / static_cast<double>(steady1 - steady0);
    best = std::min(best, std::abs(ratio - 1.0));
  }
  EXPECT_LT(best, 0.01);
  // Monotonic.
  int64_t last = tsc.NowNs();
  for (int i = 0; i < 100000; ++i) {
    const int64_t now = tsc.NowNs();
    ASSERT_GE(now, last);
    last = now;
  }
}

// The test clock, but every read costs `kRead` ns: it returns the time, then
// advances it. Without observers the reads are chained: a node's one read
// ends its interval, and its cost lands in the next node's interval (or, for
// the last node of a block, in the block's owner); the read made on entering
// a block lands in the block's first node.
constexpr int64_t kRead = 100;
class CostlyReadClock final : public TimeSource {
 public:
  int64_t NowNs() override {
    const int64_t now = TestClock()->NowNs();
    TestClock()->Advance(kRead);
    return now;
  }
  absl::string_view name() const override { return "costly_read"; }
};

// What a node costs with CostlyReadClock: one read, inside some node's
// interval; a block entry costs one read too.
constexpr TimerCost kCostlyReads{/*per_execution_ns=*/kRead, /*inner_ns=*/kRead, /*per_block_ns=*/kRead};

// Compensated with CostlyReadClock, every time equals the free clock's.
void ExpectSameTimes(const Report& compensated, const Report& free_reads) {
  EXPECT_EQ(compensated.run_ns(), free_reads.run_ns());
  ASSERT_EQ(compensated.nodes.size(), free_reads.nodes.size());
  for (size_t id = 0; id < compensated.nodes.size(); ++id) {
    const NodeRecord& node = compensated.nodes[id];
    EXPECT_EQ(node.calls, free_reads.nodes[id].calls) << node.identity.label;
    EXPECT_EQ(node.time().total, free_reads.nodes[id].time().total) << node.identity.label;
    EXPECT_EQ(node.time().self, free_reads.nodes[id].time().self) << node.identity.label;
  }
}

Report ProfileWith(std::shared_ptr<TimeSource> clock, const std::shared_ptr<const GraphPlan>& plan,
                   const std::vector<c10::IValue>& inputs, int runs) {
  ProfilingInterpreter profiler(plan, std::move(clock));
  profiler.BeginTimedRuns(runs, 0);
  for (int r = 0; r < runs; ++r) {
    absl::StatusOr<c10::IValue> out = profiler.Run(inputs);
    EXPECT_TRUE(out.ok()) << out.status();
  }
  profiler.EndRecording();
  return BuildReport(profiler, /*warmup=*/0);
}

// Loops in a loop and an If in the inner loop: nodes at depth 0 to 3.
constexpr char kNested[] = R"IR(
graph(%x : Tensor, %outer : int, %inner : int, %ns : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %y : Tensor = prim::Loop(%outer, %true, %x)
    block0(%i : int, %h : Tensor):
      %h1 : Tensor = graphprof_test::advance(%h, %ns)
      %h3 : Tensor = prim::Loop(%inner, %true, %h1)
        block0(%j : int, %g : Tensor):
          %odd : bool = aten::gt(%j, %zero)
          %g2 : Tensor = prim::If(%odd)
            block0():
              %g1 : Tensor = graphprof_test::advance(%g, %ns)
              -> (%g1)
            block1():
              -> (%g)
          -> (%true, %g2)
      -> (%true, %h3)
  %z : Tensor = graphprof_test::advance(%y, %ns)
  return (%z)
)IR";

// Chained reads on the real clocks: each node's interval starts where the
// previous node's ended, so a block's nodes tile it (trace events back to
// back, to a nanosecond of TSC rounding), and the block's first node starts
// after its owner did.
TEST(ChainedReadsTest, NodesOfABlockAreBackToBack) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %x)
  %b : Tensor = aten::add(%a, %x, %n)
  %y : Tensor = prim::Loop(%n, %true, %b)
    block0(%i : int, %h : Tensor):
      %h1 : Tensor = aten::neg(%h)
      %h2 : Tensor = aten::relu(%h1)
      -> (%true, %h2)
  %z : Tensor = aten::sin(%y)
  return (%z)
)IR");
  ASSERT_NE(plan, nullptr);
  for (const char* name : {"steady", "tsc"}) {
    absl::StatusOr<std::shared_ptr<TimeSource>> clock = MakeTimeSource(name);
    if (!clock.ok()) continue;
    ProfilingInterpreter profiler(plan, *clock);
    profiler.BeginTimedRuns(2, 1000);
    for (int r = 0; r < 2; ++r) ASSERT_TRUE(profiler.Run({torch::ones({4}), int64_t{3}}).ok());
    profiler.EndRecording();
    EXPECT_TRUE(profiler.chained_reads());
    const Report report = BuildReport(profiler, 0);
    const int64_t slack = std::string(name) == "tsc" ? 1 : 0;
    // Completion order: true, mul, add, then per trip neg, relu; then the
    // Loop (after its body), then sin.
    int checked = 0;
    for (int r = 0; r < 2; ++r) {
      std::vector<const TraceEvent*> run;
      for (const TraceEvent& e : report.events) {
        if (e.run == r) run.push_back(&e);
      }
      ASSERT_EQ(run.size(), 3u + 3 * 2 + 2) << name;
      auto back_to_back = [&](const TraceEvent* a, const TraceEvent* b) {
        EXPECT_NEAR(b->start_ns, a->start_ns + a->duration_ns, slack)
            << name << ": node " << b->node << " after node " << a->node;
        ++checked;
      };
      back_to_back(run[0], run[1]);  // mul after true
      back_to_back(run[1], run[2]);  // add after mul
      for (int trip = 0; trip < 3; ++trip) back_to_back(run[3 + 2 * trip], run[4 + 2 * trip]);  // relu after neg
      const TraceEvent* loop = run[9];
      back_to_back(run[2], loop);  // the Loop starts where add ended
      back_to_back(loop, run[10]);  // sin after the Loop
      // The body's first node starts inside the Loop, at the block's entry.
      EXPECT_GE(run[3]->start_ns, loop->start_ns) << name;
      EXPECT_LE(run[8]->start_ns + run[8]->duration_ns, loop->start_ns + loop->duration_ns) << name;
    }
    EXPECT_EQ(checked, 2 * 7) << name;
  }
}

TEST(CompensationTest, CompensatedTimesEqualTheFreeClocksAtEveryDepth) {
  auto plan = PlanIr(kNested);
  ASSERT_NE(plan, nullptr);
  const std::vector<c10::IValue> inputs = {torch::ones({1}), int64_t{3}, int64_t{4}, int64_t{7}};
  const Report free_reads = ProfileWith(TestClock(), plan, inputs, 2);
  Report costly = ProfileWith(std::make_shared<CostlyReadClock>(), plan, inputs, 2);
  // Uncompensated, the reads inflate every parent by its nested executions.
  EXPECT_GT(costly.run_ns()[0], free_reads.run_ns()[0]);
  Compensate(costly, kCostlyReads, BlockStarts(*plan));
  costly.Finalize();
  EXPECT_TRUE(costly.compensated);
  EXPECT_DOUBLE_EQ(costly.timer_overhead_ns, 100);
  EXPECT_DOUBLE_EQ(costly.timer_inner_ns, 100);
  EXPECT_DOUBLE_EQ(costly.timer_block_ns, 100);
  ExpectSameTimes(costly, free_reads);
  int max_depth = 0;
  for (const NodeRecord& node : costly.nodes) max_depth = std::max(max_depth, node.identity.depth);
  EXPECT_EQ(max_depth, 3);
  // The free clock's numbers are the test operator's: 3 outer + 3*3 odd
  // inner iterations + 1 final advance, 7 ns each.
  EXPECT_EQ(free_reads.run_ns()[0], 13 * 7);
  EXPECT_DOUBLE_EQ(costly.coverage(), 1.0);
}

// Blocks whose first node is itself control flow, a loop that runs no trip
// and an empty else branch: each entry still costs one read, counted from the
// calls of the block's first node.
constexpr char kControlFlowFirst[] = R"IR(
graph(%x : Tensor, %outer : int, %none : int, %ns : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %y : Tensor = prim::Loop(%outer, %true, %x)
    block0(%i : int, %h : Tensor):
      %odd : bool = aten::gt(%i, %zero)
      %h2 : Tensor = prim::If(%odd)
        block0():
          %h3 : Tensor = prim::Loop(%none, %true, %h)
            block0(%j : int, %g : Tensor):
              %g1 : Tensor = graphprof_test::advance(%g, %ns)
              -> (%true, %g1)
          %h4 : Tensor = graphprof_test::advance(%h3, %ns)
          -> (%h4)
        block1():
          -> (%h)
      -> (%true, %h2)
  %z : Tensor = graphprof_test::advance(%y, %ns)
  return (%z)
)IR";

TEST(CompensationTest, BlockEntriesAreCountedWhateverTheirFirstNode) {
  auto plan = PlanIr(kControlFlowFirst);
  ASSERT_NE(plan, nullptr);
  const std::vector<c10::IValue> inputs = {torch::ones({1}), int64_t{3}, int64_t{0}, int64_t{7}};
  const Report free_reads = ProfileWith(TestClock(), plan, inputs, 2);
  Report costly = ProfileWith(std::make_shared<CostlyReadClock>(), plan, inputs, 2);
  Compensate(costly, kCostlyReads, BlockStarts(*plan));
  costly.Finalize();
  ExpectSameTimes(costly, free_reads);
  // i = 1, 2 are odd: two advances in the If, one at the end; the inner
  // loop never runs.
  EXPECT_EQ(free_reads.run_ns()[0], 3 * 7);
}

// With observers nodes are timed with two reads each and no block reads;
// the calibration measures that path when asked.
TEST(CompensationTest, TwoReadCalibrationMeasuresTwoReadsPerNode) {
  const TimerCost cost = MeasureTimerCost(std::make_shared<CostlyReadClock>(), /*trace=*/true, /*two_reads=*/true);
  EXPECT_DOUBLE_EQ(cost.per_execution_ns, 2 * kRead);
  EXPECT_DOUBLE_EQ(cost.inner_ns, kRead);
  EXPECT_EQ(cost.per_block_ns, 0);
}

TEST(CompensationTest, ProfileMeasuresTheCostAndCompensatesUnlessTurnedOff) {
  auto plan = PlanIr(kNested);
  ASSERT_NE(plan, nullptr);
  const std::vector<c10::IValue> inputs = {torch::ones({1}), int64_t{2}, int64_t{3}, int64_t{5}};
  ProfileOptions options;
  options.runs = 2;
  options.warmup = 0;
  options.clock = std::make_shared<CostlyReadClock>();
  absl::StatusOr<Report> compensated = Profile(plan, inputs, options);
  ASSERT_TRUE(compensated.ok()) << compensated.status();
  EXPECT_TRUE(compensated->compensated);
  EXPECT_EQ(compensated->clock, "costly_read");
  // Measured on 1,000 constants and their tuple: one read per node (the
  // run's own reads and its block entry are not counted), one per block.
  EXPECT_DOUBLE_EQ(compensated->timer_overhead_ns, 100);
  EXPECT_DOUBLE_EQ(compensated->timer_inner_ns, 100);
  EXPECT_DOUBLE_EQ(compensated->timer_block_ns, 100);
  // 2 outer + 2*2 odd inner + 1 = 7 advances of 5 ns, exactly: the 24
  // executions' and 13 block entries' reads are all taken off.
  EXPECT_EQ(compensated->run_ns()[0], 35);
  EXPECT_GE(compensated->coverage(), 0.8);

  options.compensate = false;
  absl::StatusOr<Report> raw = Profile(plan, inputs, options);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_FALSE(raw->compensated);
  EXPECT_DOUBLE_EQ(raw->timer_overhead_ns, 100);
  EXPECT_EQ(raw->run_ns()[0], 35 + (1 + 24 + 13) * kRead);
}

TEST(CompensationTest, AFreeClockMeasuresNoCost) {
  const TimerCost cost = MeasureTimerCost(TestClock(), /*trace=*/true);
  EXPECT_EQ(cost.per_execution_ns, 0);
  EXPECT_EQ(cost.inner_ns, 0);
}

// A real clock's reads cost something, but one calibration (best timed run
// minus best plain run) can measure 0 on a noisy machine: every calibration
// is non-negative with its inner part at most the whole, and one of five
// measures a positive cost (a clock that never did would be a clock that
// does not tick, as AFreeClockMeasuresNoCost's).
TEST(CompensationTest, TheRealClocksMeasureAPositiveCost) {
  for (const char* name : {"steady", "tsc"}) {
    absl::StatusOr<std::shared_ptr<TimeSource>> clock = MakeTimeSource(name);
    if (!clock.ok()) continue;
    bool positive = false;
    for (int attempt = 0; attempt < 5 && !positive; ++attempt) {
      const TimerCost cost = MeasureTimerCost(*clock, /*trace=*/true);
      EXPECT_GE(cost.inner_ns, 0) << name;
      EXPECT_LE(cost.inner_ns, cost.per_execution_ns) << name;
      positive = cost.per_execution_ns > 0 && cost.inner_ns > 0;
    }
    EXPECT_TRUE(positive) << name << ": five calibrations measured no cost";
  }
}

TEST(CompensationTest, OvershootFloorsAtZero) {
  auto plan = PlanIr(kNested);
  ASSERT_NE(plan, nullptr);
  Report report = ProfileWith(TestClock(), plan, {torch::ones({1}), int64_t{2}, int64_t{2}, int64_t{1}}, 1);
  Compensate(report, TimerCost{1e6, 1e6});
  report.Finalize();
  for (const NodeRecord& node : report.nodes) {
    for (int64_t v : node.time().total) EXPECT_GE(v, 0);
    for (int64_t v : node.time().self) EXPECT_GE(v, 0);
  }
  EXPECT_EQ(report.run_ns()[0], 0);
}

}  // namespace
}  // namespace graphprof
