// profile_graph's toolbox switches (issue 15): live memory in the --memory
// summary, NVTX iteration control, trace file patterns, and the layer-wise
// module table with memory, limited to --modules.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
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

// The summary line starting with `label` ("  note          live memory..."), or "".
std::string SummaryLine(const std::string& out, const std::string& text) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StrContains(line, text)) return std::string(line);
  }
  return "";
}

TEST(ProfileGraphToolboxTest, MemoryPrintsLiveMemoryInTheSummary) {
  Result r = RunTool(Quick({"--zoo=mlp", "--memory"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string line = SummaryLine(r.out, "live memory after the runs: ");
  ASSERT_FALSE(line.empty()) << r.out;
  EXPECT_TRUE(absl::StartsWith(line, "  note          live memory after the runs: CPU tensors ")) << line;
  // The mlp's parameters alone are 235146 floats (918.5 KiB): counted from
  // before the model loaded, they are among the live tensors.
  EXPECT_FALSE(absl::StrContains(line, "CPU tensors 0 B")) << line;
  EXPECT_TRUE(absl::StrContains(line, " KiB;") || absl::StrContains(line, " MiB;")) << line;
  EXPECT_TRUE(absl::StrContains(line, "; resident ")) << line;
  EXPECT_TRUE(absl::StrContains(line, "tensors")) << line;

  Result without = RunTool(Quick({"--zoo=mlp"}));
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_EQ(SummaryLine(without.out, "live memory"), "") << "only with --memory";
}

TEST(ProfileGraphToolboxTest, NvtxIterationControl) {
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--nvtx_warmup=1"})), 2,
                     "--nvtx_iters must be at least 1 (got 0): --nvtx_warmup needs it");
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--nvtx_iters=-2"})), 2, "--nvtx_iters must be at least 1 (got -2)");
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--nvtx_iters=1", "--nvtx_warmup=-1"})), 2,
                     "--nvtx_warmup must be 0 or more");
  // Quick() has 2 timed runs.
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--nvtx_warmup=1", "--nvtx_iters=2"})), 2,
                     "--nvtx_warmup=1 plus --nvtx_iters=2 is more than the 2 timed runs (--runs)");
#ifdef GRAPHPROF_WITH_NVTX
  Result r = RunTool(Quick({"--zoo=mlp", "--nvtx_warmup=1", "--nvtx_iters=1", "--nvtx"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string line = SummaryLine(r.out, "NVTX: ");
  EXPECT_TRUE(absl::StrContains(line, "NVTX: timed runs 1-1 recorded as ranges MLP.forward_0..MLP.forward_0 (with node ranges)"))
      << r.out;
  // No GPU here: cudaProfilerStart fails, softly, and the note says so.
  EXPECT_TRUE(absl::StrContains(line, "cudaProfilerStart: ")) << line;
#else
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--nvtx_warmup=1", "--nvtx_iters=1"})), 2,
                     "--nvtx_iters needs a build with NVTX");
#endif
}

// "profile_graph: trace written to PATH" -> PATH.
std::string WrittenTrace(const Result& r) {
  const std::string prefix = "profile_graph: trace written to ";
  EXPECT_TRUE(absl::StartsWith(r.err, prefix)) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  return absl::StartsWith(r.err, prefix) ? r.err.substr(prefix.size(), r.err.size() - prefix.size() - 1) : "";
}

TEST(ProfileGraphToolboxTest, TracePatternsKeepEveryTrace) {
  const std::string dir = TempDir("trace_patterns");
  Result first = RunTool(Quick({"--zoo=mlp", "--trace=" + dir + "/profile-{model}-{n}.json"}));
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(WrittenTrace(first), dir + "/profile-mlp-0.json");
  Result second = RunTool(Quick({"--zoo=mlp", "--trace=" + dir + "/profile-{model}-{n}.json"}));
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(WrittenTrace(second), dir + "/profile-mlp-1.json");
  EXPECT_TRUE(nlohmann::json::parse(Slurp(dir + "/profile-mlp-0.json")).contains("traceEvents"));
  EXPECT_TRUE(nlohmann::json::parse(Slurp(dir + "/profile-mlp-1.json")).contains("traceEvents"));

  // {date} and {pid}: a name of that shape; an existing file is never replaced.
  Result dated = RunTool(Quick({"--zoo=control_flow", "--trace=" + dir + "/t-{model}-{date}-{pid}.json"}));
  ASSERT_EQ(dated.code, 0) << dated.err;
  const std::string path = WrittenTrace(dated);
  const std::string name = path.substr(dir.size() + 1);
  // t-control_flow-DDDDDDDD-DDDDDD-<pid>.json
  const std::string shape = "t-control_flow-dddddddd-dddddd-";
  ASSERT_GT(name.size(), shape.size() + 5) << name;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd') {
      EXPECT_TRUE(absl::ascii_isdigit(name[i])) << name << " at " << i;
    } else {
      EXPECT_EQ(name[i], shape[i]) << name << " at " << i;
    }
  }
  const std::string pid = name.substr(shape.size(), name.size() - shape.size() - 5);
  EXPECT_FALSE(pid.empty());
  for (char c : pid) EXPECT_TRUE(absl::ascii_isdigit(c)) << name;
  EXPECT_TRUE(absl::EndsWith(name, ".json")) << name;
  EXPECT_TRUE(Exists(path));

  // A plain name still means that file, replaced as before, and nothing is said.
  Result plain = RunTool(Quick({"--zoo=mlp", "--trace=" + dir + "/profile-mlp-0.json"}));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
}

TEST(ProfileGraphToolboxTest, BadTracePatternsAreUsageErrors) {
  const std::string dir = TempDir("trace_patterns");
  Result r = RunTool(Quick({"--zoo=mlp", "--trace=" + dir + "/p-{modle}.json"}));
  ExpectOneLineError(r, 2, "--trace: unknown placeholder {modle} in '");
  EXPECT_TRUE(absl::StrContains(r.err, "(use {model}, {date}, {pid}, {n})")) << r.err;
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--trace=" + dir + "/p-{date.json"})), 2, "--trace: '{' without '}'");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(Exists(dir + "/p-{modle}.json"));
}

TEST(ProfileGraphToolboxTest, LayerWiseTableWithMemoryForChosenModules) {
  Result r = RunTool(Quick({"--zoo=resnet18", "--group_by=module", "--memory", "--top=0", "--modules=layer1,layer2.0"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string table = r.out.substr(r.out.find("by module"));
  std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_GT(lines.size(), 4u) << table;
  for (const char* column : {"total_us", "self_us", "alloc", "self_alloc", "peak"}) {
    EXPECT_TRUE(absl::StrContains(lines[1], column)) << column << "\n" << table;
  }
  std::vector<std::string> modules;
  for (size_t i = 3; i < lines.size(); ++i) {
    if (absl::StartsWith(lines[i], "---")) break;
    std::vector<std::string> cells = absl::StrSplit(lines[i], ' ', absl::SkipEmpty());
    if (!cells.empty()) modules.push_back(cells[0]);
  }
  // Tree order (a module before its submodules); which rows, sorted:
  ASSERT_FALSE(modules.empty());
  EXPECT_EQ(modules[0], "layer1");
  const size_t layer2 = std::find(modules.begin(), modules.end(), "layer2.0") - modules.begin();
  ASSERT_LT(layer2, modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    EXPECT_TRUE(absl::StartsWith(modules[i], i < layer2 ? "layer1" : "layer2.0")) << "layer1's subtree, then layer2.0's";
  }
  std::sort(modules.begin(), modules.end());
  std::vector<std::string> expected = {"layer1", "layer1.0", "layer1.0.conv1", "layer1.0.bn1",
                                               "layer1.0.relu", "layer1.0.conv2", "layer1.0.bn2", "layer1.1",
                                               "layer1.1.conv1", "layer1.1.bn1", "layer1.1.relu", "layer1.1.conv2",
                                               "layer1.1.bn2", "layer2.0", "layer2.0.conv1", "layer2.0.bn1",
                                               "layer2.0.relu", "layer2.0.conv2", "layer2.0.bn2",
                                               "layer2.0.downsample", "layer2.0.downsample.0",
                                               "layer2.0.downsample.1"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(modules, expected) << table;

  // The same selection in CSV.
  Result csv = RunTool(Quick({"--zoo=mlp", "--format=csv", "--group_by=module", "--modules=fc2"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::vector<std::string> rows = absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 2u) << csv.out;
  EXPECT_TRUE(absl::StrContains(rows[1], ",fc2,")) << rows[1];
}

TEST(ProfileGraphToolboxTest, BadModuleSelectionsAreUsageErrors) {
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--modules=fc9"})), 2,
                     "no module 'fc9' in zoo:mlp (top-level modules: fc1, fc2, fc3)");
  // Checked against the plan before anything runs: a run that would fail
  // (output 7 of a one-output model as the loss) is never reached.
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--modules=fc9", "--backward", "--loss_output=7"})), 2,
                     "--modules: no module 'fc9' in zoo:mlp");
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--modules=fc1,,fc2"})), 2, "--modules: an empty module path");
  ExpectOneLineError(RunTool(Quick({"--zoo=mlp", "--modules=fc1", "--format=json"})), 2,
                     "--modules limits the rows of tables and CSV");
}

}  // namespace
}  // namespace graphprof
