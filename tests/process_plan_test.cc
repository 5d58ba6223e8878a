// How many processes a profile is timed in when --workers is not given
// (tools/process_plan.h), and the flags each worker then gets
// (tools/workers.h's WorkerArguments with a plan).
#include "tools/process_plan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tools/workers.h"

namespace graphprof::cli {
namespace {

CliOptions Saved(int runs) {
  CliOptions o;
  o.format = Format::kJson;
  o.output = "base.json";
  o.runs = runs;
  return o;
}

// A baseline of `processes` processes of `each` runs.
Report Baseline(int processes, int each) {
  Report base;
  for (int p = 0; p < processes; ++p) base.run_sources.push_back(RunSource{"worker", p * each, each});
  base.runs = processes * each;
  return base;
}

std::vector<std::string> Flags(const std::optional<ProcessChoice>& c) {
  return c.has_value() ? c->plan.flags : std::vector<std::string>{};
}

TEST(ProcessPlanTest, ASavedReportIsSpreadOverFiveProcesses) {
  std::optional<ProcessChoice> c = ChooseProcesses(Saved(30), std::nullopt, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->plan.processes, 5);
  EXPECT_EQ(Flags(c), std::vector<std::string>{"--runs=6"});
  EXPECT_FALSE(c->sequential);
  EXPECT_NE(c->note.find("--workers=0"), std::string::npos) << c->note;
  // Rounded up: at least the runs asked.
  EXPECT_EQ(Flags(ChooseProcesses(Saved(11), std::nullopt, nullptr)), std::vector<std::string>{"--runs=3"});
  // Few runs: as many processes as give two each; under four, none.
  c = ChooseProcesses(Saved(6), std::nullopt, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->plan.processes, 3);
  EXPECT_EQ(Flags(c), std::vector<std::string>{"--runs=2"});
  EXPECT_FALSE(ChooseProcesses(Saved(3), std::nullopt, nullptr).has_value());
  // --runs=auto: each process within a fifth of --max_time.
  CliOptions automatic = Saved(10);
  automatic.runs_auto = true;
  automatic.max_time = 60;
  EXPECT_EQ(Flags(ChooseProcesses(automatic, std::nullopt, nullptr)), std::vector<std::string>{"--max_time=12"});
}

TEST(ProcessPlanTest, OneProcessWhereAskedOrObserved) {
  auto one = [](auto edit) {
    CliOptions o = Saved(30);
    edit(o);
    return !ChooseProcesses(o, std::nullopt, nullptr).has_value();
  };
  EXPECT_TRUE(one([](CliOptions& o) { o.given.insert("workers"); }));  // --workers=0 or K: as given
  EXPECT_TRUE(one([](CliOptions& o) { o.worker_dir = "/tmp/w"; }));   // a worker itself
  EXPECT_TRUE(one([](CliOptions& o) { o.trace = "t.json"; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.html = "r.html"; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.nvtx = true; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.cuda_profile = true; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.output.clear(); }));          // JSON on stdout
  EXPECT_TRUE(one([](CliOptions& o) { o.format = Format::kTable; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.ab = "cse"; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.compare = "base.json"; }));
  EXPECT_TRUE(one([](CliOptions& o) { o.compare_model = "b.pt2"; }));
}

TEST(ProcessPlanTest, CheckFollowsItsBaseline) {
  CliOptions check;
  check.check = true;
  check.runs = 10;
  // --html: a check's page is the diff's, so it follows its baseline too.
  CliOptions with_page = check;
  with_page.html = "check.html";
  EXPECT_TRUE(ChooseProcesses(with_page, Baseline(5, 6), nullptr).has_value());
  // A baseline of one process: this process (its own sequential rule).
  EXPECT_FALSE(ChooseProcesses(check, Baseline(1, 30), nullptr).has_value());
  EXPECT_FALSE(ChooseProcesses(check, std::nullopt, nullptr).has_value());
  // Fixed runs: as many processes as the baseline's, the runs spread.
  std::optional<ProcessChoice> fixed = ChooseProcesses(check, Baseline(5, 6), nullptr);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(fixed->plan.processes, 5);
  EXPECT_EQ(Flags(fixed), std::vector<std::string>{"--runs=2"});
  // --runs=auto: processes in turn, the baseline's runs each, the gate looking.
  check.runs_auto = true;
  const Report base = Baseline(5, 6);
  SequentialGate gate(GateOptions{}, base);
  std::optional<ProcessChoice> turn = ChooseProcesses(check, base, &gate);
  ASSERT_TRUE(turn.has_value());
  EXPECT_TRUE(turn->sequential);
  EXPECT_EQ(turn->plan.processes, kMostCheckProcesses);
  EXPECT_EQ(Flags(turn), std::vector<std::string>{"--runs=6"});
  EXPECT_EQ(turn->plan.drop, std::vector<std::string>{"max_time"});
  ASSERT_TRUE(static_cast<bool>(turn->plan.look));
  // No look before the third process (the budget, 60 s, is far).
  const ReportMerger nothing_yet;
  EXPECT_FALSE(turn->plan.look(nothing_yet, 1).has_value());
  EXPECT_FALSE(turn->plan.look(nothing_yet, 2).has_value());
  EXPECT_TRUE(IsProcessLook(3) && IsProcessLook(20) && !IsProcessLook(5) && !IsProcessLook(24));
}

TEST(ProcessPlanTest, WorkersGetThePlansFlags) {
  WorkerPlan plan;
  plan.flags = {"--runs=6"};
  plan.drop = {"max_time"};
  const std::vector<std::string> args = WorkerArguments(
      {"profile_graph", "check", "--runs=auto", "--max_time=30", "--baseline=b.json", "--output=o.json", "--",
       "--not-a-flag"},
      "/tmp/w1", plan);
  const std::vector<std::string> expected = {"profile_graph", "check", "--baseline=b.json", "--runs=6",
                                             "--worker_dir=/tmp/w1", "--noprogress", "--", "--not-a-flag"};
  EXPECT_EQ(args, expected);
  // Without a plan: the flags as given, less the parent's own.
  const std::vector<std::string> plain = WorkerArguments({"profile_graph", "--runs=4", "--workers=2"}, "/tmp/w2");
  EXPECT_EQ(plain, (std::vector<std::string>{"profile_graph", "--runs=4", "--worker_dir=/tmp/w2", "--noprogress"}));
}

}  // namespace
}  // namespace graphprof::cli
