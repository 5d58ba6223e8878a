#include "profilers/report/report_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"

namespace graphprof {
namespace {

struct FakeNode {
  std::string kind;
  std::string module;
  std::string source;
  int64_t ns;  // per run
  bool executed = true;
};

// A report of top-level nodes with constant per-run times.
Report MakeReport(const std::vector<FakeNode>& nodes, int runs = 2) {
  Report report;
  report.model = "m";
  report.runs = runs;
  int64_t total = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = nodes[i].kind;
    node.identity.module = nodes[i].module;
    node.identity.source = nodes[i].source;
    node.identity.label = nodes[i].module.empty() ? nodes[i].kind : nodes[i].module + "/" + nodes[i].kind;
    node.metrics = {Series{std::vector<int64_t>(runs, nodes[i].executed ? nodes[i].ns : 0), {}}};
    node.calls.assign(runs, nodes[i].executed ? 1 : 0);
    total += nodes[i].ns;
    report.nodes.push_back(node);
  }
  report.metrics[0].run_total.assign(runs, total);
  report.Finalize();
  return report;
}

const NodeDelta* Find(const ReportDiff& diff, NodeDelta::Match match, const std::string& module) {
  for (const NodeDelta& d : diff.nodes) {
    if (d.match == match && d.module == module) return &d;
  }
  return nullptr;
}

// A pass that folds bn into the conv (which becomes an MKLDNN op), moves the
// linear's source line and adds a layout op; the base has a never-executed
// conv twin (a scripted padding_mode branch) and a dropout the pass removed.
const std::vector<FakeNode> kBase = {
    {"aten::conv2d", "layer1.conv", "m.py:1", 600},
    {"aten::conv2d", "layer1.conv", "m.py:9", 0, /*executed=*/false},
    {"aten::batch_norm", "layer1.bn", "m.py:2", 200},
    {"aten::relu", "layer1.relu", "m.py:3", 100},
    {"aten::dropout", "layer2", "m.py:7", 50},
    {"aten::linear", "fc", "m.py:4", 100},
};
const std::vector<FakeNode> kCurrent = {
    {"aten::contiguous", "", "", 50},
    {"prim::mkldnn_convolution", "layer1.conv", "m.py:1", 700},
    {"aten::relu", "layer1.relu", "m.py:3", 100},
    {"aten::linear", "fc", "m.py:5", 100},
};

TEST(ReportDiffTest, MatchesExecutedNodesByKeysThatSurvivePasses) {
  const ReportDiff diff = DiffReports(MakeReport(kBase), MakeReport(kCurrent));
  EXPECT_DOUBLE_EQ(diff.base_total_ns, 1050);
  EXPECT_DOUBLE_EQ(diff.current_total_ns, 950);
  EXPECT_EQ(diff.same, 1);             // relu
  EXPECT_EQ(diff.kind_and_module, 1);  // linear, source moved
  EXPECT_EQ(diff.replaced, 1);         // conv -> mkldnn conv
  EXPECT_EQ(diff.merged, 1);           // bn into the conv, which gained 100 ns
  EXPECT_EQ(diff.removed, 1);          // dropout
  EXPECT_EQ(diff.added, 1);            // contiguous
  EXPECT_EQ(diff.unexecuted, 1) << "the conv twin never ran";

  const NodeDelta* conv = Find(diff, NodeDelta::Match::kReplaced, "layer1.conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->base_id, 0) << "the live conv, never its dead twin";
  EXPECT_EQ(conv->current_id, 1);
  EXPECT_EQ(conv->kind, "aten::conv2d -> prim::mkldnn_convolution");
  const NodeDelta* bn = Find(diff, NodeDelta::Match::kMerged, "layer1.bn");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->current_id, 1) << "merged into the conv";
  EXPECT_DOUBLE_EQ(bn->delta_ns(), -200);
  EXPECT_NEAR(diff.matched_time_fraction, 1000.0 / 1050.0, 1e-12);

  // Node deltas add up to the change in node time.
  double sum = 0;
  for (const NodeDelta& d : diff.nodes) sum += d.delta_ns();
  EXPECT_DOUBLE_EQ(sum, 950 - 1050);

  // Per module, sorted by impact: layer1 900 -> 800 and its children.
  ASSERT_FALSE(diff.modules.empty());
  const GroupDelta* layer1 = nullptr;
  for (const GroupDelta& g : diff.modules) {
    if (g.name == "layer1") layer1 = &g;
  }
  ASSERT_NE(layer1, nullptr);
  EXPECT_DOUBLE_EQ(layer1->base_ns, 900);
  EXPECT_DOUBLE_EQ(layer1->current_ns, 800);
  EXPECT_EQ(layer1->depth, 1);
  for (size_t i = 1; i < diff.modules.size(); ++i) {
    EXPECT_GE(std::fabs(diff.modules[i - 1].delta_ns()), std::fabs(diff.modules[i].delta_ns()));
  }

  const std::string text = RenderDiff(diff);
  EXPECT_TRUE(absl::StrContains(text, "1 same, 1 kind+module, 1 replaced, 1 merged, 1 added, 1 removed")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1 never executed, not shown (--diff_all)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "matched    95.2%")) << text;
  EXPECT_TRUE(absl::StrContains(text, "layer1.bn/aten::batch_norm -> layer1.conv/prim::mkldnn_co")) << text;
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  EXPECT_EQ(j["nodes"].size(), 6u);
  EXPECT_NEAR(j["matched_time_fraction"].get<double>(), 0.952, 1e-3);
  EXPECT_EQ(j["modules"][0]["module"], "layer1.bn") << "the largest change first";
}

TEST(ReportDiffTest, DiffAllIncludesNodesThatNeverRan) {
  DiffOptions options;
  options.include_unexecuted = true;
  const ReportDiff diff = DiffReports(MakeReport(kBase), MakeReport(kCurrent), options);
  EXPECT_EQ(diff.unexecuted, 0);
  EXPECT_EQ(diff.removed, 1) << "the dropout";
  EXPECT_EQ(diff.merged, 2) << "the batch norm and the dead twin, into the MKLDNN conv";
}

TEST(ReportDiffTest, IdenticalReportsHaveNoDelta) {
  Report r = MakeReport({{"aten::add", "", "a:1", 10}, {"aten::mul", "", "a:2", 20}, {"aten::add", "", "a:1", 30}});
  ReportDiff diff = DiffReports(r, r);
  EXPECT_EQ(diff.same, 3);
  EXPECT_DOUBLE_EQ(diff.speedup(), 1.0);
  EXPECT_DOUBLE_EQ(diff.matched_time_fraction, 1.0);
  for (const NodeDelta& d : diff.nodes) {
    EXPECT_DOUBLE_EQ(d.delta_ns(), 0);
    EXPECT_EQ(d.base_id, d.current_id) << "occurrences pair in order";
  }
}

TEST(ReportDiffTest, BareGraphsDoNotPairDifferentKindsAtTheRoot) {
  const ReportDiff diff = DiffReports(MakeReport({{"aten::add", "", "", 10}}), MakeReport({{"aten::mul", "", "", 10}}));
  EXPECT_EQ(diff.replaced, 0);
  EXPECT_EQ(diff.added, 1);
  EXPECT_EQ(diff.removed + diff.merged, 1);
}

}  // namespace
}  // namespace graphprof
