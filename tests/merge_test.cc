#include "profilers/report/merge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/html_report.h"
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
  report.columns[0].run_total.assign(runs, add_ns + mul_ns);
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
  EXPECT_TRUE(absl::StrContains(csv, ",min_report_us,median_report_us,max_report_us,slowest_report,straggler_report,straggler_excess,shapes,source\n")) << csv;
  EXPECT_TRUE(absl::StrContains(csv, ",0.100,0.200,0.300,rank1.json,,,,\n")) << csv;

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

// A straggler is a report slower than the others beyond their spread, from
// per-report medians; the slowest of reports alike is no straggler.
TEST(MergeTest, StragglersStandOutFromTheSpread) {
  ReportMerger merger;
  const int64_t add_ns[] = {100, 103, 98, 101, 99, 160};
  for (int i = 0; i < 6; ++i) {
    Report r = MakeReport("m", add_ns[i], 50 + i % 2, 3);
    r.report_id = absl::StrCat("rank", i);
    ASSERT_TRUE(merger.Add(r, absl::StrCat("rank", i, ".json")).ok());
  }
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok());
  absl::StatusOr<View> nodes = MakeView(*merged, ViewOptions{GroupBy::kNode, "id", 0});
  ASSERT_TRUE(nodes.ok());
  const ViewRow::Straggler add = nodes->rows[0].straggler();
  EXPECT_EQ(add.source, 5);
  EXPECT_NEAR(add.excess, 160.0 / 100.5 - 1, 1e-9);
  EXPECT_EQ(nodes->rows[1].straggler().source, -1) << "50 vs 51 ns: within 2%";
  const std::string table = RenderTable(*merged, *nodes);
  EXPECT_TRUE(absl::StrContains(table, "rank5.json +59.2%")) << table;
}

// Identity comes from the graph: the same graph under two names (a relative
// and an absolute path, a copy) merges; another graph with the same name does not.
TEST(MergeTest, IdentityIsTheGraphsHash) {
  Report a = MakeReport("model.pt", 1, 1, 2);
  Report b = MakeReport("/home/me/model-copy.pt", 1, 1, 2);
  a.graph_hash = b.graph_hash = "0123456789abcdef";
  a.report_id = "p/1";
  b.report_id = "q/1";
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(a, "model.pt").ok());
  absl::Status same = merger.Add(b, "model-copy.pt");
  EXPECT_TRUE(same.ok()) << same;
  Report c = MakeReport("model.pt", 1, 1, 2);
  c.graph_hash = "fedcba9876543210";
  c.report_id = "r/1";
  absl::Status other = merger.Add(c, "other.pt");
  EXPECT_TRUE(absl::StrContains(other.message(), "another graph")) << other;
  EXPECT_TRUE(merger.warnings().empty());
  EXPECT_EQ(merger.Finish()->runs, 4);
}

// The same runs never count twice: one report given twice, or a merged
// report and one of its parts.
TEST(MergeTest, TheSameRunsCountOnce) {
  Report a = MakeReport("m", 10, 10, 3);
  Report b = MakeReport("m", 20, 20, 2);
  a.report_id = "proc/1";
  b.report_id = "proc/2";
  ReportMerger twice;
  ASSERT_TRUE(twice.Add(a, "a.json").ok());
  ASSERT_TRUE(twice.Add(a, "a-again.json").ok());
  ASSERT_EQ(twice.warnings().size(), 1u);
  EXPECT_TRUE(absl::StrContains(twice.warnings()[0], "counted once")) << twice.warnings()[0];
  absl::StatusOr<Report> once = twice.Finish();
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(once->runs, 3);

  ReportMerger first;
  ASSERT_TRUE(first.Add(a, "a.json").ok());
  ASSERT_TRUE(first.Add(b, "b.json").ok());
  absl::StatusOr<Report> ab = first.Finish();
  ASSERT_TRUE(ab.ok());
  ReportMerger again;
  ASSERT_TRUE(again.Add(*ab, "ab.json").ok());
  ASSERT_TRUE(again.Add(b, "b.json").ok());
  absl::StatusOr<Report> all = again.Finish();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->runs, 5) << "b's runs are in ab.json already";
  EXPECT_EQ(all->run_sources.size(), 2u);
  EXPECT_EQ(again.warnings().size(), 1u);
  // Distinct reports with equal numbers (ranks) merge without a word.
  ReportMerger ranks;
  for (int i = 0; i < 64; ++i) {
    Report r = MakeReport("m", 5, 5, 2);
    r.report_id = absl::StrCat("rank", i, "/1");
    ASSERT_TRUE(ranks.Add(r, absl::StrCat("rank", i, ".json")).ok());
  }
  EXPECT_TRUE(ranks.warnings().empty());
  EXPECT_EQ(ranks.Finish()->runs, 128);
}

TEST(MergeTest, ForwardRunsAndTrainingStepsDoNotMerge) {
  Report forward = MakeReport("m", 1, 1, 2);
  Report training = MakeReport("m", 1, 1, 2);
  Column backward;
  backward.name = "backward";
  backward.scope = Column::Scope::kSelf;
  training.AddMetric(backward);
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(forward, "f.json").ok());
  absl::Status mixed = merger.Add(training, "t.json");
  EXPECT_TRUE(absl::StrContains(mixed.message(), "training steps")) << mixed;
}

// A count metric without run totals (kernels, autograd functions) stays
// without them; a time metric keeps its totals, zeros for a report that
// lacks the metric.
TEST(MergeTest, MakesUpNoRunTotals) {
  auto with_metrics = [](int runs, bool device) {
    Report r = MakeReport("m", 1, 1, runs);
    Column count;
    count.name = "kernels";
    count.unit = Unit::kCount;
    count.scope = Column::Scope::kSelf;
    r.AddMetric(count);
    if (device) {
      Column time;
      time.name = "device";
      time.scope = Column::Scope::kSelf;
      time.run_total.assign(runs, 7);
      r.AddMetric(time);
    }
    return r;
  };
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(with_metrics(2, true), "a.json").ok());
  ASSERT_TRUE(merger.Add(with_metrics(3, false), "b.json").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->columns[merged->FindMetric("kernels")].run_total.empty());
  EXPECT_EQ(merged->columns[merged->FindMetric("device")].run_total, (std::vector<int64_t>{7, 7, 0, 0, 0}));
  EXPECT_EQ(merged->nodes[0].metrics[merged->FindMetric("kernels")].self.size(), 5u);
}

// Run starts only where every report has them: a report without them (older
// or hand-made) merged with one that has them gave fewer starts than runs,
// which merge wrote and its own reader refused (compare_fuzzer's
// tests/fuzz/regressions/compare_fuzzer/merge_without_run_starts.txt).
TEST(MergeTest, RunStartsOnlyWhereEveryReportHasThem) {
  Report without = MakeReport("m", 1, 1, 1);
  without.run_start_ns.clear();
  for (bool first_without : {true, false}) {
    ReportMerger merger;
    ASSERT_TRUE(merger.Add(first_without ? without : MakeReport("m", 1, 1, 3), "a.json").ok());
    ASSERT_TRUE(merger.Add(first_without ? MakeReport("m", 1, 1, 3) : without, "b.json").ok());
    absl::StatusOr<Report> merged = merger.Finish();
    ASSERT_TRUE(merged.ok()) << merged.status();
    EXPECT_EQ(merged->runs, 4);
    EXPECT_TRUE(merged->run_start_ns.empty());
    absl::StatusOr<Report> back = ReportFromJson(ReportToJson(*merged));
    EXPECT_TRUE(back.ok()) << back.status();
  }
  ReportMerger both;
  ASSERT_TRUE(both.Add(MakeReport("m", 1, 1, 2), "a.json").ok());
  ASSERT_TRUE(both.Add(MakeReport("m", 1, 1, 3), "b.json").ok());
  absl::StatusOr<Report> merged = both.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->run_start_ns.size(), 5u);
}

// `report` with a trace event per node execution of every run (add, then
// mul), as profile_graph --trace records them.
Report WithEvents(Report report, int64_t add_ns, int64_t mul_ns) {
  for (int r = 0; r < report.runs; ++r) {
    report.events.push_back(TraceEvent{0, r, report.run_start_ns[r], add_ns});
    report.events.push_back(TraceEvent{1, r, report.run_start_ns[r] + add_ns, mul_ns});
  }
  return report;
}

TEST(MergeTest, KeepsEachSourcesFirstRunEventsOnTheMergedClock) {
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(WithEvents(MakeReport("m", 100, 10, 2), 100, 10), "rank0.json").ok());
  ASSERT_TRUE(merger.Add(WithEvents(MakeReport("m", 300, 10, 3), 300, 10), "rank1.json").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_EQ(merged->run_start_ns.size(), 5u);
  // rank1's first run is merged run 2, which starts after rank0's two runs.
  ASSERT_EQ(merged->events.size(), 4u);
  EXPECT_EQ(merged->events[0].run, 0);
  EXPECT_EQ(merged->events[2].run, 2);
  EXPECT_EQ(merged->events[2].start_ns, merged->run_start_ns[2]);
  EXPECT_EQ(merged->events[3].start_ns, merged->run_start_ns[2] + 300);
  EXPECT_EQ(merged->events[3].duration_ns, 10);
  EXPECT_EQ(merged->run_start_ns[2], 220) << "rank0's runs end at 2 x 110 ns";

  // Merged again with a third report: the lanes of the first merge stay, the
  // new one is added; through JSON, as merge reads files.
  absl::StatusOr<Report> read = ReportFromJson(ReportToJson(*merged));
  ASSERT_TRUE(read.ok()) << read.status();
  ReportMerger again;
  ASSERT_TRUE(again.Add(*std::move(read), "ranks.json").ok());
  ASSERT_TRUE(again.Add(WithEvents(MakeReport("m", 200, 40, 2), 200, 40), "rank2.json").ok());
  absl::StatusOr<Report> twice = again.Finish();
  ASSERT_TRUE(twice.ok()) << twice.status();
  ASSERT_EQ(twice->events.size(), 6u);
  std::vector<int> runs;
  for (const TraceEvent& e : twice->events) runs.push_back(e.run);
  EXPECT_EQ(runs, (std::vector<int>{0, 0, 2, 2, 5, 5}));
  EXPECT_EQ(twice->events[4].start_ns, twice->run_start_ns[5]);

  // Without run starts on one side there is no clock for them: none kept.
  Report without = WithEvents(MakeReport("m", 1, 1, 2), 1, 1);
  without.run_start_ns.clear();
  ReportMerger unclocked;
  ASSERT_TRUE(unclocked.Add(WithEvents(MakeReport("m", 1, 1, 2), 1, 1), "a.json").ok());
  ASSERT_TRUE(unclocked.Add(without, "b.json").ok());
  absl::StatusOr<Report> none = unclocked.Finish();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->events.empty());
}

// The page's timeline of a merged report: one lane per source's first run,
// each event since its own lane's start, the straggler's node marked.
TEST(MergeTest, ThePageDrawsEachSourcesFirstRunAsALane) {
  ReportMerger merger;
  std::vector<Report> parts = {WithEvents(MakeReport("m", 100, 10, 3), 100, 10),
                               WithEvents(MakeReport("m", 100, 10, 3), 100, 10),
                               WithEvents(MakeReport("m", 900, 10, 3), 900, 10)};
  for (size_t r = 0; r < parts.size(); ++r) ASSERT_TRUE(merger.Add(parts[r], absl::StrCat("p", r, ".json")).ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  const nlohmann::json timeline = nlohmann::json::parse(HtmlData(*merged))["timeline"];
  ASSERT_EQ(timeline["lanes"].size(), 3u);
  EXPECT_EQ(timeline["lanes"][2]["label"], "p2.json") << "a source that is no rank: its name";
  EXPECT_EQ(timeline["lanes"][2]["run"], 6);
  EXPECT_EQ(timeline["duration_ns"], 910) << "the longest lane's run";
  ASSERT_EQ(timeline["events"].size(), 6u);
  // [node, start since the lane's run start, duration, depth, lane]
  EXPECT_EQ(timeline["events"][5], nlohmann::json::parse("[1, 900, 10, 0, 2]"));
  EXPECT_EQ(timeline["events"][3], nlohmann::json::parse("[1, 100, 10, 0, 1]"));
  EXPECT_TRUE(timeline["memory"].is_null());
  // Three reports: merge's rule calls the third a straggler on the add.
  EXPECT_EQ(timeline["lanes"][2]["stragglers"], nlohmann::json::parse("[0]"));
  EXPECT_EQ(timeline["lanes"][0]["stragglers"], nlohmann::json::parse("[]"));

  // One report: its run 0, no lanes.
  const nlohmann::json single = nlohmann::json::parse(HtmlData(parts[0]))["timeline"];
  EXPECT_FALSE(single.contains("lanes"));
  EXPECT_EQ(single["events"].size(), 2u);
}

TEST(MergeTest, WarnsAboutWhatDiffers) {
  Report a = MakeReport("m", 1, 1, 2);
  Report b = MakeReport("m", 1, 1, 3);
  a.nodes[0].input_shapes = "f32[1,8]";
  b.nodes[0].input_shapes = "f32[4,8]";
  a.machine = Machine{};
  a.machine->cpu = "A CPU";
  b.machine = Machine{};
  b.machine->cpu = "Another CPU";
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(a, "a.json").ok());
  ASSERT_TRUE(merger.Add(b, "b.json").ok());
  const std::string all = absl::StrJoin(merger.warnings(), "\n");
  EXPECT_TRUE(absl::StrContains(all, "input shapes")) << all;
  EXPECT_TRUE(absl::StrContains(all, "numbers of timed runs")) << all;
  EXPECT_TRUE(absl::StrContains(all, "another machine (cpu differ")) << all;
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok());
  EXPECT_TRUE(absl::StrContains(merged->nodes[0].input_shapes, "varies")) << merged->nodes[0].input_shapes;
  EXPECT_TRUE(absl::StrContains(absl::StrJoin(merged->notes, "\n"), "a.json, b.json")) << "which reports";
}

}  // namespace
}  // namespace graphprof
