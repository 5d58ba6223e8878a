// Node identity on models saved from Python: every node's module path is a
// named_modules() name, sources point at the user's Python lines, and the
// interpreter stays identical to forward.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"
#include "tests/real/real_model_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectIdentical;
using ::graphprof::testing::LoadRealModel;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::RealModel;

class RealModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModelTest, EveryModulePathIsANamedModulesName) {
  RealModel model = LoadRealModel(GetParam());
  ASSERT_FALSE(model.name.empty());
  auto plan = PlanModule(model.module);
  ASSERT_NE(plan, nullptr);
  int wrong = 0;
  std::set<std::string> used;
  for (const NodePlan& node : plan->nodes()) {
    const std::string& path = node.identity.module;
    used.insert(path);
    if (model.modules.count(path) == 0 || absl::StrContains(path, "SELF")) {
      if (++wrong <= 5) ADD_FAILURE() << "node " << node.id << " " << node.identity.kind << ": '" << path << "'";
    }
  }
  EXPECT_EQ(wrong, 0) << "of " << plan->nodes().size() << " nodes";
  EXPECT_GT(used.size(), 1u) << "nodes are spread over the modules";
  ExpectIdentical(model.module.forward(model.inputs), Interpreter(plan).Run(model.inputs));
}

INSTANTIATE_TEST_SUITE_P(Real, RealModelTest,
                         ::testing::Values("resnet18_script", "resnet18_trace", "mobilenet_v2_script",
                                           "mobilenet_v2_trace", "modulelist_script", "modulelist_trace",
                                           "transformer_script", "transformer_trace", "lstm_script",
                                           "lstm_trace", "googlenet_script", "inception_v3_script",
                                           "forks_script", "forks_trace"));

// torchvision's scripted googlenet and inception_v3 call warnings.warn in
// forward: the aten::warn node runs (LibTorch runs it as an instruction of
// its interpreter), warns once however many runs, and is recorded.
TEST(RealModelWarnTest, ScriptedGooglenetAndInceptionWarnOnce) {
  for (const std::string name : {"googlenet_script", "inception_v3_script"}) {
    RealModel model = LoadRealModel(name);
    ASSERT_FALSE(model.name.empty());
    auto plan = PlanModule(model.module);
    ASSERT_NE(plan, nullptr);
    int warn_nodes = 0;
    for (const NodePlan& node : plan->nodes()) warn_nodes += node.family == NodeFamily::kWarn;
    EXPECT_GE(warn_nodes, 1) << name;
    Interpreter interpreter(plan);
    for (int run = 0; run < 3; ++run) {
      ExpectIdentical(model.module.forward(model.inputs), interpreter.Run(model.inputs));
    }
    ASSERT_EQ(interpreter.warnings().size(), 1u) << name << ": once per node, not once per run";
    EXPECT_TRUE(absl::StrContains(interpreter.warnings()[0].message, "always returns")) << interpreter.warnings()[0].message;
  }
}

// Forked closures run as nodes of the plan, named after the modules they
// call (the caller's attribute chains): left.a.fc is a module of the model.
TEST(RealModelForkTest, ForkedNodesHaveTheirModulePaths) {
  for (const std::string name : {"forks_script", "forks_trace"}) {
    RealModel model = LoadRealModel(name);
    ASSERT_FALSE(model.name.empty());
    auto plan = PlanModule(model.module);
    ASSERT_NE(plan, nullptr);
    std::set<std::string> linear_modules;
    int forks = 0, waits = 0;
    for (const NodePlan& node : plan->nodes()) {
      forks += node.family == NodeFamily::kFork;
      waits += node.family == NodeFamily::kWait;
      if (node.identity.kind == "aten::linear") linear_modules.insert(node.identity.module);
    }
    EXPECT_EQ(forks, 3) << name;
    EXPECT_EQ(waits, 3) << name;
    EXPECT_EQ(linear_modules, (std::set<std::string>{"left.a.fc", "left.b.fc", "right.fc", "head"})) << name;
  }
}

// The label every conv node of torchvision's resnet18 must get, and where.
TEST(RealModelIdentityTest, ResnetConvsAreNamedAndSourcedLikeTorchvision) {
  for (const std::string name : {"resnet18_script", "resnet18_trace"}) {
    RealModel model = LoadRealModel(name);
    ASSERT_FALSE(model.name.empty());
    auto plan = PlanModule(model.module);
    ASSERT_NE(plan, nullptr);
    std::set<std::string> conv_modules;
    for (const NodePlan& node : plan->nodes()) {
      if (node.identity.kind != "aten::conv2d" && node.identity.kind != "aten::_convolution") continue;
      conv_modules.insert(node.identity.module);
      EXPECT_TRUE(absl::StartsWith(node.identity.source, "torchvision/models/resnet.py:"))
          << name << " " << node.identity.label << ": " << node.identity.source;
      EXPECT_TRUE(absl::StartsWith(node.identity.archive_source, "code/__torch__/"))
          << name << " " << node.identity.label << ": " << node.identity.archive_source;
    }
    for (const std::string conv : {"conv1", "layer1.0.conv1", "layer4.1.conv2", "layer2.0.downsample.0"}) {
      EXPECT_EQ(conv_modules.count(conv), 1u) << name << ": " << conv;
    }
  }
}

TEST(RealModelIdentityTest, ModuleListIterationsKeepTheirParent) {
  RealModel model = LoadRealModel("modulelist_script");
  ASSERT_FALSE(model.name.empty());
  auto plan = PlanModule(model.module);
  ASSERT_NE(plan, nullptr);
  std::map<std::string, int> gelu_modules;
  for (const NodePlan& node : plan->nodes()) {
    if (node.identity.kind == "aten::gelu") ++gelu_modules[node.identity.module];
  }
  EXPECT_EQ(gelu_modules, (std::map<std::string, int>{{"blocks.0.act", 1},
                                                     {"blocks.1.act", 1},
                                                     {"blocks.2.act", 1},
                                                     {"heads.0.act", 1},
                                                     {"heads.1.act", 1}}));
}

TEST(RealModelIdentityTest, ModulePathsSurviveFreezing) {
  if (absl::Status usable = MkldnnUsable(); !usable.ok()) GTEST_SKIP() << usable.message();
  RealModel model = LoadRealModel("mobilenet_v2_script");
  ASSERT_FALSE(model.name.empty());
  PrepareOptions options;
  absl::StatusOr<std::vector<Pass>> passes = ParsePasses("freeze,optimize_for_inference");
  ASSERT_TRUE(passes.ok()) << passes.status();
  options.passes = *passes;
  auto plan = PlanModule(model.module, options);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->prepared().passes, "freeze -> optimize_for_inference");
  int convs = 0, wrong = 0;
  for (const NodePlan& node : plan->nodes()) {
    if (model.modules.count(node.identity.module) == 0) ++wrong;
    if (node.identity.kind == "prim::mkldnn_convolution") {
      ++convs;
      EXPECT_TRUE(absl::EndsWith(model.modules[node.identity.module], ".Conv2d"))
          << node.identity.label << " is in a " << model.modules[node.identity.module];
    }
    if (node.identity.kind == "prim::MKLDNNHardTanh_") {
      EXPECT_TRUE(absl::EndsWith(model.modules[node.identity.module], ".ReLU6"))
          << node.identity.label << " is in a " << model.modules[node.identity.module];
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(convs, 52) << "every conv of mobilenet_v2 became an MKLDNN convolution in its own module";
  // The optimized graph computes the same (up to float rounding).
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> out = interpreter.Run(model.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  const IValueComparison c = CompareIValues(model.module.forward(model.inputs), *out, 1e-4, 1e-5);
  EXPECT_TRUE(c.within_tolerance) << c.detail << " max abs " << c.max_abs_error;
}

}  // namespace
}  // namespace graphprof
