// Stragglers among ranks (profilers/report/rank_stragglers.h): the test
// over aligned runs, its false-call rate and power by simulation, and the
// report's rank fields in JSON (schema 4; older run sources still read).
#include "profilers/report/rank_stragglers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "ir/collective_kinds.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_json.h"
#include "profilers/report/views.h"

namespace graphprof {
namespace {

// One rank's report: node i's time in run k is times[i][k] (ns).
Report RankReport(const std::vector<std::vector<int64_t>>& times, int rank, int world_size) {
  Report report;
  report.model = "m";
  report.runs = static_cast<int>(times.front().size());
  report.rank = rank;
  report.world_size = world_size;
  report.process = absl::StrCat("rank-process-", rank);
  report.report_id = absl::StrCat(report.process, "/1");
  std::vector<int64_t> total(report.runs, 0);
  for (size_t i = 0; i < times.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = "aten::mm";
    node.identity.module = absl::StrCat("layer", i % 4);
    node.identity.label = absl::StrCat(node.identity.module, "/mm", i);
    node.calls.assign(report.runs, 1);
    node.metrics = {Series{times[i], {}}};
    for (int k = 0; k < report.runs; ++k) total[k] += times[i][k];
    report.nodes.push_back(node);
  }
  report.columns[0].run_total = total;
  report.run_start_ns.assign(report.runs, 0);
  report.Finalize();
  return report;
}

struct Simulated {
  int ranks = 4;
  int runs = 20;
  int nodes = 40;
  int slow_rank = -1;    // this rank's node `slow_node` takes `slow_factor` times as long
  int slow_node = 7;
  double slow_factor = 1;
};

// Ranks of one program on a noisy machine: a step factor shared by every
// rank in a run (sd 0.3 on the log scale), a per-(rank, node, run) factor
// (sd 0.15) and, in 5% of executions, a 2-4x outlier (preemption).
Report SimulateRanks(const Simulated& s, std::mt19937_64& rng) {
  std::normal_distribution<double> step_noise(0, 0.3), noise(0, 0.15);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> base(s.nodes), step(s.runs);
  for (int i = 0; i < s.nodes; ++i) base[i] = 2000.0 * std::exp(2 * uniform(rng));  // 2 to 15 us
  base[s.slow_node] = 12000;  // ~4% of the step: a 2x there adds more than kRankStragglerMinShare
  for (int k = 0; k < s.runs; ++k) step[k] = std::exp(step_noise(rng));
  ReportMerger merger;
  for (int r = 0; r < s.ranks; ++r) {
    std::vector<std::vector<int64_t>> times(s.nodes, std::vector<int64_t>(s.runs));
    for (int i = 0; i < s.nodes; ++i) {
      for (int k = 0; k < s.runs; ++k) {
        double t = base[i] * step[k] * std::exp(noise(rng));
        if (uniform(rng) < 0.05) t *= 2 + 2 * uniform(rng);
        if (r == s.slow_rank && i == s.slow_node) t *= s.slow_factor;
        times[i][k] = static_cast<int64_t>(t);
      }
    }
    EXPECT_TRUE(merger.Add(RankReport(times, r, s.ranks), absl::StrCat("rank ", r)).ok());
  }
  absl::StatusOr<Report> merged = merger.Finish();
  EXPECT_TRUE(merged.ok()) << merged.status();
  return *merged;
}

// The node rows a view calls a straggler on: (node id, rank).
std::vector<std::pair<int, int>> Called(const Report& report) {
  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kNode, "id", 0});
  EXPECT_TRUE(view.ok());
  std::vector<std::pair<int, int>> called;
  for (const ViewRow& row : view->rows) {
    const ViewRow::Straggler s = row.straggler();
    if (s.source >= 0) called.emplace_back(row.id, report.run_sources[s.source].rank);
  }
  return called;
}

TEST(RankStragglersTest, MergedRanksAreAlignedAndNothingElseIs) {
  std::mt19937_64 rng(1);
  Report merged = SimulateRanks(Simulated{}, rng);
  EXPECT_TRUE(RanksAligned(merged));
  ASSERT_EQ(merged.run_sources.size(), 4u);
  EXPECT_EQ(merged.run_sources[2].rank, 2);
  EXPECT_EQ(merged.run_sources[2].world_size, 4);
  EXPECT_EQ(merged.rank, -1) << "a merge is no one rank's";

  Report missing = merged;
  missing.run_sources.pop_back();
  EXPECT_FALSE(RanksAligned(missing)) << "3 sources of a world of 4";
  Report twice = merged;
  twice.run_sources[3].rank = 2;
  EXPECT_FALSE(RanksAligned(twice)) << "rank 2 twice";
  Report processes = merged;
  for (RunSource& s : processes.run_sources) s.world_size = 0, s.rank = -1;
  EXPECT_FALSE(RanksAligned(processes)) << "worker processes, not ranks";
  EXPECT_EQ(TestRanks(processes, processes.nodes[0].time().total).source, -1);
  EXPECT_FALSE(TestRanks(processes, processes.nodes[0].time().total).tested);
}

TEST(RankStragglersTest, OneRankSlowInOneStepsNodeIsThatRanksStraggler) {
  // A rank always 3x slower on one node: the test is exact enough to see it
  // in 10 runs, and the excess it reports is the factor's.
  std::vector<std::vector<int64_t>> fast = {{1000, 1010, 990, 1005, 995, 1000, 1003, 998, 1001, 999},
                                            {50000, 50000, 50000, 50000, 50000, 50000, 50000, 50000, 50000, 50000}};
  std::vector<std::vector<int64_t>> slow = fast;
  for (int64_t& t : slow[0]) t *= 3;
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(RankReport(fast, 0, 3), "rank 0").ok());
  ASSERT_TRUE(merger.Add(RankReport(slow, 1, 3), "rank 1").ok());
  ASSERT_TRUE(merger.Add(RankReport(fast, 2, 3), "rank 2").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok());
  const RankTest t = TestRanks(*merged, merged->nodes[0].time().total);
  EXPECT_EQ(t.source, 1);
  EXPECT_NEAR(t.excess, 2.0, 0.05);
  EXPECT_LT(t.p, 1e-6);
  EXPECT_EQ(Called(*merged), (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(RankStragglersTest, ATinyNodeSlowerOnARankAddsTooLittleToBeCalled) {
  // 60% slower, every run, but 0.6 us of a 50 us run (below
  // kRankStragglerMinShare): not what holds the program back.
  std::vector<std::vector<int64_t>> fast = {std::vector<int64_t>(10, 1000), std::vector<int64_t>(10, 50'000'000)};
  std::vector<std::vector<int64_t>> slow = fast;
  for (int64_t& t : slow[0]) t = 1600;
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(RankReport(fast, 0, 2), "rank 0").ok());
  ASSERT_TRUE(merger.Add(RankReport(slow, 1, 2), "rank 1").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok());
  EXPECT_TRUE(Called(*merged).empty());
}

TEST(RankStragglersTest, SimulatedAACallsAStragglerInFewerThanAlphaOfTrials) {
  // 300 A/As of 4 ranks x 40 nodes x 20 runs with a shared step factor and
  // outliers: a trial is a false call when any node row names a straggler.
  std::mt19937_64 rng(55);
  int false_trials = 0;
  constexpr int kTrials = 300;
  for (int trial = 0; trial < kTrials; ++trial) {
    if (!Called(SimulateRanks(Simulated{}, rng)).empty()) ++false_trials;
  }
  EXPECT_LE(false_trials, kTrials * kRankStragglerAlpha) << false_trials << " of " << kTrials;
  std::printf("A/A: a straggler called in %d of %d trials\n", false_trials, kTrials);
}

TEST(RankStragglersTest, SimulatedSlowRankIsCalledOnItsNodeAndNoOther) {
  // The last rank takes twice as long on node 7 in every run (a rank that
  // waits in one node); 2 ranks and 4 ranks. (At 1.5x, measured with this
  // test before the node was fixed at ~4% of the step: called in 62% of
  // trials with 2 ranks, 95% with 4; never elsewhere.)
  for (int ranks : {2, 4}) {
    std::mt19937_64 rng(59 + ranks);
    int found = 0, elsewhere = 0;
    constexpr int kTrials = 200;
    for (int trial = 0; trial < kTrials; ++trial) {
      Simulated s;
      s.ranks = ranks;
      s.slow_rank = ranks - 1;
      s.slow_factor = 2;
      for (const auto& [node, rank] : Called(SimulateRanks(s, rng))) {
        if (node == s.slow_node && rank == s.slow_rank) {
          ++found;
        } else {
          ++elsewhere;
        }
      }
    }
    EXPECT_GE(found, kTrials * 95 / 100) << ranks << " ranks";
    EXPECT_LE(elsewhere, kTrials * kRankStragglerAlpha) << ranks << " ranks";
    std::printf("%d ranks, rank %d 2x on one node: called there in %d of %d trials, elsewhere %d times\n", ranks,
                ranks - 1, found, kTrials, elsewhere);
  }
}

TEST(RankStragglersTest, ACollectivesTimeIsSplitIntoTransferAndWaiting) {
  // Node 0 a collective's wait: in each step the rank that came last waited
  // only for the transfer (the least time), the others also for it.
  std::vector<std::vector<int64_t>> rank0 = {{1000, 3000, 1000, 5000, 1000}, {9000, 9000, 9000, 9000, 9000}};
  std::vector<std::vector<int64_t>> rank1 = {{2000, 1000, 4000, 1000, 1000}, {9000, 9000, 9000, 9000, 9000}};
  Report r0 = RankReport(rank0, 0, 2), r1 = RankReport(rank1, 1, 2);
  for (Report* r : {&r0, &r1}) r->nodes[0].identity.kind = "_c10d_functional::wait_tensor";
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(r0, "rank 0").ok());
  ASSERT_TRUE(merger.Add(r1, "rank 1").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok());
  EXPECT_DOUBLE_EQ(StepFloorMean(*merged, merged->nodes[0].time().total), 1000);  // the least rank's, each step
  EXPECT_TRUE(IsCollectiveOperator("_c10d_functional::all_reduce"));
  EXPECT_FALSE(IsCollectiveOperator("aten::mm"));
  absl::StatusOr<View> view = MakeView(*merged, ViewOptions{GroupBy::kNode, "id", 0});
  ASSERT_TRUE(view.ok());
  const std::string csv = RenderCsv(*merged, *view);
  EXPECT_NE(csv.find(",transfer_us,waiting_us"), std::string::npos) << csv;
  // Mean 2000 ns of which 1000 transfer: 1.000 us each; the mm row has neither.
  EXPECT_NE(csv.find(",1.000,1.000,"), std::string::npos) << csv;

  Report processes = *merged;
  for (RunSource& s : processes.run_sources) s.world_size = 0, s.rank = -1;
  absl::StatusOr<View> other = MakeView(processes, ViewOptions{GroupBy::kNode, "id", 0});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(RenderCsv(processes, *other).find("transfer_us"), std::string::npos) << "not ranks: no split";
}

TEST(RankStragglersTest, RanksSurviveJsonAndOlderRunSourcesStillRead) {
  std::mt19937_64 rng(3);
  Report merged = SimulateRanks(Simulated{}, rng);
  const std::string json = ReportToJson(merged);
  EXPECT_NE(json.find("\"schema_version\":4"), std::string::npos) << json.substr(0, 80);
  absl::StatusOr<Report> back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->run_sources.size(), 4u);
  EXPECT_EQ(back->run_sources[3].rank, 3);
  EXPECT_EQ(back->run_sources[3].world_size, 4);
  EXPECT_EQ(back->run_sources[3].report, merged.run_sources[3].report);
  EXPECT_TRUE(RanksAligned(*back));

  Report one = RankReport({{1, 2, 3}}, 1, 2);
  absl::StatusOr<Report> one_back = ReportFromJson(ReportToJson(one));
  ASSERT_TRUE(one_back.ok()) << one_back.status();
  EXPECT_EQ(one_back->rank, 1);
  EXPECT_EQ(one_back->world_size, 2);

  // Schema 3's run sources were arrays.
  std::string old = json;
  const size_t at = old.find("\"run_sources\"");
  ASSERT_NE(at, std::string::npos);
  old = old.substr(0, at) + R"("run_sources":[["a.json",0,10,"p1","p1/1"],["b.json",10,10]]})";
  old.replace(old.find("\"schema_version\":4"), 18, "\"schema_version\":3");
  absl::StatusOr<Report> older = ReportFromJson(old);
  ASSERT_TRUE(older.ok()) << older.status();
  ASSERT_EQ(older->run_sources.size(), 2u);
  EXPECT_EQ(older->run_sources[0].process, "p1");
  EXPECT_EQ(older->run_sources[1].rank, -1);
  EXPECT_FALSE(RanksAligned(*older));

  std::string bad = json;
  const std::string rank3 = "\"rank\":3,\"world_size\":4";
  bad.replace(bad.find(rank3), rank3.size(), "\"rank\":4,\"world_size\":4");
  absl::StatusOr<Report> refused = ReportFromJson(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("rank 4 of world size 4"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace graphprof
