// profile_graph as the ranks of a torch.distributed program (tools/rank_run.h):
// ranks started as torchrun starts them (RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT), one merged report from rank 0, a known slow rank called a
// straggler on its node only, and a rank that dies or fails ending the
// others with one line, no hang.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tests/rank_processes.h"
#include "tests/test_util.h"

namespace graphprof::testing {
namespace {

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(RanksCliTest, EveryRanksRunsInOneReportWrittenByRankZero) {
  for (int world : {2, 4}) {
    const std::string dir = TempDir(absl::StrCat("merged", world));
    const std::string path = dir + "/r.json";
    const std::string page = dir + "/r.html";
    RankProcesses ranks(world, {"--zoo=mlp", "--warmup=1", "--runs=6", "--format=json", "--output=" + path,
                                "--html=" + page});
    for (const RankProcess& r : ranks.Wait()) {
      EXPECT_EQ(r.result.code, 0) << r.result.err;
      EXPECT_EQ(r.result.out, "");
      EXPECT_EQ(r.result.err, "") << "no rank says anything when all is well";
    }
    const nlohmann::json j = nlohmann::json::parse(Slurp(path));
    EXPECT_EQ(j["schema_version"], 4);
    EXPECT_EQ(j["runs"], 6 * world);
    ASSERT_EQ(j["run_sources"].size(), static_cast<size_t>(world));
    for (int r = 0; r < world; ++r) {
      const nlohmann::json& source = j["run_sources"][r];
      EXPECT_EQ(source["rank"], r);
      EXPECT_EQ(source["world_size"], world);
      EXPECT_EQ(source["runs"], 6);
      EXPECT_EQ(source["name"], absl::StrCat("rank ", r));
    }
    EXPECT_NE(j["run_sources"][0]["process"], j["run_sources"][1]["process"]);
    EXPECT_EQ(j["verified"], true) << j["verification"].dump();
    // Each rank's first timed run keeps its trace events: the page's lanes.
    std::set<int> runs_with_events;
    for (const nlohmann::json& e : j["events"]) runs_with_events.insert(e[1].get<int>());
    std::set<int> first_runs;
    for (int r = 0; r < world; ++r) first_runs.insert(6 * r);
    EXPECT_EQ(runs_with_events, first_runs);
    const std::string html = Slurp(page);
    for (int r = 0; r < world; ++r) {
      EXPECT_TRUE(absl::StrContains(html, absl::StrCat("{\"label\":\"rank ", r, "\",\"run\":", 6 * r)))
          << "rank " << r << "'s lane on the page";
    }
  }
}

TEST(RanksCliTest, ASlowRankIsCalledAStragglerOnItsNodeAndNoOther) {
  // Rank 1 busy-waits 3 ms after fc2 (the same graph on every rank:
  // graphprof::delay_on_rank waits on rank 1 only).
  RankProcesses ranks(3, {"--zoo=mlp", "--warmup=1", "--runs=12", "--passes=delay:fc2:3000@1", "--format=csv", "--top=0"});
  std::vector<RankProcess>& done = ranks.Wait();
  for (const RankProcess& r : done) EXPECT_EQ(r.result.code, 0) << r.result.err;
  const std::string& csv = done[0].result.out;
  const std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_GT(lines.size(), 2u) << csv;
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  const size_t column = std::find(header.begin(), header.end(), "straggler_report") - header.begin();
  const size_t kind = std::find(header.begin(), header.end(), "kind") - header.begin();
  ASSERT_LT(column, header.size()) << lines[0];
  ASSERT_LT(kind, header.size()) << lines[0];
  int called = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = absl::StrSplit(lines[i], ',');
    if (cells.size() <= column || cells[column].empty()) continue;
    ++called;
    EXPECT_EQ(cells[kind], "graphprof::delay_on_rank") << lines[i];
    EXPECT_EQ(cells[column], "rank 1") << lines[i];
  }
  EXPECT_EQ(called, 1) << csv;
  for (size_t r = 1; r < done.size(); ++r) EXPECT_EQ(done[r].result.out, "") << "rank " << r << " writes nothing";
}

TEST(RanksCliTest, ARankKilledMidRunEndsTheOthersWithOneLine) {
  for (int killed : {1, 0}) {
    // Long enough that the kill comes mid-run; the survivors' waits end
    // after --rank_timeout (rank 1 killed) or at once (the store's host,
    // rank 0, killed).
    RankProcesses ranks(2, {"--zoo=mlp", "--warmup=1", "--runs=100000", "--rank_timeout=5", "--format=json",
                    "--output=" + TempDir(absl::StrCat("killed", killed)) + "/r.json"});
    std::this_thread::sleep_for(std::chrono::seconds(4));
    ranks.Kill(killed);
    std::vector<RankProcess>& done = ranks.Wait(120);
    const RankProcess& survivor = done[1 - killed];
    EXPECT_EQ(survivor.result.code, 1) << survivor.result.err;
    EXPECT_EQ(Lines(survivor.result.err), 1) << survivor.result.err;
    EXPECT_TRUE(absl::StrContains(survivor.result.err, killed == 1 ? "waited 5 s" : "lost the ranks' store"))
        << survivor.result.err;
    EXPECT_LT(survivor.seconds, 60) << survivor.result.err;
    EXPECT_FALSE(Exists(TempDir(absl::StrCat("killed", killed)) + "/r.json")) << "no partial report";
  }
}

TEST(RanksCliTest, ARankThatFailsEndsTheOthersWithItsLine) {
  // Rank 1 cannot load its model: rank 0, at its first barrier, ends with
  // rank 1's failure instead of waiting out the timeout.
  RankProcesses ranks(2, {"--warmup=1", "--runs=5", "--rank_timeout=60"}, {{"--zoo=mlp"}, {"--zoo=no_such_model"}});
  std::vector<RankProcess>& done = ranks.Wait(120);
  EXPECT_NE(done[1].result.code, 0);
  EXPECT_EQ(Lines(done[1].result.err), 1) << done[1].result.err;
  EXPECT_EQ(done[0].result.code, 1) << done[0].result.err;
  EXPECT_EQ(Lines(done[0].result.err), 1) << done[0].result.err;
  EXPECT_TRUE(absl::StrContains(done[0].result.err, "rank 1 failed")) << done[0].result.err;
  EXPECT_LT(done[0].seconds, 30) << "not the 60 s timeout";
}

TEST(RanksCliTest, WhatARankCannotRunWithIsOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string env;
    const char* text;
  };
  for (const Case& c : std::vector<Case>{
           {{"--zoo=mlp", "--runs=auto"}, "RANK=0 WORLD_SIZE=1", "--runs=auto: every rank must run the same steps"},
           {{"--zoo=mlp", "--workers=2"}, "RANK=0 WORLD_SIZE=1", "each rank is one process"},
           {{"--zoo=mlp", "--ab=freeze"}, "RANK=0 WORLD_SIZE=1", "not with check, --ab"},
           {{"--zoo=mlp"}, "RANK=2 WORLD_SIZE=2", "RANK=2: as torchrun sets it, a whole number from 0 to 1"},
           {{"--zoo=mlp"}, "RANK=0", "RANK is set but WORLD_SIZE is not"},
           {{"--zoo=mlp"}, "RANK=1 WORLD_SIZE=2", "MASTER_ADDR is unset"},
       }) {
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "MASTER_ADDR"};
    for (absl::string_view v : absl::StrSplit(c.env, ' ')) argv.emplace_back(v);
    argv.push_back("tools/profile_graph");
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const std::string binary = argv[0];
    argv.erase(argv.begin());
    const Result r = RunBinary(binary, argv);
    ExpectOneLineError(r, 2, c.text);
  }
}

TEST(RanksCliTest, OneRankAloneNeedsNoAddress) {
  // WORLD_SIZE=1 (torchrun --nproc-per-node=1): a store of its own.
  const std::string path = TempDir("alone") + "/r.json";
  const Result r = RunBinary("/usr/bin/env", {"-u", "MASTER_ADDR", "-u", "MASTER_PORT", "RANK=0", "WORLD_SIZE=1",
                                              "tools/profile_graph", "--zoo=mlp", "--warmup=1", "--runs=3",
                                              "--format=json", "--output=" + path});
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(path));
  EXPECT_EQ(j["rank"], 0) << "one rank: its own report, not a merge";
  EXPECT_EQ(j["world_size"], 1);
}

}  // namespace
}  // namespace graphprof::testing
