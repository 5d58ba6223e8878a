// RunProfileSession (profilers/session/session.h): the steps profile_graph
// and graphprof.profile() share, each checked on a small module. That the
// two front ends make the same report of one model is
// python/tests/graphprof_compare_test.py's SessionTest.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/passes.h"
#include "ir/prepared_graph.h"
#include "profilers/session/session.h"
#include "tests/test_ops.h"

namespace graphprof {
namespace {

using ::graphprof::testing::DefineWithTestOps;
using ::graphprof::testing::TestClock;

// A product with a parameter and, unless `pure`, an in-place add to its
// input (a model that mutates what it is given; not differentiable).
torch::jit::Module Model(bool pure = false) {
  torch::jit::Module m("M");
  m.register_parameter("w", torch::full({4, 4}, 0.5).requires_grad_(true), /*is_buffer=*/false);
  DefineWithTestOps(m, absl::StrCat("def forward(self, x):\n"
                                    "    y = torch.matmul(x, self.w)\n",
                                    pure ? "" : "    x.add_(1.0)\n",
                                    "    return graphprof_test.advance(y, 100)\n"));
  m.eval();
  return m;
}

SessionModel Session(const torch::jit::Module& module, const std::vector<Pass>& passes = {}) {
  PrepareOptions prepare;
  prepare.passes = passes;
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module, prepare);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  SessionModel model;
  model.name = "m";
  model.prepared = *std::move(prepared);
  model.module = module;
  model.run_native = [module](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
    return torch::jit::Module(module).forward(in);
  };
  return model;
}

SessionOptions Options() {
  SessionOptions options;
  options.profile.warmup = 0;
  options.profile.runs = 2;
  options.profile.clock = TestClock();
  options.check.reference = "module.forward";
  return options;
}

TEST(SessionTest, ProfilesDescribesAndVerifies) {
  const torch::jit::Module module = Model();
  const std::vector<c10::IValue> inputs = {torch::ones({2, 4})};
  absl::StatusOr<Report> report = RunProfileSession(Session(module), inputs, Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->model, "m");
  EXPECT_EQ(report->runs, 2);
  EXPECT_EQ(report->parameters, 16);
  EXPECT_EQ(report->input_bytes, 32);
  EXPECT_GT(report->model_bytes, 0);
  ASSERT_TRUE(report->machine.has_value());
  EXPECT_GE(report->machine->cores, 1);
  // The threads it ran and what runs them (1.13 and 2.6 differ in the
  // default count, not the backend), in the summary's machine line.
  EXPECT_EQ(report->machine->threads, at::get_num_threads());
  EXPECT_TRUE(report->machine->parallel == "OpenMP" || report->machine->parallel == "native") << report->machine->parallel;
  EXPECT_TRUE(absl::StrContains(FormatMachine(*report->machine),
                                absl::StrCat(report->machine->threads, report->machine->threads == 1 ? " thread (" : " threads (",
                                             report->machine->parallel, ")")))
      << FormatMachine(*report->machine);
  // What check compares by: the inputs' types and shapes.
  EXPECT_EQ(report->inputs, "f32[2,4]");
  ASSERT_TRUE(report->verification.has_value());
  EXPECT_TRUE(report->verification->identical) << report->verification->detail;
  EXPECT_EQ(report->verification->reference, "module.forward");
  EXPECT_TRUE(report->verified());
  EXPECT_FALSE(report->gradient_verification.has_value());
  // The native run had its own copy: the caller's input is as given, though
  // the model adds to its input in place.
  EXPECT_TRUE(torch::equal(inputs[0].toTensor(), torch::ones({2, 4})));
}

TEST(SessionTest, TrainingStepsHaveTheirGradientsChecked) {
  const torch::jit::Module module = Model(/*pure=*/true);
  SessionOptions options = Options();
  options.profile.backward.enabled = true;
  absl::StatusOr<Report> report = RunProfileSession(Session(module), {torch::ones({2, 4})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->gradient_verification.has_value());
  EXPECT_EQ(report->gradient_verification->compared, 1);
  EXPECT_TRUE(report->gradient_verification->passed()) << report->gradient_verification->detail;
  EXPECT_EQ(report->gradient_verification->reference, "module.forward + backward");
}

// Each pass declares, where it is defined, whether it changes parameters
// (what --backward refuses to follow): every pass that needs or makes a
// frozen module does, no graph-only rewrite does.
TEST(SessionTest, PassesDeclareWhetherTheyChangeParameters) {
  std::set<std::string> changing, keeping;
  for (const Pass& pass : BuiltinPasses()) (pass.changes_parameters ? changing : keeping).insert(pass.name);
  EXPECT_EQ(changing, (std::set<std::string>{"freeze", "optimize_for_inference", "fold_conv_bn", "fold_conv_add_sub",
                                             "fold_conv_mul_div", "fuse_conv_add_relu", "convert_to_mkldnn",
                                             "frozen_linear_transpose", "frozen_concat_linear"}));
  EXPECT_EQ(keeping, (std::set<std::string>{"remove_dropout", "inline", "constant_propagation", "constant_pooling",
                                            "cse", "dce", "peephole", "fuse_linear", "fuse_add_relu"}));
}

TEST(SessionTest, NotesPassesAndTrainingMode) {
  torch::jit::Module module = Model();
  module.train();
  absl::StatusOr<std::vector<Pass>> passes = ParsePasses("cse");
  ASSERT_TRUE(passes.ok());
  SessionOptions options = Options();
  options.check.transformed = true;
  absl::StatusOr<Report> report = RunProfileSession(Session(module, *passes), {torch::ones({2, 4})}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  bool passes_noted = false, training_noted = false;
  for (const std::string& note : report->notes) {
    passes_noted |= absl::StartsWith(note, "passes applied: ");
    training_noted |= absl::StrContains(note, "training mode");
  }
  EXPECT_TRUE(passes_noted);
  EXPECT_TRUE(training_noted);
  EXPECT_TRUE(report->verified());
}

TEST(SessionTest, ThePlanCheckEndsTheSessionBeforeAnyRun) {
  const torch::jit::Module module = Model();
  SessionOptions options = Options();
  int runs = 0;
  options.profile.progress = [&](const char*, int, int) { ++runs; };
  options.check_plan = [](const GraphPlan& plan) {
    return absl::InvalidArgumentError(absl::StrCat("no, ", plan.nodes().size(), " nodes"));
  };
  absl::StatusOr<Report> report = RunProfileSession(Session(module), {torch::ones({2, 4})}, options);
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(absl::StartsWith(report.status().message(), "no, ")) << report.status();
  EXPECT_EQ(runs, 0);
}

TEST(SessionTest, AFailingNativeRunIsTheSessionsError) {
  const torch::jit::Module module = Model();
  SessionModel model = Session(module);
  model.run_native = [](const std::vector<c10::IValue>&) -> absl::StatusOr<c10::IValue> {
    return absl::InvalidArgumentError("native forward: boom");
  };
  absl::StatusOr<Report> report = RunProfileSession(std::move(model), {torch::ones({2, 4})}, Options());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "native forward: boom");
  SessionOptions unchecked = Options();
  unchecked.verify = false;
  SessionModel again = Session(module);
  again.run_native = nullptr;  // never called without verify
  absl::StatusOr<Report> profiled = RunProfileSession(std::move(again), {torch::ones({2, 4})}, unchecked);
  ASSERT_TRUE(profiled.ok()) << profiled.status();
  EXPECT_FALSE(profiled->verification.has_value());
}

}  // namespace
}  // namespace graphprof
