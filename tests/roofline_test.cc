// Rows on the roofline (profilers/report/roofline.h): rates from the row's
// work and the time it took, the bound and the fraction of attainable.
#include "profilers/report/roofline.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/views.h"

namespace graphprof {
namespace {

// Module a holds a conv (1000 FLOPs, 100 ns) and submodule a.b a linear
// (4000 FLOPs, 200 ns); the machine: 100 GFLOP/s, 10 GB/s.
Report TwoModules(bool conv_counted = true) {
  absl::StatusOr<Report> report = ReportFromJson(absl::StrReplaceAll(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0,
      "timer_overhead_ns": 0, "run_ns": [300], "metrics": [{"name": "time"}],
      "quantities": [{"name": "flops", "unit": "flops"}, {"name": "bytes", "unit": "bytes"}],
      "peak_gflops": 100, "peak_gbps": 10,
      "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "a/conv2d", "kind": "aten::conv2d", "module": "a",
         "calls": [1], "total_ns": [100], "flops": 1000, "bytes": 100, "work_counted": COUNTED},
        {"id": 1, "parent": -1, "depth": 0, "name": "a.b/linear", "kind": "aten::linear", "module": "a.b",
         "calls": [1], "total_ns": [200], "flops": 4000, "bytes": 2000}]})",
                                                                     {{"COUNTED", conv_counted ? "true" : "false"}}));
  EXPECT_TRUE(report.ok()) << report.status();
  return *report;
}

const ViewRow& Row(const View& view, const std::string& name) {
  for (const ViewRow& row : view.rows) {
    if (row.name == name) return row;
  }
  ADD_FAILURE() << "no row " << name;
  return view.rows.front();
}

TEST(RooflineTest, NodeRatesBoundsAndFractions) {
  const Report report = TwoModules();
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0});
  ASSERT_TRUE(nodes.ok());
  // conv: 1000 FLOPs in 100 ns = 10 GFLOP/s, intensity 10 FLOP/B: 10 x 10 GB/s
  // reaches the 100 GFLOP/s peak, so compute-bound, at 10% of it.
  const RooflinePoint conv = RooflineOf(report, Row(*nodes, "a/conv2d"));
  EXPECT_DOUBLE_EQ(conv.gflops, 10);
  EXPECT_DOUBLE_EQ(conv.gbps, 1);
  EXPECT_DOUBLE_EQ(conv.intensity, 10);
  EXPECT_STREQ(conv.bound, "compute");
  EXPECT_DOUBLE_EQ(conv.fraction, 0.1);
  // linear: 20 GFLOP/s at intensity 2: memory-bound, attainable 20: at the roof.
  const RooflinePoint linear = RooflineOf(report, Row(*nodes, "a.b/linear"));
  EXPECT_DOUBLE_EQ(linear.gflops, 20);
  EXPECT_STREQ(linear.bound, "memory");
  EXPECT_DOUBLE_EQ(linear.attainable_gflops, 20);
  EXPECT_DOUBLE_EQ(linear.fraction, 1);
}

// Reviewed: a module row's work covers its subtree while its self time does
// not, so its rate was 5000 FLOPs / 100 ns = 50 GFLOP/s instead of 5000 / 300.
TEST(RooflineTest, ModuleRowsDivideTheirSubtreesWorkByItsTime) {
  const Report report = TwoModules();
  absl::StatusOr<View> modules = MakeView(report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok());
  const RooflinePoint a = RooflineOf(report, Row(*modules, "a"));
  EXPECT_DOUBLE_EQ(a.flops, 5000);
  EXPECT_DOUBLE_EQ(a.gflops, 5000.0 / 300);
  const RooflinePoint b = RooflineOf(report, Row(*modules, "a.b"));
  EXPECT_DOUBLE_EQ(b.gflops, 20);
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  EXPECT_DOUBLE_EQ(RooflineOf(report, Row(*kinds, "aten::conv2d")).gflops, 10);
}

// Reviewed: a diff's FLOP line said nothing of work that stopped (or
// started) being counted.
TEST(RooflineTest, DiffsSayHowMuchWorkIsNotCounted) {
  const ReportDiff diff = DiffReports(TwoModules(), TwoModules(/*conv_counted=*/false));
  EXPECT_DOUBLE_EQ(diff.base_uncounted_percent, 0);
  EXPECT_NEAR(diff.current_uncounted_percent, 100.0 / 3, 1e-9);
  const std::string text = RenderDiff(diff);
  EXPECT_TRUE(absl::StrContains(text, "not counted: 0.0% -> 33.3% of the run time")) << text;
}

}  // namespace
}  // namespace graphprof
