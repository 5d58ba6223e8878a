// The ranks of a tensor-parallel program that calls c10d functional
// collectives (issue 59; LibTorch 2.6 in the Debian 13 root, CMake only):
// tests/fixtures/ranks/make_tp_program.py exports it at build time
// (tests/ranks/tp.pt2, x.pt in the runfiles). Ranks started by hand and by
// torchrun (the launcher of the root's torch 2.6, with the libuv workaround
// of docs/distributed.md) write one merged report whose collective nodes are
// timed and split into transfer and waiting.
#include <gtest/gtest.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tests/rank_processes.h"
#include "tests/test_util.h"

namespace graphprof::testing {
namespace {

constexpr char kProgram[] = "--model=tests/ranks/tp.pt2";
constexpr char kInputs[] = "--inputs=tests/ranks/x.pt";

// The merged report's nodes of each collective kind, with their mean time.
void ExpectCollectivesTimed(const nlohmann::json& j, int world) {
  ASSERT_EQ(j["run_sources"].size(), static_cast<size_t>(world)) << j["run_sources"].dump();
  for (int r = 0; r < world; ++r) {
    EXPECT_EQ(j["run_sources"][r]["rank"], r);
    EXPECT_EQ(j["run_sources"][r]["world_size"], world);
  }
  int all_reduce = 0, wait = 0;
  for (const nlohmann::json& node : j["nodes"]) {
    const std::string kind = node["kind"];
    if (kind == "_c10d_functional::all_reduce") ++all_reduce;
    if (kind == "_c10d_functional::wait_tensor") ++wait;
    if (absl::StartsWith(kind, "_c10d_functional::")) {
      EXPECT_GT(node["mean_us"].get<double>(), 0) << kind;
    }
  }
  EXPECT_EQ(all_reduce, 1) << "the all_reduce keeps its operator kind";
  EXPECT_EQ(wait, 1);
  // A program saved by torch.export.save carries no reference outputs, and
  // a collective's output depends on every rank: nothing is called verified.
  EXPECT_TRUE(j["verified"].is_null()) << j["verification"].dump();
}

TEST(RanksCollectivesTest, TwoRanksStartedByHandRunTheTensorParallelProgram) {
  const std::string path = TempDir("by_hand") + "/r.json";
  RankProcesses ranks(2, {kProgram, kInputs, "--warmup=1", "--runs=8", "--format=json", "--output=" + path});
  for (const RankProcess& r : ranks.Wait(240)) EXPECT_EQ(r.result.code, 0) << r.result.err;
  ExpectCollectivesTimed(nlohmann::json::parse(Slurp(path)), 2);
  // The same report as CSV: the collectives' transfer and waiting.
  const Result csv = RunTool({"merge", path, "--format=csv", "--top=0"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::vector<std::string> lines = absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  const size_t transfer = std::find(header.begin(), header.end(), "transfer_us") - header.begin();
  const size_t kind = std::find(header.begin(), header.end(), "kind") - header.begin();
  ASSERT_LT(transfer, header.size()) << lines[0];
  bool wait_split = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = absl::StrSplit(lines[i], ',');
    if (cells.size() > transfer && cells[kind] == "_c10d_functional::wait_tensor") {
      wait_split = !cells[transfer].empty() && std::stod(cells[transfer]) >= 0;
    }
    if (cells.size() > transfer && cells[kind] == "aten::linear") {
      EXPECT_EQ(cells[transfer], "") << lines[i];
    }
  }
  EXPECT_TRUE(wait_split) << csv.out;
}

// Debian's torch 2.6 has no libuv and its launcher's own store asks for it:
// the workaround docs/distributed.md names (PyTorch's wheels need none), as
// a sitecustomize.py in `dir` (put it on PYTHONPATH).
void WriteLibuvWorkaround(const std::string& dir) {
  std::ofstream(dir + "/sitecustomize.py") << "import torch.distributed as _dist\n"
                                              "class _TCPStore(_dist.TCPStore):\n"
                                              "    def __init__(self, *args, **kwargs):\n"
                                              "        kwargs.setdefault('use_libuv', False)\n"
                                              "        super().__init__(*args, **kwargs)\n"
                                              "_dist.TCPStore = _TCPStore\n";
}

// The profile_graph processes whose command line holds `marker`, by pid.
std::vector<pid_t> RankPids(const std::string& marker) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    std::string cmdline = Slurp(absl::StrCat("/proc/", pid, "/cmdline"));
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (absl::StrContains(cmdline, "profile_graph") && absl::StrContains(cmdline, "--output=" + marker) &&
        !absl::StrContains(cmdline, "torch.distributed.run")) {
      pids.push_back(pid);
    }
  }
  closedir(proc);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// torchrun (GRAPHPROF_PYTHON's, set by CMake) starting `ranks` ranks of
// profile_graph on the program, `runs` timed runs, the report to `output`;
// its stdout and stderr in `dir`. -1 when it cannot start.
pid_t StartTorchrun(const std::string& dir, int ranks, int runs, const std::string& output) {
  const char* python = std::getenv("GRAPHPROF_PYTHON");
  if (python == nullptr) {
    ADD_FAILURE() << "GRAPHPROF_PYTHON (set by CMake)";
    return -1;
  }
  WriteLibuvWorkaround(dir);
  return SpawnWith({python, "-m", "torch.distributed.run", absl::StrCat("--nproc-per-node=", ranks),
                    absl::StrCat("--master-port=", FreePort()), "--no-python", "tools/profile_graph", kProgram, kInputs,
                    "--warmup=1", absl::StrCat("--runs=", runs), "--format=json", "--output=" + output},
                   {"PYTHONPATH=" + dir, "USE_LIBUV=0"}, dir + "/out", dir + "/err");
}

TEST(RanksCollectivesTest, FourRanksUnderTorchrun) {
  const std::string dir = TempDir("torchrun");
  const std::string path = dir + "/r.json";
  const pid_t pid = StartTorchrun(dir, 4, 5, path);
  ASSERT_GT(pid, 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << Slurp(dir + "/err");
  ExpectCollectivesTimed(nlohmann::json::parse(Slurp(path)), 4);
}

TEST(RanksCollectivesTest, ARankKilledUnderTorchrunEndsEveryRank) {
  // torchrun's agent stops the other ranks when one dies: the launcher ends
  // within 120 s, no profile_graph of this group is left, no report written.
  const std::string dir = TempDir("torchrun_killed");
  const std::string path = dir + "/r.json";  // also what tells this group's ranks from others
  const pid_t pid = StartTorchrun(dir, 2, 1000000, path);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::seconds(8));
  const std::vector<pid_t> ranks = RankPids(path);
  ASSERT_EQ(ranks.size(), 2u) << "two ranks running after 8 s";
  kill(ranks[1], SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - killed > std::chrono::seconds(120)) {
      kill(pid, SIGKILL);
      FAIL() << "torchrun still runs 120 s after a rank was killed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << Slurp(dir + "/err");
  EXPECT_TRUE(RankPids(path).empty()) << "a rank left behind";
  EXPECT_FALSE(Exists(path)) << "no partial report";
}

TEST(RanksCollectivesTest, WithoutRanksTheProgramIsRefusedInOneLine) {
  const Result r = RunTool({kProgram, kInputs, "--runs=2"});
  ExpectOneLineError(r, 1, "calls collectives of process group '0': run it as the ranks");
}

}  // namespace
}  // namespace graphprof::testing
