// profile_graph under hostile input and at the edges: deep graphs,
// impossible inputs, models that mutate their inputs or produce NaN, outputs
// that are devices, symlinks or inputs, interruption, bad files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::Exists;
using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Quick;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;
using ::graphprof::testing::Write;

std::string Chain(int n) {
  std::string ir = "graph(%x : Tensor):\n  %one : int = prim::Constant[value=1]()\n";
  std::string previous = "x";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&ir, "  %v", i, " : Tensor = aten::add(%", previous, ", %one, %one)\n");
    previous = absl::StrCat("v", i);
  }
  absl::StrAppend(&ir, "  return (%", previous, ")\n");
  return ir;
}

// `n` ifs nested in each other's then-blocks, one space of indentation per
// level (the parser needs indentation; this keeps the file small enough).
std::string NestedIfs(int n) {
  std::string ir = "graph(%x : Tensor, %c : bool):\n";
  auto pad = [](int d) { return std::string(d + 1, ' '); };
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&ir, pad(2 * i), "%y", i, " : Tensor = prim::If(%c)\n", pad(2 * i + 1), "block0():\n");
  }
  absl::StrAppend(&ir, pad(2 * n), "%z : Tensor = aten::relu(%x)\n");
  for (int i = n - 1; i >= 0; --i) {
    absl::StrAppend(&ir, pad(2 * i + 2), "-> (%", i == n - 1 ? "z" : absl::StrCat("y", i + 1), ")\n", pad(2 * i + 1),
                    "block1():\n", pad(2 * i + 2), "-> (%x)\n");
  }
  absl::StrAppend(&ir, " return (%y0)\n");
  return ir;
}

TEST(HardeningTest, DeepGraphsRunAndVerify) {
  // Both crashed LibTorch's native executor / parser on an 8 MB stack.
  Result chain = RunTool(Quick({"--ir=" + Write("chain10k.ir", Chain(10000)), "--input=1", "--top=1"}));
  EXPECT_EQ(chain.code, 0) << chain.err;
  EXPECT_TRUE(absl::StrContains(chain.out, "output identical to native execution")) << chain.out;
  const std::string nested = Write("nested5000.ir", NestedIfs(5000));
  Result ifs = RunTool({"--ir=" + nested, "--input=4,=true", "--warmup=0", "--runs=1", "--top=1"});
  EXPECT_EQ(ifs.code, 0) << ifs.err;
  EXPECT_TRUE(absl::StrContains(ifs.out, "output identical")) << ifs.out;
  std::remove(nested.c_str());
  // Deeper than graphprof reads: one line, before LibTorch's parser sees it.
  const std::string too_deep = "graph(%x : Tensor):\n" + std::string(2 * 20001, ' ') + "return (%x)\n";
  ExpectOneLineError(RunTool({"--ir=" + Write("deep.ir", too_deep), "--input=1"}), 1,
                     "nests 20001 levels deep; graphprof reads up to 20000");
}

TEST(HardeningTest, ImpossibleRandomInputsFailInOneLine) {
  ExpectOneLineError(RunTool({"--ir=" + Write("id.ir", Chain(1)), "--input=100000x100000x100000"}), 1,
                     "--input: input 1 (100000x100000x100000:float32) would need");
  ExpectOneLineError(RunTool({"--zoo=resnet18", "--input=1x3x224x224:int8[0:1000]"}), 1, "do not fit int8");
  ExpectOneLineError(RunTool({"--ir=" + Write("id.ir", Chain(1)), "--input=4:uint8[0:1000]"}), 1, "do not fit uint8");
}

TEST(HardeningTest, EveryRunGetsFreshInputs) {
  // x.add_(1); return x * 2: with shared inputs the second run saw x + 1.
  const std::string ir = Write("mutates.ir", R"IR(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %y : Tensor = aten::add_(%x, %one, %one)
  %z : Tensor = aten::mul(%y, %two)
  return (%z)
)IR");
  for (const char* runs : {"--runs=1", "--runs=7"}) {
    Result r = RunTool({"--ir=" + ir, "--input=8", "--warmup=3", runs});
    EXPECT_EQ(r.code, 0) << runs << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "output identical")) << r.out;
  }
}

TEST(HardeningTest, NanEqualsNanInVerification) {
  const std::string ir = Write("nan.ir", R"IR(graph(%x : Tensor):
  %zero : float = prim::Constant[value=0.]()
  %y : Tensor = aten::mul(%x, %zero)
  %z : Tensor = aten::div(%y, %y)
  return (%z)
)IR");
  Result r = RunTool(Quick({"--ir=" + ir, "--input=16"}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "output identical to native execution")) << r.out;
}

TEST(HardeningTest, OutputsNeverDestroyInputsOrEachOther) {
  const std::string dir = TempDir("hardening_outputs");
  const std::string model = testing::FixturePath("traced_convnet.pt");
  const std::string copy = dir + "/model.pt";
  { std::ofstream(copy, std::ios::binary) << Slurp(model); }
  const std::string inputs = testing::FixturePath("traced_convnet.inputs.pt");
  ExpectOneLineError(RunTool({"--model=" + copy, "--inputs=" + inputs, "--output=" + copy}), 2,
                     "would overwrite the --model file");
  EXPECT_EQ(Slurp(copy), Slurp(model)) << "the model is intact";
  ExpectOneLineError(RunTool({"--zoo=mlp", "--output=" + dir + "/o.txt", "--trace=" + dir + "/./o.txt"}), 2,
                     "--output and --trace go to the same file");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--compare=" + copy, "--html=" + copy}), 2,
                     "would overwrite the --compare file");

  // /dev/null stays a device; a symlink stays a link to the new file.
  Result devnull = RunTool(Quick({"--zoo=mlp", "--output=/dev/null"}));
  EXPECT_EQ(devnull.code, 0) << devnull.err;
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  const std::string target = dir + "/target.json", link = dir + "/link.json";
  { std::ofstream(target) << "old"; }
  ASSERT_EQ(chmod(target.c_str(), 0600), 0);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  Result linked = RunTool(Quick({"--zoo=mlp", "--format=json", "--output=" + link}));
  ASSERT_EQ(linked.code, 0) << linked.err;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link itself is kept";
  EXPECT_TRUE(absl::StrContains(Slurp(target), "\"schema_version\"")) << "the file it points to is replaced";
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the replaced file keeps its mode";
  // Nothing temporary is left next to the outputs.
  for (const std::string& name : {dir + "/.target.json.tmp", dir + "/.link.json.tmp"}) EXPECT_FALSE(Exists(name));
}

TEST(HardeningTest, BadFilesSaySoInOneLine) {
  ExpectOneLineError(RunTool({"--model=/tmp"}), 1, "/tmp: is a directory, not a file");
  ExpectOneLineError(RunTool({"--ir=/dev/zero", "--input=1"}), 1, "/dev/zero: is not a regular file");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--inputs=tests/real/dict_inputs.pt"}), 1,
                     "holds a dict; positional inputs are needed");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--inputs=tests/real/pickled_module.pt"}), 1,
                     "holds a pickled Python object (torch.nn.modules.linear.Linear)");
  // Valid files whose tensors cannot be copied for a run (found in review:
  // both aborted on LibTorch's exception).
  Result huge = RunTool({"--zoo=mlp", "--inputs=tests/real/huge_view.pt"});
  // A tool built with ASan (not necessarily this test: CI compiles the test
  // sources uninstrumented) warns on a line of its own first.
  const size_t first_end = huge.err.find('\n');
  if (absl::StartsWith(huge.err, "==") && absl::StrContains(huge.err.substr(0, first_end), "AddressSanitizer")) {
    huge.err.erase(0, first_end + 1);
  }
  ExpectOneLineError(huge, 1, "the inputs cannot be copied for a run");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--inputs=tests/real/float_qparams.pt"}), 1,
                     "the inputs cannot be copied for a run");
  ExpectOneLineError(RunTool({"--zoo=mlp", "--inputs=" + testing::FixturePath("lstm.pt")}), 1,
                     "is a TorchScript module (torch.jit.save), not inputs: pass it as --model");
  ExpectOneLineError(RunTool({"--ir=" + Write("bad.ir", "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%q)\n  return (%y)\n"),
                              "--input=1"}),
                     1, "IR text does not parse at line 2, column");
  // A message with a newline in it (here, from the path) is still one line.
  ExpectOneLineError(RunTool({"--model=/nonexistent/first\nsecond.pt"}), 1, "/nonexistent/first second.pt");
}

TEST(HardeningTest, CompareWarnsAboutAnotherModelOrRunCount) {
  const std::string base = TempDir("hardening_compare") + "/base.json";
  ASSERT_EQ(RunTool(Quick({"--zoo=mlp", "--format=json", "--output=" + base})).code, 0);
  Result other_model = RunTool(Quick({"--zoo=gcn", "--compare=" + base}));
  EXPECT_EQ(other_model.code, 0) << other_model.err;
  EXPECT_TRUE(absl::StrContains(other_model.err, "warning: --compare: the base report is of zoo:mlp, this run profiles zoo:gcn"))
      << other_model.err;
  Result other_runs = RunTool({"--zoo=mlp", "--warmup=1", "--runs=3", "--compare=" + base});
  EXPECT_EQ(other_runs.code, 0) << other_runs.err;
  EXPECT_TRUE(absl::StrContains(other_runs.err, "the base report has 2 timed runs, this one 3")) << other_runs.err;
  EXPECT_EQ(std::count(other_runs.err.begin(), other_runs.err.end(), '\n'), 1);
}

// Runs profile_graph under script(1), so that stderr is a terminal; with
// `interrupt_after_ms`, sends SIGINT to profile_graph (only) after that long.
// Runs profile_graph on a pseudo-terminal (script(1)); with `interrupt`, sends
// it SIGINT as soon as a progress line shows (at most after a minute), so a
// slow, busy machine still interrupts it mid-run.
Result RunOnTerminal(const std::string& args, bool interrupt = false) {
  const std::string dir = TempDir("hardening_terminal");
  const std::string log = dir + "/typescript";
  const std::string pid_file = dir + "/pid";
  std::remove(pid_file.c_str());
  const std::string inner =
      absl::StrCat("tools/profile_graph ", args, " >/dev/null & echo \\$! > ", pid_file, "; wait \\$!");
  const std::string command = absl::StrCat("script -q -e -c \"", inner, "\" ", log);
  Result result;
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (interrupt) {
    pid_t tool = 0;
    for (int waited_ms = 0; waited_ms < 60000; waited_ms += 100) {
      usleep(100 * 1000);
      if (tool == 0) {
        std::ifstream in(pid_file);
        in >> tool;
      }
      if (tool > 0 && absl::StrContains(Slurp(log), "profile_graph:")) break;
    }
    EXPECT_GT(tool, 0) << "profile_graph started";
    if (tool > 0) kill(tool, SIGINT);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = Slurp(log);
  return result;
}

TEST(HardeningTest, LongRunsShowProgressAndClearItWhenInterrupted) {
  if (system("command -v script >/dev/null") != 0) GTEST_SKIP() << "script(1) is not installed";
  const std::string ir = Write("chain100k.ir", Chain(100000));
  Result r = RunOnTerminal(absl::StrCat("--ir=", ir, " --input=1 --warmup=1 --runs=2 --noverify"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "nodes")) << "progress within a run: " << r.err.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(r.err, "/100001 nodes")) << r.err.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(r.err.substr(r.err.rfind("nodes")), "\r\033[K")) << "the line is cleared at the end";

  const std::string out = TempDir("hardening_terminal") + "/interrupted.json";
  Result interrupted =
      RunOnTerminal(absl::StrCat("--ir=", ir, " --input=1 --warmup=1000 --workers=0 --format=json --output=", out), true);
  EXPECT_NE(interrupted.code, 0) << interrupted.err.substr(0, 300);
  const size_t stopped = interrupted.err.rfind("profile_graph: interrupted (SIGINT)");
  ASSERT_NE(stopped, std::string::npos) << "one line says why: " << interrupted.err.substr(0, 300);
  const size_t last = interrupted.err.rfind("profile_graph:", stopped - 1);
  ASSERT_NE(last, std::string::npos) << "progress was shown: " << interrupted.err.substr(0, 200);
  EXPECT_TRUE(absl::StrContains(interrupted.err.substr(last, stopped - last), "\r\033[K")) << "cleared on SIGINT";
  EXPECT_FALSE(Exists(out)) << "an interrupted run writes nothing";
}

// A legal file name of up to 255 bytes: the temporary beside it still fits.
TEST(HardeningTest, LongOutputNamesAreWritten) {
  for (size_t length : {200u, 241u, 255u}) {
    const std::string name = std::string(length - 5, 'r') + ".json";
    const std::string path = TempDir("hardening_long") + "/" + name;
    Result r = RunTool(Quick({"--zoo=mlp", "--format=json", "--output=" + path}));
    EXPECT_EQ(r.code, 0) << length << ": " << r.err;
    EXPECT_TRUE(Exists(path)) << length;
  }
}

}  // namespace
}  // namespace graphprof
