// The work counter on torchvision models scripted in Python: the
// multiply-accumulates of every convolution, linear and attention node agree
// within 1% with forward hooks counting the eager modules
// (make_real_models.py's count_macs). Published figures (torchvision lists
// 1.81 GMACs for resnet18 at 224x224) are quoted in docs/roofline.md.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "absl/strings/match.h"
#include "interpreter/graph_plan.h"
#include "profilers/machine.h"
#include "profilers/profiler.h"
#include "profilers/report/roofline.h"
#include "profilers/report/views.h"
#include "profilers/work/peaks.h"
#include "tests/real/real_model_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::LoadRealModel;
using ::graphprof::testing::MatrixWork;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::RealModel;
using ::graphprof::testing::RealModelPath;

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

// The ceilings are self-consistent: no node of a real model runs above 100%
// of attainable (roofline.h does not cap a node's fraction). Before the
// kernels were fixed (fma_kernel.cc), the convolutions of resnet18 ran at
// 300% of the "peak" and batch norm at 220% of the memory roof. The ceilings
// are measured twice, before and after the runs, keeping the better figure of
// each (what the cache keeps on a quiet machine): a disturbance while they
// are measured must not make a node look faster than the hardware.
class RooflineRealTest : public ::testing::TestWithParam<std::string> {};

Ceilings Better(Ceilings a, const Ceilings& b) {
  a.peak_gflops = std::max(a.peak_gflops, b.peak_gflops);
  a.peak_gbps = std::max(a.peak_gbps, b.peak_gbps);
  for (size_t i = 0; i < a.bandwidth.size() && i < b.bandwidth.size(); ++i) {
    a.bandwidth[i].gbps = std::max(a.bandwidth[i].gbps, b.bandwidth[i].gbps);
  }
  return a;
}

TEST_P(RooflineRealTest, NoNodeRunsAboveAttainable) {
  constexpr double kNoise = 1.10;
  at::set_num_threads(1);
  RealModel model = LoadRealModel(GetParam());
  ASSERT_FALSE(model.name.empty());
  auto plan = PlanModule(model.module);
  ASSERT_NE(plan, nullptr);
  const PeakOptions peaks{/*threads=*/1, /*remeasure=*/true, ::testing::TempDir() + "/peaks"};
  const Machine machine = DescribeMachine();
  const Ceilings before = MeasureCeilings(machine, peaks);
  torch::NoGradGuard no_grad;
  ProfileOptions options;
  options.warmup = 2;
  options.runs = 5;
  options.trace = false;
  absl::StatusOr<Report> report = Profile(plan, model.inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  report->ceilings = Better(before, MeasureCeilings(machine, peaks));
  const Ceilings& c = *report->ceilings;
  ASSERT_GT(c.peak_gflops, 0);
  ASSERT_EQ(c.bandwidth.size(), 8u);
  absl::StatusOr<View> nodes = MakeView(*report, ViewOptions{GroupBy::kNode, "", 0});
  ASSERT_TRUE(nodes.ok());
  int on_the_roofline = 0;
  double best = 0;
  for (const ViewRow& row : nodes->rows) {
    const RooflinePoint p = RooflineOf(*report, row);
    if (p.fraction < 0) continue;
    ++on_the_roofline;
    best = std::max(best, p.fraction);
    // Both the node's time and the ceilings are wall-clock measurements on
    // a shared machine: a node measured in a quiet moment can beat a peak
    // measured in a busy one by a few percent (seen: 100.5%). A node 10%
    // over the roof means a wrong work count or a wrong ceiling.
    EXPECT_LE(p.fraction, kNoise) << GetParam() << " " << row.name << " (" << row.kind << "): " << p.gflops
                               << " GFLOP/s, " << p.gbps << " GB/s against " << p.attainable_gflops
                               << " GFLOP/s attainable (" << p.bound << ", roof " << p.roof_gbps << " GB/s, peak "
                               << c.peak_gflops << ")";
  }
  EXPECT_GT(on_the_roofline, 20);
  std::cout << GetParam() << ": " << on_the_roofline << " nodes, the best at " << 100 * best << "% of attainable\n";
}

INSTANTIATE_TEST_SUITE_P(Torchvision, RooflineRealTest, ::testing::Values("resnet18_script", "mobilenet_v2_script"));

}  // namespace
}  // namespace graphprof
