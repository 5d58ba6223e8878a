// The work counter on torchvision models scripted in Python: the
// multiply-accumulates of every convolution, linear and attention node agree
// within 1% with forward hooks counting the eager modules
// (make_real_models.py's count_macs). Published figures (torchvision lists
// 1.81 GMACs for resnet18 at 224x224) are quoted in docs/roofline.md.
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/match.h"
#include "interpreter/graph_plan.h"
#include "profilers/profiler.h"
#include "tests/real/real_model_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::LoadRealModel;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::RealModel;
using ::graphprof::testing::RealModelPath;

bool MatrixWork(const std::string& kind) {
  for (const char* k : {"conv", "linear", "matmul", "bmm", "baddbmm", "addmm", "einsum", "_native_multi_head_attention"}) {
    if (absl::StrContains(kind, k)) return true;
  }
  return false;
}

class WorkRealTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkRealTest, MacsAgreeWithAnIndependentCount) {
  RealModel model = LoadRealModel(GetParam());
  ASSERT_FALSE(model.name.empty());
  std::ifstream in(RealModelPath(GetParam() + ".macs.txt"));
  double expected = 0;
  ASSERT_TRUE(in >> expected) << "no .macs.txt";
  auto plan = PlanModule(model.module);
  ASSERT_NE(plan, nullptr);
  torch::NoGradGuard no_grad;  // as the CLI runs (the attention's fused kinds need it)
  ProfileOptions options;
  options.warmup = 0;
  options.runs = 1;
  options.trace = false;
  absl::StatusOr<Report> report = Profile(plan, model.inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const int flops = report->FindQuantity("flops");
  ASSERT_GE(flops, 0);
  double macs = 0;
  for (const NodeRecord& node : report->nodes) {
    if (node.executed() && MatrixWork(node.identity.kind)) macs += report->QuantityOf(node, flops) / 2;
  }
  EXPECT_NEAR(macs / expected, 1.0, 0.01) << GetParam() << ": graphprof " << macs << ", hooks " << expected;
  // Nothing these models run goes uncounted.
  for (const UncountedKind& u : report->uncounted) ADD_FAILURE() << GetParam() << ": " << u.kind << " not counted";
}

INSTANTIATE_TEST_SUITE_P(Torchvision, WorkRealTest,
                         ::testing::Values("resnet18_script", "mobilenet_v2_script", "vit_b_16_script"));

}  // namespace
}  // namespace graphprof
