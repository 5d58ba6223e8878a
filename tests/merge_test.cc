#include "profilers/report/merge.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

namespace graphprof {
namespace {

// A two-node report ("add" in module a, "mul" in b) whose runs take `add_ns`
// and `mul_ns`.
Report MakeReport(const std::string& model, int64_t add_ns, int64_t mul_ns, int runs) {
  Report report;
  report.model = model;
  report.runs = runs;
  for (int i = 0; i < 2; ++i) {
    NodeRecord node;
    node.identity.id = i;
    node.identity.kind = i == 0 ? "aten::add" : "aten::mul";
    node.identity.module = i == 0 ? "a" : "b";
    node.identity.label = node.identity.module + "/" + node.identity.kind;
    node.calls.assign(runs, 1);
    node.metrics = {Series{std::vector<int64_t>(runs, i == 0 ? add_ns : mul_ns), {}}};
    report.nodes.push_back(node);
  }
  report.metrics[0].run_total.assign(runs, add_ns + mul_ns);
  report.run_start_ns.assign(runs, 0);
  for (int r = 0; r < runs; ++r) report.run_start_ns[r] = r * (add_ns + mul_ns);
  report.Finalize();
  return report;
}

TEST(MergeTest, ConcatenatesRunsAndShowsTheSpreadAndTheStraggler) {
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(MakeReport("m", 100, 10, 2), "rank0.json").ok());
  ASSERT_TRUE(merger.Add(MakeReport("m", 300, 10, 3), "rank1.json").ok());
  ASSERT_TRUE(merger.Add(MakeReport("m", 200, 40, 1), "rank2.json").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->runs, 6);
  ASSERT_EQ(merged->run_sources.size(), 3u);
  EXPECT_EQ(merged->run_sources[1].first_run, 2);
  EXPECT_EQ(merged->run_sources[1].runs, 3);
  EXPECT_EQ(merged->nodes[0].time().total, (std::vector<int64_t>{100, 100, 300, 300, 300, 200}));
  EXPECT_EQ(merged->run_ns().size(), 6u);

  absl::StatusOr<View> nodes = MakeView(*merged, ViewOptions{GroupBy::kNode, "id", 0});
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->rows[0].source_means, (std::vector<double>{100, 300, 200}));
  EXPECT_EQ(nodes->rows[0].slowest_source(), 1) << "rank1 is the add's straggler";
  EXPECT_EQ(nodes->rows[1].slowest_source(), 2) << "rank2 is the mul's";
  absl::StatusOr<View> modules = MakeView(*merged, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok());
  EXPECT_EQ(modules->rows[0].source_means, (std::vector<double>{110, 310, 240})) << "the root: both nodes";

  const std::string table = RenderTable(*merged, *nodes);
  EXPECT_TRUE(absl::StrContains(table, "min/report")) << table;
  EXPECT_TRUE(absl::StrContains(table, "rank1.json")) << table;
  EXPECT_TRUE(absl::StrContains(RenderSummary(*merged), "rank0.json 0.110 us, rank1.json 0.310 us")) << RenderSummary(*merged);
  const std::string csv = RenderCsv(*merged, *nodes);
  EXPECT_TRUE(absl::StrContains(csv, ",min_report_us,median_report_us,max_report_us,slowest_report\n")) << csv;
  EXPECT_TRUE(absl::StrContains(csv, ",0.100,0.200,0.300,rank1.json\n")) << csv;

  absl::StatusOr<Report> back = ReportFromJson(ReportToJson(*merged));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->run_sources.size(), 3u);
  EXPECT_EQ(back->run_sources[2].name, "rank2.json");
  EXPECT_EQ(ReportToJson(*back), ReportToJson(*merged));
}

TEST(MergeTest, RefusesAnotherModelOrGraph) {
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(MakeReport("m", 1, 1, 1), "a.json").ok());
  absl::Status other = merger.Add(MakeReport("other", 1, 1, 1), "b.json");
  EXPECT_TRUE(absl::StrContains(other.message(), "b.json is a report of other, not of m")) << other;
  Report reshaped = MakeReport("m", 1, 1, 1);
  reshaped.nodes[1].identity.kind = "aten::div";
  absl::Status graph = merger.Add(reshaped, "c.json");
  EXPECT_TRUE(absl::StrContains(graph.message(), "not the same graph")) << graph;
  EXPECT_EQ(merger.reports(), 1) << "refused reports change nothing";
  EXPECT_FALSE(ReportMerger().Finish().ok());
}

}  // namespace
}  // namespace graphprof
