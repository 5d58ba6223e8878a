// Training steps (ProfileOptions::backward): which node each autograd
// function came from, backward time and saved memory per node, gradients.
//
// Exact numbers come from graphprof_test::timed, whose forward and backward
// advance the test clock by given amounts; a real-clock check compares each
// convolution's backward time with autograd's own timing of its function.
#include <ATen/record_function.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "ir/ivalue_util.h"
#include "profilers/autograd/sequence_owners.h"
#include "profilers/autograd/training_step.h"
#include "profilers/verification/verify.h"
#include "profilers/profiler.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/stats.h"
#include "profilers/report/views.h"
#include "profilers/toolbox/node_benchmark.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"
#include "tools/zoo/zoo.h"

namespace graphprof {
namespace {

using ::graphprof::testing::DefineWithTestOps;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::TestClock;

TEST(SequenceOwnersTest, TheInnermostNodeOwnsItsFunctions) {
  // Completion order: children (5: [12,14), 6: [15,16)) before their Loop
  // (4: [10,17)), which keeps [10,12), 14 and 16.
  const std::vector<SequenceRange> ranges = {{12, 14, 5}, {15, 16, 6}, {10, 17, 4}, {17, 18, 9}};
  SequenceOwners owners;
  owners.Assign(ranges);
  EXPECT_EQ(owners.size(), 8);
  const std::vector<std::pair<int64_t, int>> expected = {{9, -1}, {10, 4}, {11, 4}, {12, 5}, {13, 5}, {14, 4},
                                                         {15, 6}, {16, 4}, {17, 9}, {18, -1}, {-1, -1}};
  for (const auto& [sequence, node] : expected) EXPECT_EQ(owners.OwnerOf(sequence), node) << sequence;
  owners.Assign({});
  EXPECT_EQ(owners.OwnerOf(12), -1);
}

// root (w) -> a: timed(1000 ns backward), b: a loop of 3 timed(200 ns backward).
torch::jit::Module TimedModule() {
  torch::jit::Module a("A");
  DefineWithTestOps(a, "def forward(self, x):\n    return graphprof_test.timed(x, 100, 1000)\n");
  torch::jit::Module b("B");
  DefineWithTestOps(b,
                    "def forward(self, x):\n"
                    "    h = x\n"
                    "    for i in range(3):\n"
                    "        h = graphprof_test.timed(h, 10, 200)\n"
                    "    return h\n");
  torch::jit::Module root("Root");
  root.register_parameter("w", torch::full({4}, 2.0).requires_grad_(true), /*is_buffer=*/false);
  root.register_module("a", a);
  root.register_module("b", b);
  root.define("def forward(self, x):\n    return self.b.forward(self.a.forward(x * self.w))\n");
  return root;
}

const NodeRecord* FindNode(const Report& report, const std::string& kind, const std::string& module) {
  for (const NodeRecord& node : report.nodes) {
    if (node.identity.kind == kind && node.identity.module == module) return &node;
  }
  return nullptr;
}

ProfileOptions TrainingOptions(std::shared_ptr<TimeSource> clock) {
  ProfileOptions options;
  options.runs = 2;
  options.warmup = 1;
  options.memory = true;
  options.clock = std::move(clock);
  options.backward.enabled = true;
  return options;
}

TEST(BackwardTest, EveryFunctionGoesToTheNodeThatCreatedIt) {
  torch::jit::Module module = TimedModule();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({4})}, TrainingOptions(TestClock()));
  ASSERT_TRUE(report.ok()) << report.status();
  const int backward = report->FindMetric("backward");
  const int functions = report->FindMetric("backward_fns");
  ASSERT_GE(backward, 0);
  ASSERT_GE(functions, 0);
  EXPECT_EQ(report->loss, "the sum of all floating outputs");

  const NodeRecord* a = FindNode(*report, "graphprof_test::timed", "a");
  const NodeRecord* body = FindNode(*report, "graphprof_test::timed", "b");
  const NodeRecord* loop = FindNode(*report, "prim::Loop", "b");
  const NodeRecord* mul = FindNode(*report, "aten::mul", "");
  ASSERT_TRUE(a && body && loop && mul);
  for (int r = 0; r < report->runs; ++r) {
    EXPECT_EQ(a->metrics[backward].total[r], 1000);
    EXPECT_EQ(a->metrics[functions].total[r], 1);
    EXPECT_EQ(a->time().total[r], 100);
    EXPECT_EQ(body->metrics[backward].total[r], 600);  // three iterations
    EXPECT_EQ(body->metrics[functions].total[r], 3);
    EXPECT_EQ(loop->metrics[backward].total[r], 600);  // its body's
    EXPECT_EQ(loop->metrics[backward].self[r], 0);
    EXPECT_EQ(mul->metrics[backward].total[r], 0);  // MulBackward0 takes no test time
    EXPECT_EQ(mul->metrics[functions].total[r], 1);
    // The whole backward, timed around it; nothing outside the nodes took time.
    EXPECT_EQ(report->columns[backward].run_total[r], 1600);
    EXPECT_EQ(report->columns[backward].unattributed[r], 0);
  }
  EXPECT_DOUBLE_EQ(report->CoverageOf(backward), 1.0);

  // The module view answers "whose backward": a 1000, b 600.
  absl::StatusOr<View> modules = MakeView(*report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok()) << modules.status();
  std::map<std::string, double> by_module;
  for (const ViewRow& row : modules->rows) by_module[row.name] = row.metrics[backward].total.mean;
  EXPECT_EQ(by_module["a"], 1000);
  EXPECT_EQ(by_module["b"], 600);
  EXPECT_EQ(by_module["(root)"], 1600);
  // The unattributed row is there and the sums add up to the backward time.
  EXPECT_EQ(modules->rows.back().name, "(unattributed)");
  EXPECT_EQ(modules->sums.metrics[backward].total.mean, 1600);

  // One trace event per function, the graph's named by their node.
  int named = 0;
  for (const TraceEvent& e : report->backward_events) named += e.node == a->identity.id;
  EXPECT_EQ(named, report->runs);
  EXPECT_NE(RenderChromeTrace(*report).find("\"a/timed (backward)\""), std::string::npos)
      << a->identity.label;

  // The parameters keep the last run's gradient: d sum(x * w) / dw = x.
  EXPECT_TRUE(module.attr("w").toTensor().grad().equal(torch::ones({4})));
  ASSERT_EQ(report->gradient_bytes.size(), 1u);
  EXPECT_EQ(report->gradient_bytes[0].module, "");
  EXPECT_EQ(report->gradient_bytes[0].bytes, 16);
}

TEST(BackwardTest, DiffsCarryBothSidesBackward) {
  torch::jit::Module module = TimedModule();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  absl::StatusOr<Report> base = Profile(plan, {torch::ones({4})}, TrainingOptions(TestClock()));
  absl::StatusOr<Report> current = Profile(plan, {torch::ones({4})}, TrainingOptions(TestClock()));
  ASSERT_TRUE(base.ok() && current.ok());
  const ReportDiff diff = DiffReports(*base, *current);
  const int bwd = diff.FindColumn("backward");
  ASSERT_GE(bwd, 0);
  EXPECT_TRUE(diff.columns[bwd].compared());
  EXPECT_TRUE(diff.columns[bwd].has_total_stats);
  EXPECT_EQ(diff.columns[bwd].total.base, 1600);
  EXPECT_EQ(diff.columns[bwd].total.current, 1600);
  // The count of autograd functions is a column too, without verdicts.
  const int fns = diff.FindColumn("backward_fns");
  ASSERT_GE(fns, 0);
  EXPECT_FALSE(diff.columns[fns].compared());
  bool found = false;
  for (const NodeDelta& d : diff.nodes) {
    if (d.kind == "graphprof_test::timed" && d.module == "a") {
      found = true;
      EXPECT_EQ(d.values[bwd].base, 1000);
      EXPECT_EQ(d.values[bwd].current, 1000);
      // Compared run by run: the medians are the per-run values.
      EXPECT_EQ(d.column_stats[bwd].base_median, 1000);
      EXPECT_EQ(d.column_stats[bwd].current_median, 1000);
      EXPECT_NE(d.column_stats[bwd].verdict, Verdict::kSlower);
      EXPECT_NE(d.column_stats[bwd].verdict, Verdict::kFaster);
    }
  }
  EXPECT_TRUE(found);
  const std::string json = DiffToJson(diff);
  for (const char* key : {"\"base_backward_us\"", "\"current_backward_us\"", "\"backward_verdict\"",
                          "\"backward_total\"", "\"base_backward_fns\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  EXPECT_NE(RenderDiff(diff).find("current_backward_us"), std::string::npos);
  EXPECT_NE(DiffToCsv(diff).find(",base_backward_us,current_backward_us,delta_backward_us,backward_verdict,"),
            std::string::npos);
  // Against a forward-only report: no backward columns.
  ProfileOptions forward_only = TrainingOptions(TestClock());
  forward_only.backward.enabled = false;
  absl::StatusOr<Report> plain = Profile(plan, {torch::ones({4})}, forward_only);
  ASSERT_TRUE(plain.ok());
  const ReportDiff against_plain = DiffReports(*base, *plain);
  EXPECT_EQ(against_plain.FindColumn("backward"), -1);
  EXPECT_EQ(RenderDiff(against_plain).find("backward"), std::string::npos);
}

TEST(BackwardTest, BenchmarkNodesSplitsEveryStepByNode) {
  torch::jit::Module module = TimedModule();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  BenchmarkOptions options;
  options.warmup = 1;
  options.steps = 4;
  options.backward = true;
  options.clock = TestClock();
  int last = 0;
  options.progress = [&](int done, int total) {
    EXPECT_EQ(total, 5);
    last = done;
  };
  absl::StatusOr<Report> split = BenchmarkNodes(plan, {torch::ones({4})}, options);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(last, 5);
  EXPECT_EQ(split->runs, 4);
  const NodeRecord* a = FindNode(*split, "graphprof_test::timed", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->time().total, std::vector<int64_t>(4, 100));
  EXPECT_EQ(a->metrics[split->FindMetric("backward")].total, std::vector<int64_t>(4, 1000));
  options.backward = false;
  absl::StatusOr<Report> forward_only = BenchmarkNodes(plan, {torch::ones({4})}, options);
  ASSERT_TRUE(forward_only.ok());
  EXPECT_EQ(forward_only->FindMetric("backward"), -1);
  options.steps = 0;
  EXPECT_FALSE(BenchmarkNodes(plan, {torch::ones({4})}, options).ok());
}

TEST(BackwardTest, ReportsKeepBackwardThroughJson) {
  torch::jit::Module module = TimedModule();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({4})}, TrainingOptions(TestClock()));
  ASSERT_TRUE(report.ok()) << report.status();
  report->gradient_verification = Verification{};
  report->gradient_verification->identical = true;
  absl::StatusOr<Report> read = ReportFromJson(ReportToJson(*report));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(ReportToJson(*read), ReportToJson(*report));
  EXPECT_EQ(read->backward_events.size(), report->backward_events.size());
  EXPECT_TRUE(read->memory->backward);
  EXPECT_EQ(read->loss, report->loss);
  EXPECT_TRUE(read->gradient_verification->identical);
  // The sort keys known before the run (profile_graph checks --sort against
  // them) are the report's.
  EXPECT_EQ(SortKeys(DeclaredReport(TrainingOptions(TestClock()))), SortKeys(*report));
}

// The zoo MLP: the two ReLUs' outputs are what backward keeps (ReluBackward
// saves its result; the linears' inputs are those same tensors, or the
// input, which was not allocated by the graph).
TEST(BackwardTest, SavedBytesAreTheActivationsBackwardKeeps) {
  absl::StatusOr<ZooModel> mlp = MakeZooModel("mlp");
  ASSERT_TRUE(mlp.ok());
  auto plan = PlanModule(mlp->module);
  ASSERT_NE(plan, nullptr);
  absl::StatusOr<Report> report = Profile(plan, mlp->ExampleInputs(), TrainingOptions(DefaultTimeSource()));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->memory.has_value());
  EXPECT_TRUE(report->memory->backward);
  int64_t relu_saved = 0;
  ASSERT_GE(report->FindQuantity("saved_bytes"), 0);
  for (const NodeRecord& node : report->nodes) {
    if (node.identity.kind == "aten::relu") {
      relu_saved += report->QuantityOf(node, "saved_bytes");
    } else {
      EXPECT_EQ(report->QuantityOf(node, "saved_bytes"), 0) << node.identity.label;
    }
  }
  EXPECT_EQ(relu_saved, (32 * 256 + 32 * 128) * 4);
  EXPECT_EQ(report->memory->saved_bytes, relu_saved);
  EXPECT_GT(report->memory->backward_peak_bytes, 0);
  // Gradients: every parameter's, by module.
  std::map<std::string, int64_t> gradients;
  for (const ModuleBytes& m : report->gradient_bytes) gradients[m.module] = m.bytes;
  EXPECT_EQ(gradients["fc1"], (256 * 784 + 256) * 4);
  EXPECT_EQ(gradients["fc2"], (128 * 256 + 128) * 4);
  EXPECT_EQ(gradients["fc3"], (10 * 128 + 10) * 4);
}

// Three identical 3x3 convolutions in their own modules, but the middle one
// runs on its input repeated 10 times (then folded back): 10x the work in
// its conv2d, forward and backward. (Made by batch, not by kernel or channel
// counts: LibTorch's CPU convolutions are not proportional to their FLOPs
// across shapes, 1x1 kernels being slower than 3x3 here.)
torch::jit::Module ThreeConvs() {
  torch::manual_seed(0);
  auto conv = [](const char* name, bool costly) {
    torch::jit::Module m(name);
    m.register_parameter("weight", (torch::randn({16, 16, 3, 3}) * 0.1).requires_grad_(true), false);
    m.define(costly ? "def forward(self, x):\n"
                      "    y = torch.conv2d(x.repeat(10, 1, 1, 1), self.weight, None, 1, 1)\n"
                      "    return y.view(10, x.size(0), 16, x.size(2), x.size(3)).sum(0)\n"
                    : "def forward(self, x):\n    return torch.conv2d(x, self.weight, None, 1, 1)\n");
    return m;
  };
  torch::jit::Module root("ThreeConvs");
  root.register_module("cheap1", conv("Cheap1", false));
  root.register_module("costly", conv("Costly", true));
  root.register_module("cheap2", conv("Cheap2", false));
  root.define("def forward(self, x):\n    return self.cheap2.forward(self.costly.forward(self.cheap1.forward(x)))\n");
  return root;
}

// Autograd's own timing of the backward functions of native forward +
// backward steps, as RecordFunction reports them to any observer (the
// autograd profiler's source): each function's name, sequence number and
// duration. Independent of graphprof's recorder and of its attribution.
struct NativeFunction {
  std::string name;
  int64_t sequence_number;
  int64_t ns;
};
std::vector<NativeFunction>& NativeFunctions() {
  static auto* functions = new std::vector<NativeFunction>;
  return *functions;
}
struct StartTime : at::ObserverContext {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};
std::unique_ptr<at::ObserverContext> NativeStart(const at::RecordFunction&) { return std::make_unique<StartTime>(); }
void NativeEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                       static_cast<StartTime*>(context)->start);
  NativeFunctions().push_back(NativeFunction{fn.name(), fn.seqNr(), ns.count()});
}

// The duration of each ConvolutionBackward0 of `steps` native steps, in the
// order their convolutions ran forward (sequence numbers grow with it).
std::vector<std::vector<double>> NativeConvolutionBackward(torch::jit::Module& module, const at::Tensor& x, int steps) {
  std::vector<std::vector<double>> per_conv;
  for (int step = 0; step < steps; ++step) {
    NativeFunctions().clear();
    const at::CallbackHandle handle = at::addGlobalCallback(
        at::RecordFunctionCallback(&NativeStart, &NativeEnd).scopes({at::RecordScope::BACKWARD_FUNCTION}));
    module.forward({x}).toTensor().sum().backward();
    at::removeCallback(handle);
    std::vector<NativeFunction> convs;
    for (const NativeFunction& f : NativeFunctions()) {
      if (f.name == "ConvolutionBackward0") convs.push_back(f);
    }
    std::sort(convs.begin(), convs.end(),
              [](const NativeFunction& a, const NativeFunction& b) { return a.sequence_number < b.sequence_number; });
    per_conv.resize(convs.size());
    for (size_t i = 0; i < convs.size(); ++i) per_conv[i].push_back(static_cast<double>(convs[i].ns));
  }
  return per_conv;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Each convolution's backward time lands on its node: graphprof's per-node
// backward time agrees with autograd's own timing of that node's
// ConvolutionBackward0, convolution by convolution. (Not a ratio assumed
// from FLOPs: the "costly" convolution does 10x the work, yet on LibTorch
// 2.6 the cheap ones' backward took longer — a 1x1-style input-gradient
// path — and autograd's own timing says the same: graphprof must follow
// what ran, on every version.)
TEST(BackwardTest, TheCostlyConvolutionsBackwardLandsOnItsModule) {
  torch::jit::Module module = ThreeConvs();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  const std::vector<c10::IValue> inputs = {torch::randn({4, 16, 32, 32})};
  ProfileOptions options = TrainingOptions(DefaultTimeSource());
  options.runs = 5;
  absl::StatusOr<Report> report = Profile(plan, inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const int backward = report->FindMetric("backward");
  // The conv2d nodes in forward order, and autograd's timing of theirs.
  const NodeRecord* convs[3] = {FindNode(*report, "aten::conv2d", "cheap1"), FindNode(*report, "aten::conv2d", "costly"),
                                FindNode(*report, "aten::conv2d", "cheap2")};
  ASSERT_TRUE(convs[0] && convs[1] && convs[2]);
  torch::jit::Module native_module = ThreeConvs();
  NativeConvolutionBackward(native_module, inputs[0].toTensor(), 2);  // warm-up
  const std::vector<std::vector<double>> autograd = NativeConvolutionBackward(native_module, inputs[0].toTensor(), 7);
  ASSERT_EQ(autograd.size(), 3u) << "three ConvolutionBackward0 per step";
  double graphprof_ns[3], autograd_ns[3];
  for (int i = 0; i < 3; ++i) {
    graphprof_ns[i] = Summarize(convs[i]->metrics[backward].total).median;
    autograd_ns[i] = Median(autograd[i]);
    EXPECT_EQ(convs[i]->metrics[report->FindMetric("backward_fns")].total[0], 1) << i;
    ASSERT_GT(autograd_ns[i], 0);
    // Each node's time within 5x of autograd's timing of its function (the
    // two are separate runs on a shared machine: 3x apart seen under load).
    EXPECT_GT(graphprof_ns[i], autograd_ns[i] / 5) << "conv " << i << ": " << graphprof_ns[i] << " ns against autograd's " << autograd_ns[i];
    EXPECT_LT(graphprof_ns[i], autograd_ns[i] * 5) << "conv " << i << ": " << graphprof_ns[i] << " ns against autograd's " << autograd_ns[i];
  }
  // The costly convolution's share against each cheap one's, as autograd
  // times them (within 8x: 3.8x apart was seen with four test actions on two
  // cores; a misattribution swaps them, which puts the ratio near 1/1000 on
  // LibTorch 1.13, where costly/cheap is about 30, and far off on 2.6 too).
  for (int cheap : {0, 2}) {
    const double ratio = (graphprof_ns[1] / graphprof_ns[cheap]) / (autograd_ns[1] / autograd_ns[cheap]);
    EXPECT_GT(ratio, 1.0 / 8) << "costly/conv " << cheap << ": ours " << graphprof_ns[1] / graphprof_ns[cheap] << ", autograd's "
                          << autograd_ns[1] / autograd_ns[cheap];
    EXPECT_LT(ratio, 8.0) << "costly/conv " << cheap << ": ours " << graphprof_ns[1] / graphprof_ns[cheap] << ", autograd's "
                          << autograd_ns[1] / autograd_ns[cheap];
  }
  // Gradients equal those of native forward + backward.
  const TrainingStep training(plan->self(), options.backward);
  const std::vector<at::Tensor> ours = training.Gradients();
  ASSERT_EQ(ours.size(), 3u);
  auto native = [&](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
    return module.forward(in);
  };
  absl::StatusOr<std::vector<at::Tensor>> reference = training.ReferenceGradients(native, inputs);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const Verification v =
      CompareGradients(training.ParameterNames(), *reference, ours, 0, 0, "module.forward + backward");
  EXPECT_TRUE(v.identical) << v.detail;
  // A changed gradient is caught and named.
  std::vector<at::Tensor> changed = ours;
  changed[1] = changed[1].clone();
  changed[1].view(-1)[7] += 1;
  const Verification bad =
      CompareGradients(training.ParameterNames(), *reference, changed, 0, 0, "module.forward + backward");
  EXPECT_FALSE(bad.passed());
  EXPECT_NE(bad.detail.find("costly.weight"), std::string::npos) << bad.detail;
}

TEST(BackwardTest, LossChoicesAndErrors) {
  torch::jit::Module module = TimedModule();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  const at::Tensor grad = torch::ones({3}).requires_grad_(true) * 2;
  const at::Tensor no_grad = torch::ones({3});
  const c10::IValue pair = c10::ivalue::Tuple::create({grad.sum(), grad});

  TrainingStep sum(plan->self(), BackwardOptions{true, -1});
  EXPECT_EQ(sum.parameters().size(), 1u);
  EXPECT_TRUE(sum.Loss(pair).ok());
  absl::StatusOr<at::Tensor> none = sum.Loss(no_grad);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("requires grad"), std::string::npos) << none.status();

  TrainingStep first(plan->self(), BackwardOptions{true, 0});
  EXPECT_EQ(first.DescribeLoss(), "output 0");
  EXPECT_TRUE(first.Loss(pair).ok());
  TrainingStep second(plan->self(), BackwardOptions{true, 1});
  absl::StatusOr<at::Tensor> not_scalar = second.Loss(pair);
  ASSERT_FALSE(not_scalar.ok());
  EXPECT_NE(not_scalar.status().message().find("must be a one-element floating tensor"), std::string::npos)
      << not_scalar.status();
  TrainingStep missing(plan->self(), BackwardOptions{true, 5});
  absl::StatusOr<at::Tensor> out_of_range = missing.Loss(pair);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.status().message().find("returns 2 outputs"), std::string::npos) << out_of_range.status();
}

TEST(BackwardTest, AFrozenModuleHasNothingToDifferentiate) {
  absl::StatusOr<ZooModel> mlp = MakeZooModel("mlp");
  ASSERT_TRUE(mlp.ok());
  torch::jit::Module frozen = torch::jit::freeze(mlp->module);
  auto plan = PlanModule(frozen);
  ASSERT_NE(plan, nullptr);
  absl::StatusOr<Report> report = Profile(plan, mlp->ExampleInputs(), TrainingOptions(TestClock()));
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("no floating output requires grad"), std::string::npos)
      << report.status();
}

}  // namespace
}  // namespace graphprof
