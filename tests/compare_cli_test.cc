// profile_graph's comparisons, driven as a user drives them: interleaved
// A/B and the A/A (--ab=none), verdicts in every rendering, worker
// processes (--workers), the regression gate (profile_graph check), and
// what a report read from a file may not do to a terminal.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Quick;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;
using ::graphprof::testing::Write;

std::string Dir() { return TempDir("compare_cli_test"); }

// --ab=none: the module against itself, A's and B's timed runs interleaved
// in one process; the diff carries verdicts, the order and a drift check.
TEST(CompareCliTest, AbNoneIsAnInterleavedAaInOneProcess) {
  const std::string out = Dir() + "/aa.json";
  Result r = RunTool({"--zoo=mlp", "--warmup=2", "--runs=8", "--ab=none", "--format=json", "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["order"], "ABBA");
  EXPECT_EQ(j["passes"], "none");
  for (const char* side : {"a", "b"}) {
    EXPECT_TRUE(j["drift"][side]["verdict"].is_string()) << side;
    EXPECT_EQ(j[side]["verified"], true) << side << ": no pass, so identical to forward";
    EXPECT_EQ(j[side]["process"], j["a"]["process"]) << "one process";
  }
  const nlohmann::json& diff = j["diff"];
  // Each side on 3 copies of the module (--ab_copies' default), compared
  // unpaired: the copies are the unit.
  EXPECT_EQ(diff["noise_model"], "processes");
  EXPECT_EQ(diff["base_processes"], 3);
  EXPECT_FALSE(diff.contains("noise_note")) << "both sides in one process: within-process noise is all there is";
  EXPECT_EQ(diff["same"].get<int>(), static_cast<int>(diff["nodes"].size())) << "every node matched itself";
  int counted = 0;
  for (const auto& [verdict, n] : diff["verdict_counts"]["nodes"].items()) counted += n.get<int>();
  EXPECT_EQ(counted, static_cast<int>(diff["nodes"].size()));
  for (const nlohmann::json& node : diff["nodes"]) {
    for (const char* key : {"verdict", "change", "change_low", "change_high", "p", "q"}) {
      EXPECT_TRUE(node.contains(key)) << key;
    }
  }
  // The text diff shows intervals and verdicts and the noise model.
  Result text = RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--ab=none"});
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* want : {"verdicts   nodes:", "noise      processes (or an A/B's copies) are the unit", "change (median) [95% interval] verdict",
                           "timed runs interleaved with the other side's in ABBA blocks", "drift (second half"}) {
    EXPECT_TRUE(absl::StrContains(text.out, want)) << want << "\n" << text.out;
  }
  // One copy a side: the runs are the unit.
  Result one = RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--ab=none", "--ab_copies=1"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_TRUE(absl::StrContains(one.out, "noise      runs are the unit")) << one.out;
  ExpectOneLineError(RunTool({"--zoo=mlp", "--ab=none", "--ab_copies=0"}), 2, "--ab_copies must be 1 to 16");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--ab_copies=2"}), 2, "--ab_copies applies to --ab");
  // CSV: the statistics columns.
  Result csv = RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--ab=none", "--format=csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(absl::StrContains(csv.out.substr(0, csv.out.find('\n')), ",verdict,change,change_low,change_high,p,q,"))
      << csv.out.substr(0, 300);
}

TEST(CompareCliTest, EmptyAndBadValuesAreUsageErrors) {
  ExpectOneLineError(RunTool({"--ab="}), 2, "--ab needs a value");
  ExpectOneLineError(RunTool({"--passes="}), 2, "--passes needs a value");
  ExpectOneLineError(RunTool({"--compare="}), 2, "--compare needs a value");
  ExpectOneLineError(RunTool({"--ab=,,"}), 2, "an empty pass name in ',,'");
  ExpectOneLineError(RunTool({"--min_effect=1.5"}), 2, "--min_effect must be at least 0 and below 1");
  ExpectOneLineError(RunTool({"--alpha=0"}), 2, "--alpha must be above 0 and below 1");
  ExpectOneLineError(RunTool({"--workers=-1"}), 2, "--workers must be 0");
  ExpectOneLineError(RunTool({"--workers=2", "--trace=" + Dir() + "/t.json"}), 2, "--trace records one process");
}

// --workers: K fresh processes, merged; their processes are the report's
// run sources, and a diff of two such reports treats processes as the unit.
TEST(CompareCliTest, WorkersMergeFreshProcesses) {
  const std::string out = Dir() + "/workers.json";
  Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=3", "--workers=2", "--format=json", "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["runs"], 6);
  ASSERT_EQ(j["run_sources"].size(), 2u);
  EXPECT_NE(j["run_sources"][0]["process"], j["run_sources"][1]["process"]) << "two processes";
  EXPECT_EQ(j["verified"], true);
  bool noted = false;
  for (const nlohmann::json& note : j["notes"]) noted = noted || absl::StrContains(note.get<std::string>(), "2 worker");
  EXPECT_TRUE(noted) << j["notes"];

  // A/B in each worker, each side on 3 copies (--ab_copies' default): the
  // same processes on both sides, paired worker by worker and copy by copy.
  const std::string ab = Dir() + "/workers_ab.json";
  Result rab = RunTool({"--zoo=mlp", "--warmup=1", "--runs=4", "--workers=2", "--ab=none", "--format=json",
                        "--output=" + ab});
  ASSERT_EQ(rab.code, 0) << rab.err;
  const nlohmann::json jab = nlohmann::json::parse(Slurp(ab));
  EXPECT_EQ(jab["diff"]["noise_model"], "paired processes");
  EXPECT_EQ(jab["diff"]["base_processes"], 6);
  EXPECT_EQ(jab["a"]["runs"], 8);

  // --compare of two --workers reports: processes are the unit, no note.
  const std::string other = Dir() + "/workers2.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=3", "--workers=2", "--format=json", "--output=" + other}).code, 0);
  Result diff = RunTool({"--zoo=mlp", "--warmup=1", "--runs=3", "--workers=2", "--compare=" + out, "--format=json"});
  ASSERT_EQ(diff.code, 0) << diff.err;
  const nlohmann::json jd = nlohmann::json::parse(diff.out);
  EXPECT_EQ(jd["noise_model"], "processes");
  EXPECT_FALSE(jd.contains("noise_note"));
  // check without --workers follows a baseline of 2 processes: the current
  // side in 2 processes too.
  Result follows = RunTool({"check", "--baseline=" + out, "--zoo=mlp", "--warmup=1", "--runs=3", "--format=json"});
  ASSERT_TRUE(follows.code == 0 || follows.code == 4 || follows.code == 5) << follows.err;
  const nlohmann::json jf = nlohmann::json::parse(follows.out);
  EXPECT_EQ(jf["diff"]["current_processes"], 2) << follows.out.substr(0, 2000);
  EXPECT_EQ(jf["diff"]["noise_model"], "processes");
  // One process a side: compared at equal speed, and the note says what is
  // not tested.
  Result single = RunTool(Quick({"--zoo=mlp", "--compare=" + out}));
  ASSERT_EQ(single.code, 0) << single.err;
  EXPECT_TRUE(absl::StrContains(single.out, "one process a side: rows are compared at equal machine speed"))
      << single.out;
  EXPECT_TRUE(absl::StrContains(single.out, "  speed      ")) << single.out;
}

// A report saved as JSON is what a later check reads from another process:
// by default it is timed in five processes, the runs spread over them
// (tools/process_plan.h); --workers=0 keeps it in one, and so do runs too
// few to spread. check --runs=auto against it times the current side in
// processes one after another, looking after the 3rd, and says so.
TEST(CompareCliTest, ASavedReportIsTimedInSeveralProcessesByDefault) {
  const std::string out = Dir() + "/spread.json";
  Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=10", "--format=json", "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["runs"], 10);
  ASSERT_EQ(j["run_sources"].size(), 5u);
  for (const nlohmann::json& source : j["run_sources"]) EXPECT_EQ(source["runs"], 2);
  bool noted = false;
  for (const nlohmann::json& note : j["notes"]) {
    noted = noted || absl::StrContains(note.get<std::string>(), "a report saved as JSON is timed in several processes");
  }
  EXPECT_TRUE(noted) << j["notes"];
  // 11 runs: 3 each, at least the runs asked.
  const std::string eleven = Dir() + "/eleven.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=11", "--format=json", "--output=" + eleven}).code, 0);
  EXPECT_EQ(nlohmann::json::parse(Slurp(eleven))["runs"], 15);
  // In this process: --workers=0, too few runs, or JSON on stdout.
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--runs=10", "--workers=0", "--output=" + Dir() + "/one.json"},
        std::vector<std::string>{"--runs=3", "--output=" + Dir() + "/three.json"}}) {
    std::vector<std::string> args = {"--zoo=mlp", "--warmup=1", "--format=json"};
    args.insert(args.end(), flags.begin(), flags.end());
    ASSERT_EQ(RunTool(args).code, 0) << flags[1];
    const nlohmann::json one = nlohmann::json::parse(Slurp(absl::StrCat(flags.back().substr(9))));
    EXPECT_LE(one.value("run_sources", nlohmann::json::array()).size(), 1u) << flags[1];
  }
  Result on_stdout = RunTool({"--zoo=mlp", "--warmup=1", "--runs=10", "--format=json"});
  ASSERT_EQ(on_stdout.code, 0) << on_stdout.err;
  EXPECT_LE(nlohmann::json::parse(on_stdout.out).value("run_sources", nlohmann::json::array()).size(), 1u);

  Result check = RunTool({"check", "--baseline=" + out, "--zoo=mlp", "--warmup=1", "--runs=auto", "--format=json"});
  ASSERT_TRUE(check.code == 0 || check.code == 4 || check.code == 5) << check.err;
  const nlohmann::json c = nlohmann::json::parse(check.out);
  EXPECT_GE(c["processes"].get<int>(), 3) << check.out.substr(0, 600);
  EXPECT_EQ(c["diff"]["current_processes"], c["processes"]);
  EXPECT_EQ(c["diff"]["noise_model"], "processes");
  EXPECT_GE(c["looks"].get<int>(), 1);
  EXPECT_FALSE(c["stop_reason"].get<std::string>().empty());
  EXPECT_LE(c["alpha"].get<double>(), 0.05 / 2 + 1e-12) << "a look's share of alpha";
}

// A copy of a saved report with one node `factor` times slower in every run.
std::string Slowed(const std::string& path, const std::string& name, double factor, int* slowed_id) {
  nlohmann::json j = nlohmann::json::parse(Slurp(path));
  // The heaviest top-level node's per-run time ("total_ns"; top-level nodes
  // have no blocks here, so it is their self time too), and the run totals.
  int best = -1;
  int64_t best_ns = -1;
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    const nlohmann::json& node = j["nodes"][i];
    if (node["depth"] != 0 || node["total_ns"].empty()) continue;
    if (node["total_ns"][0].get<int64_t>() > best_ns) {
      best_ns = node["total_ns"][0].get<int64_t>();
      best = static_cast<int>(i);
    }
  }
  EXPECT_GE(best, 0);
  *slowed_id = best;
  nlohmann::json& series = j["nodes"][best]["total_ns"];
  for (size_t r = 0; r < series.size(); ++r) {
    const int64_t extra = static_cast<int64_t>(series[r].get<int64_t>() * (factor - 1));
    series[r] = series[r].get<int64_t>() + extra;
    j["run_ns"][r] = j["run_ns"][r].get<int64_t>() + extra;
    j["metrics"][0]["run_total"][r] = j["metrics"][0]["run_total"][r].get<int64_t>() + extra;
  }
  return Write(name, j.dump());
}

TEST(CompareCliTest, CheckGatesOnSlowerRows) {
  const std::string base = Dir() + "/base.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=2", "--runs=12", "--format=json", "--output=" + base}).code, 0);
  // Against itself: nothing is slower.
  Result same = RunTool({"check", "--baseline=" + base, base});
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_TRUE(absl::StrContains(same.out, "PASSED")) << same.out;
  int slowed = -1;
  const std::string slow = Slowed(base, "slow.json", 3.0, &slowed);
  Result gate = RunTool({"check", "--baseline=" + base, slow, "--fail_on=total,node"});
  EXPECT_EQ(gate.code, 4) << gate.out << gate.err;
  EXPECT_TRUE(absl::StrContains(gate.out, "FAILED")) << gate.out;
  EXPECT_TRUE(absl::StrContains(gate.out, "node")) << gate.out;
  // JSON: the offenders and the diff.
  Result json = RunTool({"check", "--baseline=" + base, slow, "--fail_on=node", "--format=json"});
  EXPECT_EQ(json.code, 4) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["passed"], false);
  ASSERT_GE(j["offenders"].size(), 1u);
  EXPECT_EQ(j["offenders"][0]["what"], "node");
  EXPECT_GT(j["offenders"][0]["change"].get<double>(), 1.0);
  // Faster is not a regression.
  Result faster = RunTool({"check", "--baseline=" + slow, base, "--fail_on=total,module,node"});
  EXPECT_EQ(faster.code, 0) << faster.out << faster.err;
  // Profiling flags instead of a current report: the gate's exit is 0 or 4.
  Result live = RunTool({"check", "--baseline=" + base, "--zoo=mlp", "--warmup=1", "--runs=6"});
  EXPECT_TRUE(live.code == 0 || live.code == 4) << live.code << " " << live.err;
  EXPECT_TRUE(absl::StrContains(live.out, "graphprof check:")) << live.out;

  ExpectOneLineError(RunTool({"check", base}), 2, "check needs --baseline");
  ExpectOneLineError(RunTool({"check", "--baseline=" + base, base, "--fail_on=kinds"}), 2, "--fail_on: unknown 'kinds'");
  ExpectOneLineError(RunTool({"check", "--baseline=" + base, base, base}), 2, "at most one report file");
  ExpectOneLineError(RunTool({"check", "--baseline=" + base, base, "--zoo=mlp"}), 2,
                     "check of a saved report: --zoo applies to profiling");
  ExpectOneLineError(RunTool({"--baseline=" + base, "--zoo=mlp"}), 2, "--baseline belongs to `profile_graph check`");
}

// A report's strings are data: newlines and escape sequences in them never
// reach the terminal as such (no forged lines, no terminal-title changes).
TEST(CompareCliTest, StringsFromReportsAreEscapedOnTheTerminal) {
  const std::string base = Dir() + "/plain.json";
  // 6 runs: enough for check to test (it refuses fewer before printing anything).
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--format=json", "--output=" + base}).code, 0);
  nlohmann::json j = nlohmann::json::parse(Slurp(base));
  j["model"] = "evil\nprofile_graph: everything is fine\x1b]0;pwned\x07";
  j["notes"].push_back("note with \x1b[31mred\x1b[0m");
  j["nodes"][1]["name"] = "fc1\rforged";
  const std::string evil = Write("evil.json", j.dump());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--zoo=mlp", "--warmup=1", "--runs=2", "--compare=" + evil},
        std::vector<std::string>{"merge", evil, evil + ""}, std::vector<std::string>{"check", "--baseline=" + evil, base}}) {
    Result r = RunTool(args);
    const std::string all = r.out + r.err;
    EXPECT_EQ(all.find('\x1b'), std::string::npos) << args[0] << ": " << all.substr(0, 400);
    EXPECT_EQ(all.find('\x07'), std::string::npos) << args[0];
    EXPECT_EQ(all.find('\r'), std::string::npos) << args[0];
    EXPECT_FALSE(absl::StrContains(all, "\nprofile_graph: everything is fine")) << args[0] << ": " << all.substr(0, 400);
    if (args[0] != "merge") {
      EXPECT_TRUE(absl::StrContains(all, "evil\\nprofile_graph")) << args[0] << ": " << all.substr(0, 400);
    }
  }
}

// --runs=auto: timing stops when the intervals are narrow or the budget is
// spent, and the report says which, and which rows stayed wide.
TEST(CompareCliTest, RunsAutoStopsOnNarrowIntervalsOrTheBudget) {
  Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=auto", "--max_time=3", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["runs"].get<int>(), 10);
  EXPECT_LE(j["runs"].get<int>(), 500);
  bool noted = false;
  for (const nlohmann::json& note : j["notes"]) noted = noted || absl::StrContains(note.get<std::string>(), "--runs=auto: ");
  EXPECT_TRUE(noted) << j["notes"];
  Result ab = RunTool({"--zoo=mlp", "--warmup=1", "--runs=auto", "--max_time=3", "--ab=none", "--format=json"});
  ASSERT_EQ(ab.code, 0) << ab.err;
  const nlohmann::json jab = nlohmann::json::parse(ab.out);
  EXPECT_GE(jab["a"]["runs"].get<int>(), 10);
  EXPECT_EQ(jab["a"]["runs"], jab["b"]["runs"]) << "both sides stop together";
  // Reviewed: the budget was only looked at from the 10th run on, so slow
  // runs overran --max_time by up to 10 runs. resnet18 runs for over 10 ms.
  Result budget = RunTool({"--zoo=resnet18", "--warmup=0", "--noverify", "--runs=auto", "--max_time=0.01",
                           "--format=json"});
  ASSERT_EQ(budget.code, 0) << budget.err;
  const nlohmann::json jb = nlohmann::json::parse(budget.out);
  EXPECT_LT(jb["runs"].get<int>(), 10);
  bool before = false;
  for (const nlohmann::json& note : jb["notes"]) before = before || absl::StrContains(note.get<std::string>(), "before 10 runs");
  EXPECT_TRUE(before) << jb["notes"];
  ExpectOneLineError(RunTool({"--runs=many"}), 2, "--runs=many: expected a number of runs or auto");
  ExpectOneLineError(RunTool({"--max_time=5"}), 2, "--max_time applies with --runs=auto");
  ExpectOneLineError(RunTool({"--runs=auto", "--max_time=0"}), 2, "--max_time must be above 0");
}

}  // namespace
}  // namespace graphprof
