// The delay pass (ir/delay_pass.h): a known slowdown injected after a chosen
// module of a real model. Its syntax and refusals, where the delay lands
// (after the module's last node, in its module), that outputs are unchanged,
// that the wait is at least what was asked (a lower bound: the wait ends at a
// steady-clock deadline; no upper bound is asserted, the machine is noisy),
// and profile_graph --passes=delay:... end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "ir/delay_pass.h"
#include "ir/inliner.h"
#include "ir/module_paths.h"
#include "ir/passes.h"
#include "tests/cli_test_util.h"
#include "tools/zoo/zoo.h"

namespace graphprof {
namespace {

namespace jit = torch::jit;
using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Quick;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;

TEST(DelayPassTest, ParsesAndRefusesInOneLine) {
  absl::StatusOr<std::vector<Pass>> passes = ParsePasses("cse,delay:layer3.1:500");
  ASSERT_TRUE(passes.ok()) << passes.status();
  ASSERT_EQ(passes->size(), 2u);
  EXPECT_EQ((*passes)[1].name, "delay:layer3.1:500");
  EXPECT_TRUE(absl::StrContains((*passes)[1].description, "500 us after module layer3.1"));
  for (const char* bad : {"delay:", "delay:layer3", "delay::500", "delay:layer3:0", "delay:layer3:-5",
                          "delay:layer3:1.5", "delay:layer3:us", "delay:layer3:10000001"}) {
    absl::StatusOr<std::vector<Pass>> p = ParsePasses(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(absl::StrContains(p.status().message(), "delay:MODULE:US")) << p.status();
    EXPECT_EQ(p.status().message().find('\n'), std::string::npos) << p.status();
  }
  absl::StatusOr<std::vector<Pass>> unknown = ParsePasses("nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "delay:MODULE:US")) << unknown.status();
}

struct Applied {
  jit::Module module;
  std::vector<std::string> paths;  // of the inlined forward's nodes, in order
  std::vector<std::string> kinds;
};

Applied Apply(const jit::Module& module, const std::string& passes) {
  absl::StatusOr<std::vector<Pass>> parsed = ParsePasses(passes);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<jit::Module> result = ApplyPasses(module, *parsed);
  EXPECT_TRUE(result.ok()) << result.status();
  Applied applied{*result, {}, {}};
  std::shared_ptr<const ModulePaths> paths = ModulePaths::Build(module);
  std::shared_ptr<jit::Graph> graph = applied.module.get_method("forward").graph()->copy();
  InlineCalls(*graph);
  for (jit::Node* node : graph->nodes()) {
    applied.paths.push_back(paths->PathOf(*node));
    applied.kinds.push_back(node->kind().toQualString());
  }
  return applied;
}

TEST(DelayPassTest, AfterTheModulesLastNodeInItsModuleOutputsUnchanged) {
  ZooModel zoo = zoo::ResNet18(/*seed=*/3);
  Applied a = Apply(zoo.module, "delay:layer3:700");
  int delays = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.kinds.size(); ++i) {
    if (a.kinds[i] == kDelayOp) ++delays, at = i;
  }
  ASSERT_EQ(delays, 1);
  EXPECT_TRUE(absl::StartsWith(a.paths[at], "layer3.")) << a.paths[at];
  // No later node of layer3 computes anything (constants aside); layer4 follows.
  bool layer4_after = false;
  for (size_t i = at + 1; i < a.kinds.size(); ++i) {
    if (a.kinds[i] == "prim::Constant") continue;
    EXPECT_FALSE(absl::StartsWith(a.paths[i], "layer3.") && a.kinds[i] != "prim::GetAttr")
        << i << " " << a.kinds[i] << " " << a.paths[i];
    layer4_after = layer4_after || absl::StartsWith(a.paths[i], "layer4");
  }
  EXPECT_TRUE(layer4_after);
  // The delay returns its input itself: the output is bit-identical.
  std::vector<c10::IValue> inputs = zoo.ExampleInputs(1);
  torch::NoGradGuard no_grad;
  at::Tensor expected = zoo.module.forward(inputs).toTensor();
  at::Tensor got = a.module.forward(inputs).toTensor();
  EXPECT_TRUE(torch::equal(expected, got));
  // The original is untouched (ApplyPasses works on a clone).
  EXPECT_FALSE(absl::StrContains(zoo.module.get_method("forward").graph()->toString(), kDelayOp));
}

TEST(DelayPassTest, WaitsAtLeastWhatWasAsked) {
  ZooModel zoo = zoo::Mlp(/*seed=*/0);
  Applied a = Apply(zoo.module, "delay:fc1:20000");
  std::vector<c10::IValue> inputs = zoo.ExampleInputs(0);
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    a.module.forward(inputs);
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_GE(us.count(), 20000);
  }
}

TEST(DelayPassTest, ModuleWithoutNodesRefusedNamingTheModules) {
  ZooModel zoo = zoo::ResNet18(0);
  absl::StatusOr<std::vector<Pass>> parsed = ParsePasses("delay:layer9:100");
  ASSERT_TRUE(parsed.ok());
  absl::StatusOr<jit::Module> result = ApplyPasses(zoo.module, *parsed);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(result.status().message(), "no node of module 'layer9'")) << result.status();
  EXPECT_TRUE(absl::StrContains(result.status().message(), "conv1")) << result.status();
}

TEST(DelayPassTest, ProfileGraphShowsTheDelayAsARowOfTheModule) {
  const std::string out = std::string(getenv("TEST_TMPDIR")) + "/delay.json";
  auto r = RunTool(Quick({"--zoo=mlp", "--passes=delay:fc2:3000", "--format=json", "--output=" + out}));
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json report = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(report["verified"], true) << report["verification"].dump();
  int delays = 0;
  for (const auto& node : report["nodes"]) {
    if (node["kind"] != kDelayOp) continue;
    ++delays;
    EXPECT_EQ(node["module"], "fc2");
    EXPECT_GE(node["mean_us"].get<double>(), 3000.0);
  }
  EXPECT_EQ(delays, 1);
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--passes=delay:fc9:3000"})), 1, "no node of module 'fc9'");
}

}  // namespace
}  // namespace graphprof
