// The regression gate and what feeds it, driven as a hostile user would
// (issue 38): reports validated where they are read, `check` comparing only
// what is comparable and saying INCONCLUSIVE when it cannot tell, check's
// outputs, merge never crashing, and the flags no command may ignore. The
// hostile reports are edits of reports profiled here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::Exists;
using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;
using ::graphprof::testing::Write;

std::string Dir() { return TempDir("gate_test"); }

// Writes `contents` to `path` (a full path), which must then hold them.
void WriteAt(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
  ASSERT_EQ(Slurp(path), contents) << path;
}

// A report of the zoo mlp, profiled once per test binary.
const std::string& Base() {
  static const std::string* path = [] {
    auto* p = new std::string(Dir() + "/base.json");
    const Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--format=json", "--output=" + *p});
    EXPECT_EQ(r.code, 0) << r.err;
    return p;
  }();
  return *path;
}

// `base` edited by `edit`, as `name` (its own report id).
std::string Edited(const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                   const std::string& base = Base()) {
  nlohmann::json j = nlohmann::json::parse(Slurp(base));
  edit(j);
  j["report_id"] = name;
  return Write(name, j.dump());
}

void EachNode(nlohmann::json& j, const std::function<void(nlohmann::json&)>& f) {
  for (nlohmann::json& node : j["nodes"]) f(node);
}

// Every command that reads a report refuses `bad` in one line naming it,
// exit 1, and writes nothing.
void ExpectRefusedEverywhere(const std::string& bad, const std::string& why) {
  SCOPED_TRACE(bad);
  const std::string out = Dir() + "/refused-output.json";
  const std::string name = bad.substr(bad.rfind('/') + 1);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"merge", bad, Base(), "--format=json", "--output=" + out},
        std::vector<std::string>{"merge", Base(), bad, "--format=json", "--output=" + out},
        std::vector<std::string>{"check", "--baseline=" + bad, Base(), "--fail_on=node", "--output=" + out},
        std::vector<std::string>{"check", "--baseline=" + Base(), bad, "--output=" + out},
        std::vector<std::string>{"--zoo=mlp", "--runs=2", "--compare=" + bad, "--output=" + out}}) {
    const Result r = RunTool(args);
    ExpectOneLineError(r, 1, why);
    EXPECT_TRUE(absl::StrContains(r.err, name + ": ")) << "names the file: " << r.err;
    EXPECT_FALSE(Exists(out)) << "nothing written";
  }
}

TEST(GateTest, ReportsThatGraphprofCouldNotHaveWrittenAreRefusedWhereTheyAreRead) {
  ExpectRefusedEverywhere(Edited("runs0.json",
                                 [](nlohmann::json& j) {
                                   j["runs"] = 0;
                                   j["run_sources"] = nlohmann::json::array();  // no process ran any
                                   j["run_ns"] = j["run_start_ns"] = nlohmann::json::array();
                                   j["metrics"][0]["run_total"] = nlohmann::json::array();
                                   EachNode(j, [](nlohmann::json& n) {
                                     n["calls"] = n["total_ns"] = nlohmann::json::array();
                                   });
                                 }),
                          "report has 0 timed runs");
  ExpectRefusedEverywhere(Edited("nonodes.json", [](nlohmann::json& j) { j["nodes"] = nlohmann::json::array(); }),
                          "report has no nodes");
  ExpectRefusedEverywhere(Edited("zero.json",
                                 [](nlohmann::json& j) {
                                   for (auto& v : j["run_ns"]) v = 0;
                                   j["metrics"][0]["run_total"] = j["run_ns"];
                                   EachNode(j, [](nlohmann::json& n) {
                                     for (auto& v : n["total_ns"]) v = 0;
                                   });
                                 }),
                          "run times are all 0");
  ExpectRefusedEverywhere(Edited("negative.json",
                                 [](nlohmann::json& j) {
                                   EachNode(j, [](nlohmann::json& n) {
                                     for (auto& v : n["total_ns"]) v = -v.get<int64_t>() - 1;
                                   });
                                 }),
                          "report node 0's 'time' is negative");
  ExpectRefusedEverywhere(Edited("short.json", [](nlohmann::json& j) { j["nodes"][1]["total_ns"].erase(0); }),
                          "report node 1 has 5 values of 'time' for 6 runs");
  // Nodes taking ten times their run: the run totals were not measured with them.
  ExpectRefusedEverywhere(Edited("coverage.json",
                                 [](nlohmann::json& j) {
                                   for (auto& v : j["run_ns"]) v = v.get<int64_t>() / 10;
                                   j["metrics"][0]["run_total"] = j["run_ns"];
                                 }),
                          "report's top-level nodes take");
  ExpectRefusedEverywhere(Edited("depth.json", [](nlohmann::json& j) { j["nodes"][0]["depth"] = 1000000000; }),
                          "report node 0 has depth 1000000000");
  ExpectRefusedEverywhere(Edited("ceiling.json", [](nlohmann::json& j) { j["peak_gflops"] = 1e300; }),
                          "report's peak_gflops is 1e+300");
  // A key twice: JSON readers differ on which value wins.
  std::string twice = Slurp(Base());
  twice.replace(twice.find("\"model\":"), 8, "\"model\": \"other\", \"model\":");
  ExpectRefusedEverywhere(Write("twice.json", twice), "key 'model' appears twice in one object");
  // Other graphprof outputs, named as what they are.
  const std::string ab = Dir() + "/ab.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--runs=2", "--ab=none", "--format=json", "--output=" + ab}).code, 0);
  ExpectRefusedEverywhere(ab, "an A/B output (two reports, 'a' and 'b', and their diff), not one report");
}

TEST(GateTest, MergingAMergeSaysMergedOnceAndItsOutputReadsBack) {
  const std::string other = Edited("other.json", [](nlohmann::json&) {});
  const std::string merged = Dir() + "/merged.json";
  ASSERT_EQ(RunTool({"merge", Base(), other, "--format=json", "--output=" + merged}).code, 0);
  const std::string third = Edited("third.json", [](nlohmann::json&) {});
  const Result again = RunTool({"merge", merged, third});
  ASSERT_EQ(again.code, 0) << again.err;
  size_t count = 0;
  for (size_t at = again.out.find("merged from"); at != std::string::npos; at = again.out.find("merged from", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u) << again.out;
  EXPECT_TRUE(absl::StrContains(again.out, "merged from 3 reports")) << again.out;
  // The merged report passes the reader that refuses what graphprof could not write.
  const Result reread = RunTool({"check", "--baseline=" + merged, merged});
  EXPECT_NE(reread.code, 1) << reread.err;
}

TEST(GateTest, CheckComparesOnlyWhatIsComparable) {
  // Another model: refused, whether the current side is a file or profiled now.
  const std::string gcn = Dir() + "/gcn.json";
  ASSERT_EQ(RunTool({"--zoo=gcn", "--warmup=1", "--runs=6", "--format=json", "--output=" + gcn}).code, 0);
  ExpectOneLineError(RunTool({"check", "--baseline=" + gcn, Base()}), 1, "check: the current report is a report of another graph");
  ExpectOneLineError(RunTool({"check", "--baseline=" + gcn, "--zoo=mlp", "--warmup=1", "--runs=6"}), 1,
                     "check: the current report is a report of another graph");
  // ... unless the change is on purpose, which the verdict then says.
  const Result allowed = RunTool({"check", "--baseline=" + gcn, Base(), "--allow_graph_change", "--allow_input_change"});
  EXPECT_TRUE(allowed.code == 0 || allowed.code == 4 || allowed.code == 5) << allowed.code << allowed.err;
  EXPECT_TRUE(absl::StrContains(allowed.out, "accepted   another graph (--allow_graph_change)")) << allowed.out;
  // Training steps against forward runs: never.
  const std::string backward = Dir() + "/backward.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--backward", "--format=json", "--output=" + backward}).code, 0);
  ExpectOneLineError(RunTool({"check", "--baseline=" + backward, Base()}), 1,
                     "the baseline holds training steps (--backward), the current report forward runs only");
  ExpectOneLineError(RunTool({"check", "--baseline=" + backward, Base(), "--allow_graph_change"}), 1,
                     "the baseline holds training steps");
  // Other inputs.
  const std::string small = Dir() + "/small.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--input=4x784", "--warmup=1", "--runs=6", "--format=json", "--output=" + small}).code, 0);
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), small}), 1,
                     "the baseline ran on inputs f32[32,784], the current report on f32[4,784]");
  const Result inputs = RunTool({"check", "--baseline=" + Base(), small, "--allow_input_change"});
  EXPECT_NE(inputs.code, 1) << inputs.err;
  EXPECT_TRUE(absl::StrContains(inputs.out, "accepted   other inputs (--allow_input_change)")) << inputs.out;
  // Other passes.
  const std::string cse = Dir() + "/cse.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--passes=cse", "--warmup=1", "--runs=6", "--format=json", "--output=" + cse}).code, 0);
  const Result passes = RunTool({"check", "--baseline=" + Base(), cse});
  EXPECT_EQ(passes.code, 1) << passes.out;
  EXPECT_TRUE(absl::StrContains(passes.err, "after passes ''") || absl::StrContains(passes.err, "another graph"))
      << passes.err;
}

TEST(GateTest, TooFewRunsIsAnErrorThatSaysHowManyAreNeeded) {
  const std::string one = Dir() + "/one.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=1", "--format=json", "--output=" + one}).code, 0);
  const Result r = RunTool({"check", "--baseline=" + one, Base()});
  ExpectOneLineError(r, 1, "too few timed runs to test anything at alpha 0.05: the baseline has 1, the current report 6");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("profile with ([0-9]+) or more runs on each side"))) << r.err;
  const int needed = std::stoi(m[1]);
  ASSERT_GT(needed, 1);
  // That many a side is enough to test, one fewer is not.
  for (int runs : {needed - 1, needed}) {
    const std::string a = Dir() + "/a" + std::to_string(runs) + ".json";
    const std::string b = Dir() + "/b" + std::to_string(runs) + ".json";
    for (const std::string& path : {a, b}) {
      ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=" + std::to_string(runs), "--format=json", "--output=" + path}).code, 0);
    }
    const Result gate = RunTool({"check", "--baseline=" + a, b});
    if (runs < needed) {
      EXPECT_EQ(gate.code, 1) << gate.err;
    } else {
      EXPECT_TRUE(gate.code == 0 || gate.code == 4) << gate.code << " " << gate.err << gate.out;
    }
  }
}

TEST(GateTest, NothingTestableIsInconclusiveNotPassed) {
  // Both sides' rows below the timer's floor (a few timer costs): no test.
  auto untimeable = [](nlohmann::json& j) { j["timer_overhead_ns"] = 1e8; };
  const std::string a = Edited("untimeable-a.json", untimeable);
  const std::string b = Edited("untimeable-b.json", untimeable);
  const Result text = RunTool({"check", "--baseline=" + a, b, "--fail_on=total,module,node"});
  EXPECT_EQ(text.code, 5) << text.out << text.err;
  EXPECT_TRUE(absl::StrContains(text.out, "INCONCLUSIVE: none of the")) << text.out;
  EXPECT_FALSE(absl::StrContains(text.out, "PASSED")) << text.out;
  const Result json = RunTool({"check", "--baseline=" + a, b, "--format=json"});
  EXPECT_EQ(json.code, 5) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["status"], "inconclusive");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["rows_tested"], 0);
  // The same reports with real timer costs: tested, passed.
  const Result passed = RunTool({"check", "--baseline=" + Base(), Base(), "--format=json"});
  EXPECT_EQ(passed.code, 0) << passed.err;
  EXPECT_EQ(nlohmann::json::parse(passed.out)["status"], "passed");
  EXPECT_EQ(nlohmann::json::parse(passed.out)["rows_tested"], 1);
}

TEST(GateTest, CheckWritesItsOutputsOrRefusesTheFlag) {
  const std::string out = Dir() + "/check.json";
  const std::string html = Dir() + "/check.html";
  const Result r = RunTool({"check", "--baseline=" + Base(), Base(), "--format=json", "--output=" + out, "--html=" + html});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "") << "the verdict went to --output";
  EXPECT_EQ(nlohmann::json::parse(Slurp(out))["status"], "passed");
  EXPECT_TRUE(absl::StrContains(Slurp(html), "<html")) << "the HTML report with the diff";
  // Profiling now: the same.
  const std::string live = Dir() + "/live.txt";
  const Result now = RunTool({"check", "--baseline=" + Base(), "--zoo=mlp", "--warmup=1", "--runs=6", "--output=" + live});
  EXPECT_TRUE(now.code == 0 || now.code == 4) << now.err;
  EXPECT_TRUE(absl::StrContains(Slurp(live), "graphprof check:")) << Slurp(live);
  // Flags check would ignore.
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), Base(), "--format=csv"}), 2, "check writes --format=table or json");
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), Base(), "--trace=" + Dir() + "/t.json"}), 2,
                     "check of a saved report: --trace applies to profiling");
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), Base(), "--runs=30"}), 2,
                     "check of a saved report: --runs applies to profiling");
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), Base(), "--top=3"}), 2, "check: --top shapes a report's tables");
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), "--zoo=mlp", "--group_by=kind"}), 2,
                     "check: --group_by shapes a report's tables");
  ExpectOneLineError(RunTool({"check", "--baseline=" + Base(), Base(), "--output=" + Base()}), 2,
                     "would overwrite the --baseline file");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--fail_on=node"}), 2, "--fail_on, --allow_graph_change and --allow_input_change belong to `profile_graph check`");
  ExpectOneLineError(RunTool({"merge", Base(), "--alpha=0.1"}), 2, "merge combines saved reports: --alpha applies to comparisons");
  // Profiling: flags with nothing to act on.
  ExpectOneLineError(RunTool({"--zoo=mlp", "--alpha=0.1"}), 2, "--alpha and --diff_all apply to comparisons");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--diff_all"}), 2, "--alpha and --diff_all apply to comparisons");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--min_effect=0.1"}), 2, "--min_effect applies to comparisons");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--noverify", "--rtol=0.1"}), 2, "--rtol and --atol apply to --verify");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--nvtx_warmup=2"}), 2, "--nvtx_iters must be at least 1 (got 0): --nvtx_warmup needs it");
}

TEST(GateTest, UsageErrorsOfTheSmallerKind) {
  ExpectOneLineError(RunTool({"--zoo=mlp", "--output="}), 2, "--output needs a value");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--html="}), 2, "--html needs a value");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--ab=cse,,cse"}), 2, "an empty pass name in 'cse,,cse'");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--runs=auto", "--min_effect=0"}), 2, "0 is never reached");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--remeasure_peaks"}), 2, "--remeasure_peaks applies with --roofline");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--roofline", "--remeasure_peaks", "--peaks=90,12"}), 2,
                     "either --peaks (the ceilings given) or --remeasure_peaks");
  for (const char* peaks : {"--peaks=1e308,12", "--peaks=90,1e-300", "--peaks=0,1", "--peaks=nan,1"}) {
    ExpectOneLineError(RunTool({"--zoo=mlp", peaks}), 2, "expected GFLOPS,GBPS, each from 0.001 to 1e+08");
  }
  // Given ceilings have no GEMM or conv rate: none is printed as -1.
  const Result given = RunTool({"--zoo=mlp", "--warmup=1", "--runs=2", "--peaks=90,12"});
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_TRUE(absl::StrContains(given.out, "roofline      peak 90.0 GFLOP/s (FMA), 12.0 GB/s (triad); 1 threads")) << given.out;
  EXPECT_FALSE(absl::StrContains(given.out, "-1.0")) << given.out;
  // --worker_dir is --workers' own: never with it, never over a report.
  ExpectOneLineError(RunTool({"--zoo=mlp", "--workers=2", "--worker_dir=" + Dir()}), 2, "--worker_dir is --workers' own");
  const std::string worker = Dir() + "/worker";
  mkdir(worker.c_str(), 0700);
  WriteAt(worker + "/report.json", "{}");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--runs=2", "--worker_dir=" + worker}), 1,
                     "report.json exists: a worker never replaces a report");
  EXPECT_EQ(Slurp(worker + "/report.json"), "{}");
}

TEST(GateTest, RunsAutoSaysWhatItChecked) {
  const Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=auto", "--min_effect=0.5", "--max_time=20"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "were each narrower than 50% of their median") ||
              absl::StrContains(r.out, "the time budget"))
      << r.out;
  // Workers each stop on their own: one note says how each did, none
  // speaks for the merged runs.
  const std::string out = Dir() + "/auto-workers.json";
  const Result workers = RunTool({"--zoo=mlp", "--warmup=1", "--runs=auto", "--max_time=2", "--workers=2",
                                  "--format=json", "--output=" + out});
  ASSERT_EQ(workers.code, 0) << workers.err;
  int each = 0, single = 0;
  const nlohmann::json notes = nlohmann::json::parse(Slurp(out))["notes"];
  for (const nlohmann::json& note : notes) {
    const std::string text = note.get<std::string>();
    if (absl::StartsWith(text, "--runs=auto in each worker: worker 1:") && absl::StrContains(text, "; worker 2:")) ++each;
    if (absl::StartsWith(text, "--runs=auto: ")) ++single;
  }
  EXPECT_EQ(each, 1) << notes.dump();
  EXPECT_EQ(single, 0);
}

// check --runs=auto in one process is sequential (tools/sequential_gate.h):
// a slowdown far beyond the noise (a 20 ms delay after fc2 in a model of
// ~0.1 ms) is called at the first look, at that look's level; what it did is
// in the JSON (looks, processes, stop_reason, seconds, alpha) and the text's
// `took` line. A check of a saved report takes one look at the full alpha.
TEST(GateTest, SequentialCheckStopsAtTheFirstVerdictAndSaysWhatItDid) {
  const std::string one = Dir() + "/one-process.json";
  ASSERT_EQ(RunTool({"--zoo=mlp", "--warmup=1", "--runs=6", "--workers=0", "--format=json", "--output=" + one}).code, 0);
  const std::string out = Dir() + "/sequential.json";
  const Result r = RunTool({"check", "--baseline=" + one, "--zoo=mlp", "--warmup=1", "--runs=auto",
                            "--max_time=30", "--passes=delay:fc2:20000", "--allow_graph_change", "--format=json",
                            "--output=" + out});
  ASSERT_EQ(r.code, 4) << r.err;  // FAILED: slower
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["looks"], 1) << j["stop_reason"];
  EXPECT_EQ(j["processes"], 1);
  EXPECT_TRUE(absl::StartsWith(j["stop_reason"].get<std::string>(), "every tested row --fail_on selects had a verdict"))
      << j["stop_reason"];
  EXPECT_GT(j["seconds"].get<double>(), 0);
  EXPECT_NEAR(j["alpha"].get<double>(), 0.025, 1e-9);  // alpha / 2 at look 1
  EXPECT_EQ(j["diff"]["total"]["verdict"], "slower");
  const Result text = RunTool({"check", "--baseline=" + one, "--zoo=mlp", "--warmup=1", "--runs=auto",
                               "--max_time=30", "--passes=delay:fc2:20000", "--allow_graph_change"});
  EXPECT_EQ(text.code, 4) << text.err;
  EXPECT_TRUE(std::regex_search(text.out, std::regex("\n  took       1 look, 1 process, [0-9.]+ s: every tested row")))
      << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "  level      alpha 0.025 at look 1")) << text.out;
  // Against the default baseline (3 processes of 2 runs: process_plan.h)
  // the current side is timed in processes, the first look after the 3rd.
  const std::string spread = Dir() + "/sequential-processes.json";
  const Result processes = RunTool({"check", "--baseline=" + Base(), "--zoo=mlp", "--warmup=1", "--runs=auto",
                                    "--max_time=30", "--passes=delay:fc2:20000", "--allow_graph_change",
                                    "--format=json", "--output=" + spread});
  ASSERT_EQ(processes.code, 4) << processes.err;
  const nlohmann::json p = nlohmann::json::parse(Slurp(spread));
  // The first look is after 3 processes; the speed's row may hold it open a
  // look or two more (the next looks: after 4 and 6).
  const int looks = p["looks"].get<int>();
  EXPECT_GE(looks, 1);
  EXPECT_LE(looks, 3) << p["stop_reason"];
  EXPECT_EQ(p["processes"], looks == 1 ? 3 : looks == 2 ? 4 : 6) << p["stop_reason"];
  EXPECT_EQ(p["diff"]["base_processes"], 3);
  EXPECT_EQ(p["diff"]["current_processes"], p["processes"]);
  EXPECT_EQ(p["diff"]["total"]["verdict"], "slower");
  EXPECT_NEAR(p["alpha"].get<double>(), 0.05 / (looks * (looks + 1.0)), 1e-9);  // look k's share
  // Every row decided, or only the machine's speed open and out of reach.
  EXPECT_TRUE(absl::StartsWith(p["stop_reason"].get<std::string>(), "every tested row --fail_on selects had a verdict") ||
              absl::StartsWith(p["stop_reason"].get<std::string>(), "more processes could not decide the machine's speed"))
      << p["stop_reason"];
  // A saved current report: one look, the full alpha.
  const std::string saved = Dir() + "/saved-check.json";
  const Result files = RunTool({"check", "--baseline=" + Base(), Base(), "--format=json", "--output=" + saved});
  ASSERT_EQ(files.code, 0) << files.err;
  const nlohmann::json f = nlohmann::json::parse(Slurp(saved));
  EXPECT_EQ(f["looks"], 1);
  EXPECT_EQ(f["stop_reason"], "a saved current report");
  EXPECT_NEAR(f["alpha"].get<double>(), 0.05, 1e-12);
}

// A roofline cache the user had is replaced, never written through: a
// symlink there stays pointing at an untouched file; absurd cached ceilings
// are measured again.
TEST(GateTest, ThePeaksCacheIsReplacedNotWrittenThrough) {
  const std::string home = Dir() + "/cache-home";
  const std::string cache = home + "/graphprof/peaks";
  setenv("XDG_CACHE_HOME", home.c_str(), 1);
  // The first measurement makes the cache file; find its name.
  const Result first = RunTool({"--zoo=mlp", "--warmup=1", "--runs=2", "--roofline"});
  ASSERT_EQ(first.code, 0) << first.err;
  std::string file;
  if (DIR* dir = opendir(cache.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] != '.') file = entry->d_name;
    }
    closedir(dir);
  }
  if (file.empty()) {
    unsetenv("XDG_CACHE_HOME");
    GTEST_SKIP() << "the ceilings were not steady enough to be cached on this machine";
  }
  const std::string path = cache + "/" + file;
  // An absurd cached value is not used: measured again.
  WriteAt(path, "1e300 12 -1 -1 2026-01-01 0\n");
  const Result absurd = RunTool({"--zoo=mlp", "--warmup=1", "--runs=2", "--roofline"});
  ASSERT_EQ(absurd.code, 0) << absurd.err;
  EXPECT_FALSE(absl::StrContains(absurd.out, "cached (measured 2026-01-01)")) << absurd.out;
  // A symlink at the cache path is replaced, its target untouched.
  const std::string victim = Dir() + "/victim.txt";
  WriteAt(victim, "the user's file\n");
  unlink(path.c_str());
  ASSERT_EQ(symlink(victim.c_str(), path.c_str()), 0);
  const Result again = RunTool({"--zoo=mlp", "--warmup=1", "--runs=2", "--roofline", "--remeasure_peaks"});
  unsetenv("XDG_CACHE_HOME");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Slurp(victim), "the user's file\n");
  struct stat st;
  if (absl::StrContains(again.out, "(FMA)") && !absl::StrContains(again.out, "not cached")) {
    ASSERT_EQ(lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << "the link was replaced by the new cache file";
  }
}

TEST(GateTest, AbOfTrainingStepsVerifiesBothSidesGradients) {
  const std::string out = Dir() + "/ab-backward.json";
  for (const char* passes : {"--ab=none", "--ab=cse"}) {
    const Result r = RunTool({"--zoo=mlp", "--warmup=1", "--runs=4", passes, "--backward", "--format=json", "--output=" + out});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(Slurp(out));
    for (const char* side : {"a", "b"}) {
      ASSERT_TRUE(j[side]["gradient_verification"].is_object()) << passes << " " << side;
      EXPECT_EQ(j[side]["gradient_verification"]["identical"], true) << passes << " " << side;
    }
  }
  const Result text = RunTool({"--zoo=mlp", "--warmup=1", "--runs=4", "--ab=none", "--backward"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(absl::StrContains(text.out, "gradients")) << text.out;
}

}  // namespace
}  // namespace graphprof
