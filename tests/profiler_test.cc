// ProfilingInterpreter and Profile(): attribution with a deterministic clock,
// ranking with the real clock, and the memory view.
#include "profilers/profiler.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "profilers/node_observer.h"
#include "tools/zoo/zoo.h"
#include "profilers/report/views.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::kLoopIr;
using ::graphprof::testing::PlanIr;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::TestClock;

// Timed runs with different inputs per run, on the test clock.
Report ProfileRuns(std::shared_ptr<const GraphPlan> plan,
                   const std::vector<std::vector<c10::IValue>>& runs, bool memory = false) {
  ProfilingInterpreter profiler(plan, TestClock());
  profiler.BeginInspection(memory);
  EXPECT_TRUE(profiler.Run(runs[0]).ok());
  profiler.BeginTimedRuns(static_cast<int>(runs.size()), 1000);
  for (const std::vector<c10::IValue>& inputs : runs) {
    absl::StatusOr<c10::IValue> out = profiler.Run(inputs);
    EXPECT_TRUE(out.ok()) << out.status();
  }
  return BuildReport(profiler, /*warmup=*/0);
}

constexpr char kTwoSteps[] = R"IR(
graph(%x : Tensor, %a : int, %b : int):
  %y : Tensor = graphprof_test::advance(%x, %a)
  %z : Tensor = graphprof_test::advance(%y, %b)
  return (%z)
)IR";

TEST(ProfilerTest, StatisticsAreExactWithTheTestClock) {
  auto plan = PlanIr(kTwoSteps);
  ASSERT_NE(plan, nullptr);
  at::Tensor x = torch::ones({1});
  Report report = ProfileRuns(plan, {{x, int64_t{100}, int64_t{300}},
                                     {x, int64_t{200}, int64_t{300}},
                                     {x, int64_t{600}, int64_t{300}}});
  ASSERT_EQ(report.runs, 3);
  EXPECT_EQ(report.run_ns(), (std::vector<int64_t>{400, 500, 900}));
  EXPECT_DOUBLE_EQ(report.total_us(), 0.6);
  EXPECT_DOUBLE_EQ(report.coverage(), 1.0);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].time().total, (std::vector<int64_t>{100, 200, 600}));
  EXPECT_EQ(report.nodes[0].calls, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(report.nodes[0].input_shapes, "f32[1], int");

  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kNode, "id", 0});
  ASSERT_TRUE(view.ok()) << view.status();
  const ViewRow& first = view->rows[0];
  EXPECT_DOUBLE_EQ(first.time().total.mean, 300);
  EXPECT_NEAR(first.time().total.std, 264.5751311, 1e-6);
  EXPECT_DOUBLE_EQ(first.time().total.median, 200);
  EXPECT_DOUBLE_EQ(first.time().total.p90, 520);
  EXPECT_DOUBLE_EQ(first.time().total.min, 100);
  EXPECT_DOUBLE_EQ(first.time().total.max, 600);
  EXPECT_DOUBLE_EQ(first.time().total.total, 900);
  EXPECT_DOUBLE_EQ(first.time().percent, 50);
  EXPECT_DOUBLE_EQ(view->rows[1].time().percent, 50);
  EXPECT_DOUBLE_EQ(view->rows[1].time().total.std, 0);
  EXPECT_DOUBLE_EQ(view->sums.time().percent, 100);
  EXPECT_DOUBLE_EQ(view->sums.time().total.mean, 600);
}

constexpr char kLoop[] = R"IR(
graph(%x : Tensor, %n : int, %ns : int):
  %true : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %h : Tensor):
      %h2 : Tensor = graphprof_test::advance(%h, %ns)
      -> (%true, %h2)
  %z : Tensor = graphprof_test::advance(%y, %ns)
  return (%z)
)IR";

TEST(ProfilerTest, LoopTimeIsInclusiveAndBodyNodesCountEveryCall) {
  auto plan = PlanIr(kLoop);
  ASSERT_NE(plan, nullptr);
  Report report = ProfileRuns(plan, {{torch::ones({1}), int64_t{4}, int64_t{10}}});
  ASSERT_EQ(report.nodes.size(), 4u);  // constant, loop, body advance, advance
  const NodeRecord& loop = report.nodes[1];
  const NodeRecord& body = report.nodes[2];
  EXPECT_EQ(loop.identity.kind, "prim::Loop");
  EXPECT_EQ(body.identity.parent, 1);
  EXPECT_EQ(body.identity.depth, 1);
  EXPECT_EQ(loop.time().total[0], 40);
  EXPECT_EQ(loop.time().self[0], 0);
  EXPECT_EQ(body.calls[0], 4);
  EXPECT_EQ(body.time().total[0], 40);
  EXPECT_EQ(report.run_ns()[0], 50);
  EXPECT_DOUBLE_EQ(report.coverage(), 1.0);

  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  ASSERT_EQ(kinds->rows[0].name, "graphprof_test::advance");
  EXPECT_DOUBLE_EQ(kinds->rows[0].time().total.mean, 50);
  EXPECT_DOUBLE_EQ(kinds->rows[0].calls, 5);
  EXPECT_EQ(kinds->rows[0].members, 2);
  double percent = 0;
  for (const ViewRow& row : kinds->rows) percent += row.time().percent;
  EXPECT_DOUBLE_EQ(percent, 100);
  EXPECT_DOUBLE_EQ(kinds->sums.time().percent, 100);
}

// A subclass overrides RunNode as it would Interpreter's: its override runs
// for every node execution in every mode (inspection, timed runs with the
// fast loop's clock, nested blocks), and what it does is timed as part of
// its node. Nothing for the subclass to honour.
class SlowingProfiler : public ProfilingInterpreter {
 public:
  using ProfilingInterpreter::ProfilingInterpreter;
  std::vector<int> calls;

 protected:
  absl::Status RunNode(const NodePlan& node) override {
    calls.resize(plan().nodes().size());
    ++calls[node.id];
    TestClock()->Advance(1);
    return ProfilingInterpreter::RunNode(node);
  }
};

TEST(ProfilerTest, ASubclassRunNodeIsCalledAndTimedInEveryMode) {
  auto plan = PlanIr(kLoop);
  ASSERT_NE(plan, nullptr);
  for (const size_t trace : {size_t{0}, size_t{1000}}) {
    SlowingProfiler profiler(plan, TestClock());
    const std::vector<c10::IValue> inputs = {torch::ones({1}), int64_t{4}, int64_t{10}};
    profiler.BeginInspection(/*memory=*/true);
    ASSERT_TRUE(profiler.Run(inputs).ok());
    profiler.BeginTimedRuns(2, trace);
    ASSERT_TRUE(profiler.Run(inputs).ok());
    ASSERT_TRUE(profiler.Run(inputs).ok());
    // Constant, loop, body (4 iterations), advance; in three runs.
    EXPECT_EQ(profiler.calls, (std::vector<int>{3, 3, 12, 3}));
    const Report report = BuildReport(profiler, /*warmup=*/0);
    ASSERT_EQ(report.nodes.size(), 4u);
    EXPECT_EQ(report.nodes[2].calls[1], 4);
    // Each execution: 1 ns in the override, then its own advance.
    EXPECT_EQ(report.nodes[0].time().total[1], 1);
    EXPECT_EQ(report.nodes[2].time().total[1], 4 * 11);
    EXPECT_EQ(report.nodes[1].time().total[1], 1 + 4 * 11);
    EXPECT_EQ(report.nodes[3].time().total[1], 11);
    EXPECT_EQ(report.run_ns()[1], 57);
    EXPECT_EQ(report.nodes[2].input_shapes, "f32[1], int");
  }
}

// A module tree whose nodes advance the test clock by known amounts:
// root -> a (100), b (25) -> b.c (50).
torch::jit::Module TreeModule() {
  using ::graphprof::testing::DefineWithTestOps;
  torch::jit::Module c("C");
  DefineWithTestOps(c, "def forward(self, x):\n    return graphprof_test.advance(x, 50)\n");
  torch::jit::Module b("B");
  b.register_module("c", c);
  DefineWithTestOps(b, "def forward(self, x):\n    x = graphprof_test.advance(x, 25)\n    return self.c.forward(x)\n");
  torch::jit::Module a("A");
  DefineWithTestOps(a, "def forward(self, x):\n    return graphprof_test.advance(x, 100)\n");
  torch::jit::Module root("Root");
  root.register_module("a", a);
  root.register_module("b", b);
  root.define("def forward(self, x):\n    return self.b.forward(self.a.forward(x))\n");
  return root;
}

TEST(ProfilerTest, ModuleViewAggregatesTheTree) {
  auto plan = PlanModule(TreeModule());
  ASSERT_NE(plan, nullptr);
  Report report = ProfileRuns(plan, {{torch::ones({1})}, {torch::ones({1})}});
  absl::StatusOr<View> modules = MakeView(report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok()) << modules.status();
  std::vector<std::string> names;
  for (const ViewRow& row : modules->rows) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"(root)", "a", "b", "b.c"}));
  EXPECT_DOUBLE_EQ(modules->rows[0].time().total.mean, 175);
  EXPECT_DOUBLE_EQ(modules->rows[0].time().self.mean, 0);
  EXPECT_DOUBLE_EQ(modules->rows[1].time().total.mean, 100);
  EXPECT_DOUBLE_EQ(modules->rows[2].time().total.mean, 75);
  EXPECT_DOUBLE_EQ(modules->rows[2].time().self.mean, 25);
  EXPECT_EQ(modules->rows[3].depth, 2);
  EXPECT_DOUBLE_EQ(modules->rows[3].time().total.mean, 50);
  EXPECT_DOUBLE_EQ(modules->sums.time().total.mean, 175);

  absl::StatusOr<View> sorted = MakeView(report, ViewOptions{GroupBy::kModule, "mean", 2});
  ASSERT_TRUE(sorted.ok());
  ASSERT_EQ(sorted->rows.size(), 2u);
  EXPECT_EQ(sorted->rows[1].name, "a");
  EXPECT_EQ(sorted->total_rows, 4u);
}

TEST(ProfilerTest, ShapeViewGroupsByKindAndInputShapes) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %y : Tensor):
  %n : int = prim::Constant[value=7]()
  %a : Tensor = graphprof_test::advance(%x, %n)
  %b : Tensor = graphprof_test::advance(%y, %n)
  %c : Tensor = graphprof_test::advance(%a, %n)
  %out : (Tensor, Tensor) = prim::TupleConstruct(%b, %c)
  return (%out)
)IR");
  ASSERT_NE(plan, nullptr);
  Report report = ProfileRuns(plan, {{torch::ones({2}), torch::ones({3, 3})}});
  absl::StatusOr<View> shapes = MakeView(report, ViewOptions{GroupBy::kShape, "", 0});
  ASSERT_TRUE(shapes.ok());
  ASSERT_GE(shapes->rows.size(), 2u);
  EXPECT_EQ(shapes->rows[0].name, "graphprof_test::advance (f32[2], int)");
  EXPECT_DOUBLE_EQ(shapes->rows[0].time().total.mean, 14);
  EXPECT_EQ(shapes->rows[0].members, 2);
  EXPECT_EQ(shapes->rows[1].name, "graphprof_test::advance (f32[3,3], int)");
  EXPECT_DOUBLE_EQ(shapes->rows[1].time().total.mean, 7);
}

TEST(ProfilerTest, BadViewOptionsAreRejected) {
  Report report;
  EXPECT_FALSE(MakeView(report, ViewOptions{GroupBy::kNode, "fastest", 0}).ok());
  EXPECT_FALSE(MakeView(report, ViewOptions{GroupBy::kNode, "", -1}).ok());
  EXPECT_FALSE(ParseGroupBy("layer").ok());
  EXPECT_TRUE(absl::StrContains(MakeView(report, ViewOptions{GroupBy::kNode, "fastest", 0}).status().message(),
                                "unknown sort column 'fastest'"));
}

TEST(ProfilerTest, SlowNodeRanksFirstWithTheRealClock) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor):
  %us : int = prim::Constant[value=3000]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %x, %one)
  %b : Tensor = graphprof_test::busy_wait(%a, %us)
  %c : Tensor = aten::mul(%b, %b)
  %d : Tensor = aten::relu(%c)
  return (%d)
)IR");
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.warmup = 1;
  options.runs = 5;
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({4})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  // Measured (timed runs against plain ones, clamped at 0, so any value is
  // possible on a loaded machine); what holds whatever the machine: the part
  // of the cost inside a node's own interval is part of the whole, and a
  // block entry costs one read like a node's (chained reads) or nothing
  // (two reads per node).
  EXPECT_LE(report->timer_inner_ns, report->timer_overhead_ns);
  EXPECT_GE(report->timer_inner_ns, 0);
  EXPECT_TRUE(report->timer_block_ns == 0 || report->timer_block_ns == report->timer_overhead_ns)
      << report->timer_block_ns << " vs " << report->timer_overhead_ns;
  absl::StatusOr<View> view = MakeView(*report, ViewOptions{});
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->rows[0].kind, "graphprof_test::busy_wait");
  EXPECT_GT(view->rows[0].time().percent, 80);
  EXPECT_GT(report->coverage(), 0.5);
  EXPECT_LE(report->coverage(), 1.0);
}

// The collector protocol's run-level hooks: every run's forward, in order,
// with its output; a collector that observes no nodes leaves the timed runs
// on the one-read path (compensated), and its error fails the run it was in.
class RunLog final : public NodeObserver {
 public:
  bool ObservesNodes() const override { return false; }
  void BeforeForward(Phase phase) override { log += "b"; }
  absl::Status AfterForward(Phase phase, int run, const c10::IValue& output) override {
    const char* name[] = {"W", "I", "T"};
    absl::StrAppend(&log, name[static_cast<int>(phase)], run, output.isTensor() ? "" : "?", " ");
    if (fail_at >= 0 && phase == Phase::kTimed && run == fail_at) return absl::InternalError("collector says no");
    return absl::OkStatus();
  }
  void BeginNode(const NodePlan&) override { log += "node "; }
  std::string log;
  int fail_at = -1;
};

TEST(ProfilerTest, CollectorsSeeEveryForwardInOrder) {
  auto plan = PlanIr(kTwoSteps);
  ASSERT_NE(plan, nullptr);
  RunLog collector;
  ProfileOptions options;
  options.warmup = 2;
  options.runs = 3;
  options.clock = TestClock();
  options.observers = {&collector};
  const std::vector<c10::IValue> inputs = {torch::ones({1}), int64_t{100}, int64_t{300}};
  absl::StatusOr<Report> report = Profile(plan, inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(collector.log, "bW0 bW1 bI0 bT0 bT1 bT2 ");
  EXPECT_TRUE(report->compensated);

  RunLog failing;
  failing.fail_at = 1;
  options.observers = {&failing};
  absl::StatusOr<Report> failed = Profile(plan, inputs, options);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "timed run 2")) << failed.status();
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "collector says no")) << failed.status();
}

TEST(ProfilerTest, ProfilingDoesNotChangeTheOutput) {
  absl::StatusOr<ZooModel> model = MakeZooModel("control_flow");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.warmup = 1;
  options.runs = 2;
  options.memory = true;
  std::vector<c10::IValue> inputs = model->ExampleInputs(2);
  c10::IValue output;
  absl::StatusOr<Report> report = Profile(plan, inputs, options, &output);
  ASSERT_TRUE(report.ok()) << report.status();
  std::string why;
  EXPECT_TRUE(IdenticalIValues(model->module.forward(inputs), output, &why)) << why;
}

// A loop over a List[Tensor] input of 100,000 elements profiles in time
// linear in its length (the inspection run described the whole list for
// every __getitem__: 16,000 elements took 75 s, 100,000 did not finish),
// with every element's node execution counted.
TEST(ProfilerTest, AHundredThousandElementListInputDoesNotHang) {
  torch::jit::Module m("ListSum");
  m.define(R"(
def forward(self, xs: List[Tensor]):
    y = xs[0]
    for t in xs:
        y = y + t
    return y
)");
  auto plan = PlanModule(m);
  ASSERT_NE(plan, nullptr);
  c10::List<at::Tensor> xs;
  for (int i = 0; i < 100000; ++i) xs.push_back(torch::ones({2}));
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 1;
  options.memory = true;  // the inspection run, where the work counter reads arguments
  options.trace = false;
  c10::IValue output;
  absl::StatusOr<Report> report = Profile(plan, {xs}, options, &output);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(torch::equal(output.toTensor(), torch::full({2}, 100001.0)));
  int64_t adds = 0;
  for (const NodeRecord& node : report->nodes) {
    if (node.identity.kind == "aten::add" && !node.calls.empty()) adds = std::max(adds, node.calls[0]);
  }
  EXPECT_EQ(adds, 100000);
}

TEST(ProfilerTest, FailingRunIsReportedWithTheRunAndNode) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %fail : bool):
  %y : Tensor = graphprof_test::fail_if(%x, %fail)
  return (%y)
)IR");
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.warmup = 2;
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({1}), true}, options);
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(absl::StrContains(report.status().message(), "warm-up run 1")) << report.status();
  EXPECT_TRUE(absl::StrContains(report.status().message(), "graphprof_test failure")) << report.status();
  options.runs = 0;
  EXPECT_FALSE(Profile(plan, {torch::ones({1}), false}, options).ok());
}

TEST(ProfilerTest, AFailureInsideALoopBodyFailsOnlyThatTimedRun) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %n : int, %k : int):
  %true : bool = prim::Constant[value=1]()
  %ns : int = prim::Constant[value=10]()
  %z : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %h : Tensor):
      %f : bool = aten::eq(%i, %k)
      %h1 : Tensor = graphprof_test::advance(%h, %ns)
      %h2 : Tensor = graphprof_test::fail_if(%h1, %f)
      -> (%true, %h2)
  return (%z)
)IR");
  ASSERT_NE(plan, nullptr);
  ProfilingInterpreter profiler(plan, TestClock());
  profiler.BeginInspection(false);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), int64_t{4}, int64_t{-1}}).ok());
  profiler.BeginTimedRuns(2, 1000);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), int64_t{4}, int64_t{-1}}).ok());
  const size_t events_after_first = profiler.events().size();
  absl::StatusOr<c10::IValue> failed = profiler.Run({torch::ones({1}), int64_t{4}, int64_t{2}});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "fail_if")) << failed.status();
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "graphprof_test failure")) << failed.status();
  EXPECT_EQ(profiler.completed_runs(), 1);
  EXPECT_EQ(profiler.events().size(), events_after_first) << "the failed run's events are dropped";
  ASSERT_TRUE(profiler.Run({torch::ones({1}), int64_t{3}, int64_t{-1}}).ok());
  EXPECT_EQ(profiler.completed_runs(), 2);
  const int advance = 5;  // constants 0-1, loop 2, body: eq 3, advance 4, fail_if 5
  ASSERT_EQ(plan->node(advance - 1).identity.kind, "graphprof_test::advance");
  EXPECT_EQ(profiler.sample(0, advance - 1).calls, 4);
  EXPECT_EQ(profiler.sample(1, advance - 1).calls, 3) << "the second row holds the run after the failure";
  EXPECT_EQ(profiler.sample(1, 2).total, 30) << "the loop's time: three advances of 10 ns";
}

TEST(ProfilerTest, AFailedTimedRunLeavesNoSamples) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %fail : bool):
  %ns : int = prim::Constant[value=100]()
  %y : Tensor = graphprof_test::advance(%x, %ns)
  %z : Tensor = graphprof_test::fail_if(%y, %fail)
  return (%z)
)IR");
  ASSERT_NE(plan, nullptr);
  ProfilingInterpreter profiler(plan, TestClock());
  profiler.BeginInspection(false);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), false}).ok());
  profiler.BeginTimedRuns(1, 100);
  EXPECT_FALSE(profiler.Run({torch::ones({1}), true}).ok());
  EXPECT_EQ(profiler.completed_runs(), 0);
  EXPECT_EQ(profiler.events().size(), 0u);
  ASSERT_TRUE(profiler.Run({torch::ones({1}), false}).ok());
  EXPECT_EQ(profiler.completed_runs(), 1);
  EXPECT_EQ(profiler.sample(0, 1).total, 100) << "the failed run's time is not added";
  EXPECT_EQ(profiler.sample(0, 1).calls, 1);
  EXPECT_EQ(profiler.events().size(), 3u);
}

// Memory: per-node bytes are the sizes of the tensors created, and the run's
// peak equals module.forward's peak measured by the same hook.
TEST(ProfilerTest, MemoryViewMatchesTensorSizesAndNativePeak) {
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  absl::StatusOr<ZooModel> model = MakeZooModel("mlp");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  const std::vector<c10::IValue> inputs = model->ExampleInputs(1);
  ProfileOptions options;
  options.warmup = 2;
  options.runs = 1;
  options.memory = true;
  absl::StatusOr<Report> report = Profile(plan, inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->memory.has_value());

  // 32x784 -> fc1 [32,256] -> relu -> fc2 [32,128] -> relu -> fc3 [32,10] -> log_softmax.
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"fc1/linear", 32 * 256 * 4}, {"relu", 32 * 256 * 4}, {"fc2/linear", 32 * 128 * 4},
      {"relu", 32 * 128 * 4},       {"fc3/linear", 32 * 10 * 4}, {"log_softmax", 32 * 10 * 4}};
  size_t checked = 0;
  for (const NodeRecord& node : report->nodes) {
    if (checked == expected.size() || node.identity.label != expected[checked].first) continue;
    EXPECT_EQ(report->QuantityOf(node, "output_bytes"), expected[checked].second) << node.identity.label;
    EXPECT_EQ(report->QuantityOf(node, "allocated_bytes"), expected[checked].second) << node.identity.label;
    ++checked;
  }
  EXPECT_EQ(checked, expected.size());

  for (const std::string name : {"mlp", "resnet18", "gcn"}) {
    absl::StatusOr<ZooModel> m = MakeZooModel(name);
    ASSERT_TRUE(m.ok());
    auto p = PlanModule(m->module);
    ASSERT_NE(p, nullptr);
    const std::vector<c10::IValue> in = m->ExampleInputs(1);
    c10::IValue out;
    absl::StatusOr<Report> r = Profile(p, in, options, &out);
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < 3; ++i) m->module.forward(in);
    auto tracker = std::make_shared<MemoryTracker>();
    {
      ScopedMemoryTracking scope(tracker);
      m->module.forward(in);
    }
    EXPECT_EQ(r->memory->peak_bytes, tracker->peak_bytes()) << name;
    EXPECT_GE(r->memory->peak_node, 0) << name;
    // One point per node execution of the inspection run, and the timeline
    // ends where the run ends: only the output is still live.
    ASSERT_EQ(static_cast<int64_t>(r->memory->timeline.size()), r->executions_per_run()) << name;
    EXPECT_EQ(r->memory->timeline.back().live_bytes, IValueBytes(out)) << name;
    int64_t peak_on_timeline = 0;
    for (const MemoryPoint& p : r->memory->timeline) peak_on_timeline = std::max(peak_on_timeline, p.live_bytes);
    EXPECT_LE(peak_on_timeline, r->memory->peak_bytes) << name << ": points are after nodes, the peak inside one";
  }
}

// Memory under control flow: a Loop's record includes its body, but views
// add self memory, so nothing is counted twice.
TEST(ProfilerTest, MemoryViewsDoNotCountLoopBodiesTwice) {
  at::set_num_threads(1);
  auto plan = PlanIr(kLoopIr);
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 1;
  options.memory = true;
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({256}), int64_t{4}}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const int64_t total = report->memory->allocated_bytes;
  EXPECT_EQ(total, 5 * 256 * 4) << "four adds and one mul";
  const int loop = 2, add = 3;
  ASSERT_EQ(report->nodes[loop].identity.kind, "prim::Loop");
  const int allocated = report->FindQuantity("allocated_bytes");
  ASSERT_GE(allocated, 0);
  EXPECT_EQ(report->nodes[loop].quantities[allocated], 4 * 256 * 4) << "inclusive: the body's allocations";
  EXPECT_EQ(report->nodes[loop].self_quantities[allocated], 0) << "none of its own";
  EXPECT_EQ(report->nodes[add].self_quantities[allocated], 4 * 256 * 4);
  for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    absl::StatusOr<View> view = MakeView(*report, ViewOptions{group_by, "", 0});
    ASSERT_TRUE(view.ok());
    EXPECT_EQ(view->sums.quantities[allocated], total) << GroupByName(group_by);
    if (group_by == GroupBy::kKind) {
      int64_t rows = 0;
      for (const ViewRow& row : view->rows) rows += row.members > 0 ? row.quantities[allocated] : 0;
      EXPECT_EQ(rows, total) << "kind rows add up to the run's allocations";
    }
  }
}

}  // namespace
}  // namespace graphprof
