// ProfileBeforeAfter on a real model: the README's example of checking a pass
// from C++ (compiled and run here on scripted torchvision mobilenet_v2).
#include <algorithm>
#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "absl/strings/match.h"
#include "ir/passes.h"
#include "profilers/before_after.h"
#include "profilers/report/report_diff.h"
#include "tests/real/real_model_util.h"

namespace graphprof {
namespace {

// --- README example: checking a pass from a compiler codebase. ---
// Profiles the module before and after LibTorch's inference passes, checks
// the result still matches, and prints what the passes bought per module.
absl::StatusOr<graphprof::BeforeAfter> CheckInferencePasses(const torch::jit::Module& module,
                                                            const std::vector<c10::IValue>& inputs) {
  absl::StatusOr<std::vector<graphprof::Pass>> passes = graphprof::ParsePasses("freeze,optimize_for_inference");
  if (!passes.ok()) return passes.status();
  graphprof::BeforeAfterOptions options;
  options.profile.warmup = 1;
  options.profile.runs = 3;
  options.rtol = 1e-4;  // only where the module cannot run in float64:
  options.atol = 1e-5;  // otherwise B is checked against a float64 run of A
  absl::StatusOr<graphprof::BeforeAfter> ab = graphprof::ProfileBeforeAfter(module, *passes, inputs, options);
  if (!ab.ok()) return ab.status();
  if (!ab->after.verification->passed()) {
    return absl::InternalError("the passes changed the output: " + ab->after.verification->detail);
  }
  std::cout << "speedup " << ab->speedup() << "x, " << 100 * ab->diff.matched_time_fraction
            << "% of the time before matched\n"
            << graphprof::RenderDiff(ab->diff, /*top=*/10);
  return ab;
}
// --- end of README example ---

TEST(BeforeAfterTest, InferencePassesOnMobilenetPerModule) {
  if (absl::Status usable = MkldnnUsable(); !usable.ok()) GTEST_SKIP() << usable.message();
  testing::RealModel model = testing::LoadRealModel("mobilenet_v2_script");
  ASSERT_FALSE(model.name.empty());
  absl::StatusOr<BeforeAfter> ab = CheckInferencePasses(model.module, model.inputs);
  ASSERT_TRUE(ab.ok()) << ab.status();
  ASSERT_TRUE(ab->before.verification.has_value());
  EXPECT_TRUE(ab->before.verification->identical) << "A is the module as loaded";
  EXPECT_GT(ab->diff.matched_time_fraction, 0);
  EXPECT_LE(ab->diff.matched_time_fraction, 1);

  // Every conv of the model: replaced by an MKLDNN convolution of the same
  // module, never reported as removed.
  std::set<std::string> conv_modules, replaced_convs;
  for (const auto& [name, type] : model.modules) {
    if (absl::EndsWith(type, ".Conv2d")) conv_modules.insert(name);
  }
  ASSERT_EQ(conv_modules.size(), 52u);
  for (const NodeDelta& d : ab->diff.nodes) {
    if (d.kind == "aten::conv2d -> prim::mkldnn_convolution") {
      EXPECT_EQ(d.match, NodeDelta::Match::kReplaced);
      replaced_convs.insert(d.module);
    }
    EXPECT_FALSE(d.match == NodeDelta::Match::kRemoved && absl::StrContains(d.kind, "conv")) << d.name;
  }
  EXPECT_EQ(replaced_convs, conv_modules);
  std::set<std::string> diffed_modules;
  for (const GroupDelta& m : ab->diff.modules) diffed_modules.insert(m.name);
  for (const std::string& conv : conv_modules) EXPECT_EQ(diffed_modules.count(conv), 1u) << conv;
  EXPECT_EQ(ab->diff.unexecuted, static_cast<int>(ab->before.nodes.size() + ab->after.nodes.size()) -
                                     [&] {
                                       int executed = 0;
                                       for (const NodeRecord& n : ab->before.nodes) executed += n.executed();
                                       for (const NodeRecord& n : ab->after.nodes) executed += n.executed();
                                       return executed;
                                     }());
}

TEST(BeforeAfterTest, CustomGraphPassesAndFailures) {
  testing::RealModel model = testing::LoadRealModel("resnet18_trace");
  ASSERT_FALSE(model.name.empty());
  int calls = 0;
  Pass count = GraphPass("count_nodes", [&](std::shared_ptr<torch::jit::Graph>& graph) { ++calls; });
  BeforeAfterOptions options;
  options.profile.warmup = 1;
  options.profile.runs = 1;
  absl::StatusOr<BeforeAfter> ab = ProfileBeforeAfter(model.module, {count}, model.inputs, options);
  ASSERT_TRUE(ab.ok()) << ab.status();
  // Once per copy of B; never more copies than runs (1 here).
  EXPECT_EQ(calls, std::min(options.copies, options.profile.runs));
  EXPECT_TRUE(ab->after.verification->identical) << "a pass that changes nothing";
  EXPECT_EQ(ab->diff.same, ab->diff.matched());
  Pass broken = GraphPass("broken", [](std::shared_ptr<torch::jit::Graph>&) { throw std::runtime_error("boom"); });
  absl::StatusOr<BeforeAfter> failed = ProfileBeforeAfter(model.module, {broken}, model.inputs, options);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "B (after broken)")) << failed.status();
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "boom")) << failed.status();
}

// After passes, B's output is checked against a float64 run of the module:
// MKLDNN's reordered sums on resnet18 pass; one weight changed by 1e-3 of
// its value does not.
TEST(BeforeAfterTest, ToleranceComesFromTheModelsOwnRounding) {
  if (absl::Status usable = MkldnnUsable(); !usable.ok()) GTEST_SKIP() << usable.message();
  testing::RealModel model = testing::LoadRealModel("resnet18_script");
  ASSERT_FALSE(model.name.empty());
  BeforeAfterOptions options;
  options.profile.warmup = 0;
  options.profile.runs = 1;
  options.profile.trace = false;
  absl::StatusOr<std::vector<Pass>> inference = ParsePasses("freeze,optimize_for_inference");
  ASSERT_TRUE(inference.ok());
  absl::StatusOr<BeforeAfter> optimized = ProfileBeforeAfter(model.module, *inference, model.inputs, options);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  const Verification& v = *optimized->after.verification;
  EXPECT_TRUE(v.passed()) << v.detail;
  EXPECT_TRUE(absl::StrContains(v.detail, "float64")) << v.detail;

  Pass perturb{"perturb", "conv1's weight times 1 + 1e-3",
               [](torch::jit::Module& module, const std::string&) {
                 torch::NoGradGuard no_grad;
                 for (const auto& p : module.named_parameters()) {
                   if (p.name == "conv1.weight") p.value.mul_(1 + 1e-3);
                 }
                 return absl::OkStatus();
               }};
  absl::StatusOr<BeforeAfter> perturbed = ProfileBeforeAfter(model.module, {perturb}, model.inputs, options);
  ASSERT_TRUE(perturbed.ok()) << perturbed.status();
  EXPECT_FALSE(perturbed->after.verification->passed()) << perturbed->after.verification->detail;
}

}  // namespace
}  // namespace graphprof
