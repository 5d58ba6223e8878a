// Compiled programs run whole (profilers/compiled): how a run's recorded
// scopes are cut into rows (exact, on given timestamps), the scopes a
// RecordFunction callback records, and ProfileCompiled's report on a fake
// compiled program that opens its "kernels'" scopes as AOTInductor's
// generated code does. Real packages: tests/compiled_cli_test.cc (LibTorch 2.6).
#include <ATen/record_function.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "common/module_path.h"
#include "ir/compiled/wrapper_calls.h"
#include "profilers/compiled/compiled_plan.h"
#include "profilers/compiled/compiled_profile.h"
#include "profilers/compiled/kernel_work.h"
#include "profilers/profiler.h"
#include "profilers/compiled/scope_recorder.h"

namespace graphprof {
namespace {

// A wrapper calling kernel a, an extern convolution, kernel b, an extern
// addmm right after another extern view copy, then kernel a again.
constexpr char kWrapper[] = R"CPP(
extern "C"  void cpp_fused_a_0(float* p)
{
    RECORD_FUNCTION("graph_0_cpp_fused_a_0", c10::ArrayRef<c10::IValue>({}));
}
extern "C"  void cpp_fused_b_1(float* p)
{
    RECORD_FUNCTION("graph_0_cpp_fused_b_1", c10::ArrayRef<c10::IValue>({}));
}
void AOTInductorModel::run_impl(
) {
    cpp_fused_a_0((float*)(buf0.data_ptr()));
    // Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_convolution(buf0, buf1, &buf3_handle));
    cpp_fused_b_1((float*)(buf3.data_ptr()));
    // Topologically Sorted Source Nodes: [flatten], Original ATen: [aten.clone]
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_clone(buf3, &buf4_handle));
    // Topologically Sorted Source Nodes: [linear], Original ATen: [aten.addmm]
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf7, buf6, buf4, w, 1L, 1L));
    cpp_fused_a_0((float*)(buf7.data_ptr()));
} // AOTInductorModel::run_impl
)CPP";

constexpr char kRecord[] = R"({"format": 1, "kernels": {
    "cpp_fused_a_0": {"nodes": ["relu"], "aten": ["aten.relu"]},
    "cpp_fused_b_1": {"nodes": ["batch_norm", "relu_1"], "aten": ["aten._native_batch_norm_legit_no_training"]}}})";

WrapperCalls Calls() {
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(kWrapper, "w.cpp");
  EXPECT_TRUE(calls.ok()) << calls.status();
  EXPECT_TRUE(ApplyKernelRecord(kRecord, "kernels.json", *calls).ok());
  return *calls;
}

std::map<std::string, NodePlace> Places() {
  return {{"relu", {"block", "m.py:10", "aten::relu"}},
          {"conv2d", {"block.conv", "m.py:8", "aten::conv2d"}},
          {"batch_norm", {"block.bn", "m.py:9", "aten::batch_norm"}},
          {"relu_1", {"block", "m.py:11", "aten::relu"}},
          {"flatten", {"", "m.py:20", "aten::flatten"}},
          {"linear", {"fc", "m.py:21", "aten::linear"}}};
}

CompiledPlan Plan() {
  absl::StatusOr<CompiledPlan> plan = CompiledPlan::Build(Calls(), Places());
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *std::move(plan);
}

TEST(CompiledPlanTest, RowsAreKernelsAndStretchesOfExternCalls) {
  const CompiledPlan plan = Plan();
  ASSERT_EQ(plan.rows().size(), 5u);
  std::vector<std::string> kinds, modules, sources;
  for (const CompiledRow& row : plan.rows()) {
    kinds.push_back(row.identity.kind);
    modules.push_back(row.identity.module);
    sources.push_back(row.identity.source);
  }
  EXPECT_EQ(kinds, std::vector<std::string>({"inductor::cpp_fused_a_0", "aten::convolution", "inductor::cpp_fused_b_1",
                                             "aten::clone + aten::addmm_out", "inductor::cpp_fused_a_0"}));
  // The deepest module holding all of a row's nodes: block.bn and block ->
  // block; an extern stretch naming flatten (the root) and linear (fc): its
  // matrix product's, fc.
  EXPECT_EQ(modules, std::vector<std::string>({"block", "block.conv", "block", "fc", "block"}));
  EXPECT_EQ(sources, std::vector<std::string>({"m.py:10", "m.py:8", "m.py:9", "m.py:21", "m.py:10"}));
  EXPECT_EQ(plan.rows()[1].identity.label, "block.conv/convolution");
  // A row whose nodes lie in several modules names them (kernel b: the batch
  // norm's and the relu's); one of one module (kernel a, the convolution,
  // the stretch placed by its matrix product) names none.
  EXPECT_EQ(plan.rows()[2].identity.fused_modules, std::vector<std::string>({"block.bn", "block"}));
  EXPECT_TRUE(plan.rows()[0].identity.fused_modules.empty());
  EXPECT_TRUE(plan.rows()[1].identity.fused_modules.empty());
  EXPECT_TRUE(plan.rows()[3].identity.fused_modules.empty());
  EXPECT_EQ(plan.rows()[3].nodes, std::vector<std::string>({"flatten", "linear"}));
  EXPECT_TRUE(absl::StartsWith(plan.rows()[0].identity.archive_source, "wrapper:")) << plan.rows()[0].identity.archive_source;
  // One IR line per call, each tied to its row.
  ASSERT_EQ(plan.ir().size(), 6u);
  EXPECT_EQ(plan.ir()[3].node, 3);
  EXPECT_EQ(plan.ir()[4].node, 3);
  EXPECT_TRUE(absl::StrContains(plan.ir()[4].text, "aoti_torch_cpu_addmm_out(...)  # nodes: flatten, linear"))
      << plan.ir()[4].text;
}

TEST(CompiledPlanTest, AttributesEveryNanosecondOfARun) {
  const CompiledPlan plan = Plan();
  ASSERT_EQ(plan.kernel_scopes(), std::vector<std::string>({"graph_0_cpp_fused_a_0", "graph_0_cpp_fused_b_1"}));
  const int a = 0, b = 1;
  // Run 1000..2000: wrapper 1000-1010, a 1010-1100, [conv 1100-1400 with an
  // ATen scope inside], b 1400-1450, [clone + addmm 1450-1900], a 1900-1980,
  // wrapper 1980-2000.
  const std::vector<RecordedScope> scopes = {{a, 1010, 1100}, {-1, 1120, 1390}, {b, 1400, 1450},
                                             {a, 1900, 1980}};
  std::vector<int64_t> row_ns(plan.rows().size(), 0);
  int64_t unattributed = 0;
  ASSERT_TRUE(plan.Attribute(scopes, 1000, 2000, row_ns, unattributed).ok());
  EXPECT_EQ(row_ns, std::vector<int64_t>({90, 300, 50, 450, 80}));
  EXPECT_EQ(unattributed, 10 + 20);
  int64_t sum = unattributed;
  for (int64_t ns : row_ns) sum += ns;
  EXPECT_EQ(sum, 1000);
  // The same run's stretches, in order, for the trace.
  std::vector<CompiledPlan::Span> spans;
  std::fill(row_ns.begin(), row_ns.end(), 0);
  unattributed = 0;
  ASSERT_TRUE(plan.Attribute(scopes, 1000, 2000, row_ns, unattributed, &spans).ok());
  ASSERT_EQ(spans.size(), 5u);
  const std::vector<std::vector<int64_t>> want = {{0, 1010, 90}, {1, 1100, 300}, {2, 1400, 50}, {3, 1450, 450},
                                                  {4, 1900, 80}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((std::vector<int64_t>{spans[i].row, spans[i].start_ns, spans[i].duration_ns}), want[i]) << i;
  }
}

TEST(CompiledPlanTest, RefusesRunsThatAreNotTheWrappersOrder) {
  const CompiledPlan plan = Plan();
  const int a = 0, b = 1;
  std::vector<int64_t> row_ns(plan.rows().size(), 0);
  int64_t unattributed = 0;
  absl::Status swapped = plan.Attribute({{b, 1, 2}, {a, 3, 4}, {a, 5, 6}}, 0, 10, row_ns, unattributed);
  EXPECT_EQ(swapped.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(swapped.message(), "ran kernel graph_0_cpp_fused_b_1 where its wrapper calls "
                                                   "graph_0_cpp_fused_a_0"))
      << swapped;
  absl::Status missing = plan.Attribute({{a, 1, 2}, {b, 3, 4}}, 0, 10, row_ns, unattributed);
  EXPECT_TRUE(absl::StrContains(missing.message(), "ran 2 of the 3 kernels")) << missing;
}

TEST(CompiledPlanTest, RefusesWrappersWithoutKernelProfiling) {
  std::string source = kWrapper;
  for (const std::string record : {"    RECORD_FUNCTION(\"graph_0_cpp_fused_a_0\", c10::ArrayRef<c10::IValue>({}));\n"}) {
    source.erase(source.find(record), record.size());
  }
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(source, "w.cpp");
  ASSERT_TRUE(calls.ok()) << calls.status();
  absl::StatusOr<CompiledPlan> plan = CompiledPlan::Build(*calls, Places());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(plan.status().message(), "graphprof.compile_aoti")) << plan.status();
}

// An eager profile's node: `name` in module `module`, with its work.
NodeRecord EagerNode(const Report& report, const std::string& module, const std::string& name, double flops,
                     double bytes, const std::string& kind) {
  NodeRecord node;
  node.identity.kind = kind;
  node.identity.module = module;
  node.identity.label = module.empty() ? name : module + "/" + name;
  report.FitNode(node);
  node.quantities[report.FindQuantity("flops")] = flops;
  node.quantities[report.FindQuantity("bytes")] = bytes;
  node.input_shapes = "[" + name + "]";
  return node;
}

TEST(KernelWorkTest, EachNodesWorkOnceInTheFirstRowNamingIt) {
  Report eager;
  DeclareWork(eager);
  for (NodeRecord node : {EagerNode(eager, "block", "relu", 10, 100, "aten::relu"),
                          EagerNode(eager, "block.conv", "conv2d", 1000, 400, "aten::conv2d"),
                          EagerNode(eager, "block.bn", "batch_norm", 40, 200, "aten::batch_norm"),
                          EagerNode(eager, "block", "relu_1", 8, 64, "aten::relu"),
                          EagerNode(eager, "", "flatten", 0, 16, "aten::flatten"),
                          EagerNode(eager, "fc", "linear", 500, 300, "aten::linear"),
                          EagerNode(eager, "", "unnamed_add", 2, 8, "aten::add")}) {
    eager.nodes.push_back(node);
  }
  EXPECT_EQ(ProgramNodeName(eager.nodes[1].identity), "conv2d");
  EXPECT_TRUE(IsExternKind("aten::conv2d"));
  EXPECT_TRUE(IsExternKind("aten::linear"));
  EXPECT_FALSE(IsExternKind("aten::relu"));
  std::vector<std::string> shapes;
  auto row_flops = [&](const CompiledPlan& plan) {
    Report compiled;
    for (const CompiledRow& row : plan.rows()) {
      NodeRecord node;
      node.identity = row.identity;
      compiled.FitNode(node);
      compiled.nodes.push_back(node);
    }
    const double unnamed = AddKernelWork(eager, plan, compiled);
    EXPECT_NEAR(unnamed, 2.0 / 1560, 1e-12);
    std::vector<double> out;
    shapes.clear();
    for (const NodeRecord& node : compiled.nodes) {
      out.push_back(node.quantities[compiled.FindQuantity("flops")]);
      shapes.push_back(node.input_shapes);
    }
    EXPECT_EQ(compiled.nodes[2].quantities[compiled.FindQuantity("bytes")], 264);
    return out;
  };
  // a (relu), the convolution (conv2d), b (batch_norm, relu_1), clone + addmm
  // (flatten, linear), a again (relu: counted in its first row only).
  EXPECT_EQ(row_flops(Plan()), std::vector<double>({10, 1000, 48, 500, 0}));
  // Input shapes: the node with the most FLOPs a row has the work of (the
  // stretch's linear, not its flatten), else its first node (a again).
  EXPECT_EQ(shapes, std::vector<std::string>({"[relu]", "[conv2d]", "[batch_norm]", "[linear]", "[relu]"}));
  // Kernel a also names conv2d (it packs the convolution's weight, as
  // Inductor's cpp_fused_convolution_0 does) and the addmm's comment also
  // names relu_1: the convolution's work still goes to the extern call, and
  // relu_1's to the kernel b that computes it.
  absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(kWrapper, "w.cpp");
  ASSERT_TRUE(calls.ok()) << calls.status();
  ASSERT_TRUE(ApplyKernelRecord(R"({"format": 1, "kernels": {
      "cpp_fused_a_0": {"nodes": ["conv2d", "relu"], "aten": []},
      "cpp_fused_b_1": {"nodes": ["batch_norm", "relu_1"], "aten": []}}})", "k.json", *calls).ok());
  calls->calls[3].nodes = {"relu_1", "flatten"};
  absl::StatusOr<CompiledPlan> packed = CompiledPlan::Build(*calls, Places());
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(row_flops(*packed), std::vector<double>({10, 1000, 48, 500, 0}));
  EXPECT_EQ(shapes[0], "[relu]");  // kernel a has relu's work, not the convolution's
  // Kernel a is charged to block (conv2d's block.conv and relu's block) but
  // fuses no module besides its own: the convolution is the extern call's.
  EXPECT_EQ(packed->rows()[0].identity.module, "block");
  EXPECT_TRUE(packed->rows()[0].identity.fused_modules.empty());
}

TEST(ModulePathTest, DeepestCommonModule) {
  EXPECT_EQ(DeepestCommonModule({}), "");
  EXPECT_EQ(DeepestCommonModule({"layer1.0.conv1", "layer1.0.bn1"}), "layer1.0");
  EXPECT_EQ(DeepestCommonModule({"layer1.0.conv1"}), "layer1.0.conv1");
  EXPECT_EQ(DeepestCommonModule({"layer1", "layer10"}), "");
  EXPECT_EQ(DeepestCommonModule({"layer1.0", "layer1"}), "layer1");
  EXPECT_EQ(DeepestCommonModule({"fc", ""}), "");
}

TEST(ScopeRecorderTest, RecordsTopLevelScopesOfItsNamesOnly) {
  ScopeRecorder recorder(2, {"second", "outer", "third"});
  { RECORD_FUNCTION("before_start", std::vector<c10::IValue>()); }
  ASSERT_TRUE(recorder.Start().ok());
  {
    RECORD_FUNCTION("outer", std::vector<c10::IValue>());
    { RECORD_FUNCTION("second", std::vector<c10::IValue>()); }  // nested: not recorded
  }
  {
    RECORD_FUNCTION("aten::other", std::vector<c10::IValue>());  // another name: not recorded
    { RECORD_FUNCTION("third", std::vector<c10::IValue>()); }
  }
  { RECORD_FUNCTION("second", std::vector<c10::IValue>()); }
  { RECORD_FUNCTION("third", std::vector<c10::IValue>()); }  // past the capacity
  // One recorder a thread.
  ScopeRecorder other(2, {"x"});
  EXPECT_EQ(other.Start().code(), absl::StatusCode::kFailedPrecondition);
  recorder.Stop();
  { RECORD_FUNCTION("second", std::vector<c10::IValue>()); }  // after Stop
  ASSERT_EQ(recorder.scopes().size(), 2u);
  EXPECT_EQ(recorder.scopes()[0].name, 1);  // "outer"
  EXPECT_EQ(recorder.scopes()[1].name, 0);  // "second"
  EXPECT_LE(recorder.scopes()[0].start_ns, recorder.scopes()[0].end_ns);
  EXPECT_LE(recorder.scopes()[0].end_ns, recorder.scopes()[1].start_ns);
  EXPECT_GT(recorder.scopes()[1].end_ns, 0);
  EXPECT_EQ(recorder.dropped(), 1);
  recorder.Clear();
  EXPECT_TRUE(recorder.scopes().empty());
  EXPECT_EQ(recorder.dropped(), 0);
  EXPECT_TRUE(other.Start().ok());  // the thread is free again
  other.Stop();
}

void BusyWaitUs(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Runs as the wrapper above would: each generated kernel inside its scope;
// the extern calls outside any (the convolution reaching one ATen scope).
class FakeProgram final : public CompiledProgram {
 public:
  explicit FakeProgram(bool swap = false) : plan_(Plan()), swap_(swap) {}
  absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue>& inputs) override {
    ++runs;
    Kernel(swap_ ? "graph_0_cpp_fused_b_1" : "graph_0_cpp_fused_a_0", 200);
    {
      BusyWaitUs(100);
      RECORD_FUNCTION("aten::_convolution", std::vector<c10::IValue>());
      BusyWaitUs(200);
    }
    Kernel(swap_ ? "graph_0_cpp_fused_a_0" : "graph_0_cpp_fused_b_1", 100);
    BusyWaitUs(300);
    Kernel("graph_0_cpp_fused_a_0", 200);
    return c10::IValue(inputs[0].toTensor() + 1);
  }
  const CompiledPlan& plan() const override { return plan_; }
  int runs = 0;

 private:
  static void Kernel(const char* name, int us) {
    RECORD_FUNCTION(name, std::vector<c10::IValue>());
    BusyWaitUs(us);
  }
  CompiledPlan plan_;
  bool swap_;
};

TEST(ProfileCompiledTest, TimesEachRowOfEveryRun) {
  FakeProgram program;
  ProfileOptions options;
  options.warmup = 2;
  options.runs = 5;
  options.trace = true;
  c10::IValue output;
  const std::vector<c10::IValue> inputs = {torch::ones({2})};
  absl::StatusOr<Report> report = ProfileCompiled(program, inputs, options, &output);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(program.runs, 7);
  EXPECT_EQ(report->runs, 5);
  EXPECT_EQ(report->warmup, 2);
  ASSERT_EQ(report->nodes.size(), 5u);
  EXPECT_TRUE(torch::equal(output.toTensor(), torch::full({2}, 2.0)));
  EXPECT_TRUE(torch::equal(inputs[0].toTensor(), torch::ones({2})));  // runs on copies
  // Lower bounds only (busy waits last at least as long as asked).
  const std::vector<int64_t> at_least_ns = {200'000, 300'000, 100'000, 300'000, 200'000};
  EXPECT_TRUE(report->columns[0].unattributed.empty());  // the wrapper's own: 1 - coverage
  for (int run = 0; run < 5; ++run) {
    int64_t sum = 0;
    for (size_t r = 0; r < report->nodes.size(); ++r) {
      const int64_t ns = report->nodes[r].time().total[run];
      EXPECT_GE(ns, at_least_ns[r]) << "row " << r << " run " << run;
      EXPECT_EQ(report->nodes[r].calls[run], r == 3 ? 2 : 1);
      sum += ns;
    }
    // The rows lie inside the run (CompiledPlanTest: with the wrapper's own
    // time they partition it exactly).
    EXPECT_LE(sum, report->run_ns()[run]) << run;
  }
  EXPECT_GT(report->coverage(), 0.0);
  EXPECT_LE(report->coverage(), 1.0);
  EXPECT_FALSE(report->graph_hash.empty());
  EXPECT_EQ(report->ir.size(), 6u);
  // One trace event per row and run, in the run's order.
  ASSERT_EQ(report->events.size(), 25u);
  for (size_t i = 1; i < report->events.size(); ++i) {
    EXPECT_LE(report->events[i - 1].start_ns, report->events[i].start_ns) << i;
  }
  EXPECT_EQ(report->events[5].run, 1);
  EXPECT_EQ(report->events[5].node, 0);
}

TEST(ProfileCompiledTest, FailsARunInAnotherOrderAndRefusesWhatItCannotMeasure) {
  FakeProgram swapped(/*swap=*/true);
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 2;
  absl::StatusOr<Report> report = ProfileCompiled(swapped, {torch::ones({2})}, options);
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(absl::StartsWith(report.status().message(), "timed run 1: the compiled model ran kernel "))
      << report.status();

  FakeProgram program;
  options.backward.enabled = true;
  report = ProfileCompiled(program, {torch::ones({2})}, options);
  EXPECT_EQ(report.status().message(),
            "a training step (--backward) is not measured in a compiled program (its nodes do not run one by one)");
}

// --memory: one untimed run under the allocator's reporting hook; the
// run's peak (its output, 2 floats, at least) in the report's summary.
TEST(ProfileCompiledTest, MemoryIsTheRunsPeakFromOneUntimedRun) {
  FakeProgram program;
  ProfileOptions options;
  options.warmup = 1;
  options.runs = 3;
  options.memory = true;
  absl::StatusOr<Report> report = ProfileCompiled(program, {torch::ones({2})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(program.runs, 5);  // warm-up, the memory run, 3 timed
  ASSERT_TRUE(report->memory.has_value());
  EXPECT_GE(report->memory->peak_bytes, 8);
  EXPECT_GE(report->memory->allocated_bytes, 8);
  EXPECT_GE(report->memory->allocations, 1);
  EXPECT_EQ(report->memory->peak_node, -1);  // not cut into rows
  bool noted = false;
  for (const std::string& note : report->notes) noted |= absl::StartsWith(note, "memory: the run's peak");
  EXPECT_TRUE(noted);
  options.memory = false;
  report = ProfileCompiled(program, {torch::ones({2})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->memory.has_value());
}

TEST(ProfileCompiledTest, RunsAutoStopsAndSaysWhy) {
  FakeProgram program;
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 40;
  options.adaptive.enabled = true;
  options.adaptive.min_runs = 10;
  options.adaptive.stop = [](const Report& so_far) -> std::optional<std::string> {
    return so_far.runs >= 15 ? std::optional<std::string>("the caller said so") : std::nullopt;
  };
  absl::StatusOr<Report> report = ProfileCompiled(program, {torch::ones({2})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->runs, 15);
  bool said = false;
  for (const std::string& note : report->notes) said |= note == "--runs=auto: 15 timed runs, stopped when the caller said so";
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace graphprof
