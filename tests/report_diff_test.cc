#include "profilers/report/report_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"

namespace graphprof {
namespace {

// A report whose node i has kind kinds[i], module modules[i] and a constant
// per-run time of ns[i] (top-level nodes only).
Report MakeReport(const std::vector<std::string>& kinds, const std::vector<std::string>& modules,
                  const std::vector<int64_t>& ns, int runs = 2) {
  Report report;
  report.model = "m";
  report.runs = runs;
  int64_t total = 0;
  for (size_t i = 0; i < kinds.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = kinds[i];
    node.identity.module = modules[i];
    node.identity.label = modules[i].empty() ? kinds[i] : modules[i] + "/" + kinds[i];
    node.metrics = {Series{std::vector<int64_t>(runs, ns[i]), {}}};
    node.calls.assign(runs, 1);
    total += ns[i];
    report.nodes.push_back(node);
  }
  report.metrics[0].run_total.assign(runs, total);
  report.Finalize();
  return report;
}

TEST(ReportDiffTest, MatchesShiftedNodesAndComputesDeltas) {
  // The "pass" fuses conv+relu in layer1 (relu removed, conv faster), and
  // inserts a new op at the front, which shifts every id by one.
  Report base = MakeReport({"aten::conv2d", "aten::relu", "aten::linear"}, {"layer1", "layer1", "fc"},
                           {600, 200, 200});
  Report current = MakeReport({"aten::contiguous", "aten::conv2d", "aten::linear"}, {"", "layer1", "fc"},
                              {50, 300, 200});
  ReportDiff diff = DiffReports(base, current);
  EXPECT_DOUBLE_EQ(diff.base_total_ns, 1000);
  EXPECT_DOUBLE_EQ(diff.current_total_ns, 550);
  EXPECT_NEAR(diff.speedup(), 1000.0 / 550.0, 1e-12);
  EXPECT_EQ(diff.matched_by_id, 1);  // linear keeps id 2
  EXPECT_EQ(diff.matched_by_kind_and_module, 1);
  EXPECT_EQ(diff.added, 1);
  EXPECT_EQ(diff.removed, 1);
  ASSERT_EQ(diff.nodes.size(), 4u);
  // Sorted by |delta|: conv -300, relu -200, contiguous +50, linear 0.
  EXPECT_EQ(diff.nodes[0].kind, "aten::conv2d");
  EXPECT_EQ(diff.nodes[0].match, NodeDelta::Match::kByKindAndModule);
  EXPECT_EQ(diff.nodes[0].base_id, 0);
  EXPECT_EQ(diff.nodes[0].current_id, 1);
  EXPECT_DOUBLE_EQ(diff.nodes[0].delta_ns(), -300);
  EXPECT_DOUBLE_EQ(diff.nodes[0].speedup(), 2.0);
  EXPECT_EQ(diff.nodes[1].match, NodeDelta::Match::kRemoved);
  EXPECT_DOUBLE_EQ(diff.nodes[1].delta_ns(), -200);
  EXPECT_EQ(diff.nodes[2].match, NodeDelta::Match::kAdded);
  EXPECT_DOUBLE_EQ(diff.nodes[3].delta_ns(), 0);

  ASSERT_FALSE(diff.kinds.empty());
  EXPECT_EQ(diff.kinds[0].kind, "aten::conv2d");
  EXPECT_DOUBLE_EQ(diff.kinds[0].speedup(), 2.0);

  const std::string text = RenderDiff(diff);
  EXPECT_TRUE(absl::StrContains(text, "speedup 1.818x")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1 matched by id, 1 by kind+module, 1 added, 1 removed")) << text;
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  EXPECT_EQ(j["nodes"].size(), 4u);
  EXPECT_EQ(j["nodes"][0]["match"], "kind+module");
}

TEST(ReportDiffTest, IdenticalReportsHaveNoDelta) {
  Report r = MakeReport({"aten::add", "aten::mul"}, {"", ""}, {10, 20});
  ReportDiff diff = DiffReports(r, r);
  EXPECT_EQ(diff.matched_by_id, 2);
  EXPECT_DOUBLE_EQ(diff.speedup(), 1.0);
  for (const NodeDelta& d : diff.nodes) EXPECT_DOUBLE_EQ(d.delta_ns(), 0);
}

}  // namespace
}  // namespace graphprof
