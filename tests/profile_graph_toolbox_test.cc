// profile_graph's toolbox switches (issue 15): live memory in the --memory
// summary, NVTX iteration control, trace file patterns, and the layer-wise
// module table with memory, limited to --modules.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace graphprof
