// profile_graph --model=PROGRAM.pt2, driven as a user drives it: the report
// of a torch.export program (names, module paths, sources, verification
// against PyTorch's outputs, the inputs it used) and its one-line refusals.
#include <dirent.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <cstdlib>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;
using ::graphprof::testing::Write;

TEST(ExportCliTest, ProfilesAProgramAndVerifiesItAgainstPyTorch) {
  const std::string model = "--model=" + testing::FixturePath("export/mlp.pt2");
  const Result text = RunTool({model, "--warmup=1", "--runs=3", "--group_by=module"});
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* want : {"212 parameters", "verified      output identical to PyTorch 2.6", "ep.module() (graphprof.save_export",
                           "inputs: the archive's reference inputs (graphprof.save_export)",
                           "a torch.export program (torch.export.save (PyTorch 2.6-2.7 layout), schema 8.2",
                           "  fc1 ", "  fc2 "}) {
    EXPECT_TRUE(absl::StrContains(text.out, want)) << want << "\n" << text.out;
  }
  const std::string out = TempDir("export_cli_test") + "/mlp.json";
  ASSERT_EQ(RunTool({model, "--warmup=1", "--runs=3", "--format=json", "--output=" + out}).code, 0);
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["verified"], true);
  std::vector<std::string> names;
  for (const nlohmann::json& node : j["nodes"]) {
    if (node["kind"] == "prim::Constant") continue;
    names.push_back(node["name"]);
    EXPECT_TRUE(absl::StrContains(node["source"].get<std::string>(), "make_pt2_fixtures.py:")) << node.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fc1/linear", "relu", "mul", "fc2/linear_1", "add"}));
  // Other inputs: profiled, and said not verified (no reference for them).
  const std::string inputs = TempDir("export_cli_test") + "/x.pt";
  const Result other = RunTool({model, "--warmup=1", "--runs=2", "--input=3x8:float32", "--seed=7"});
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_TRUE(absl::StrContains(other.out, "not verified: the reference outputs saved with the model (graphprof.save_export) are for other inputs"))
      << other.out;
  EXPECT_FALSE(absl::StrContains(other.out, "verified      output")) << other.out;
}

// The migration diff: the same model as TorchScript (A) and as its
// torch.export program (B), interleaved, paired by kind and module; both
// outputs verified. And an A/A of the program (--ab=none).
TEST(ExportCliTest, TheMigrationDiffAndAnAaOfAProgram) {
  const std::string out = TempDir("export_cli_test") + "/migration.json";
  const Result r = RunTool({"--model=" + testing::FixturePath("export/mlp_script.pt"),
                            "--compare_model=" + testing::FixturePath("export/mlp.pt2"), "--warmup=1", "--runs=12",
                            "--format=json", "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["compare_model"], testing::FixturePath("export/mlp.pt2"));
  // Both linear layers, the relu and the mul paired by kind and module. (The
  // time fraction they stand for is a ratio of wall times: on this tiny
  // model the interpreter-only nodes weigh as much as the kernels in a
  // sanitizer build. A torchvision model's is checked in export_real_test.)
  std::multiset<std::string> paired;
  for (const nlohmann::json& n : j["diff"]["nodes"]) {
    const std::string kind = n["kind"];
    if (kind == "aten::linear" || kind == "aten::relu" || kind == "aten::mul") {
      EXPECT_TRUE(n["match"] == "same" || n["match"] == "kind+module") << n.dump();
      paired.insert(kind);
    }
  }
  EXPECT_EQ(paired, (std::multiset<std::string>{"aten::linear", "aten::linear", "aten::mul", "aten::relu"}));
  EXPECT_GT(j["matched_time_fraction"].get<double>(), 0);
  EXPECT_LE(j["matched_time_fraction"].get<double>(), 1);
  EXPECT_EQ(j["a"]["verified"], true);
  EXPECT_EQ(j["b"]["verified"], true) << j["b"]["verification"].dump();
  EXPECT_TRUE(absl::StrContains(j["b"]["model"].get<std::string>(), "(B: torch.export)"));
  int modules = 0;
  for (const nlohmann::json& m : j["diff"]["modules"]) modules += m["module"] == "fc1" || m["module"] == "fc2";
  EXPECT_EQ(modules, 2) << "fc1 and fc2 are rows on both sides";
  // Copies a side (--ab_copies, 3 by default): the module's clones and the
  // program read three times, the copies the diff's unit.
  auto copies = [](const nlohmann::json& side) {
    int noted = 0;
    for (const nlohmann::json& note : side["notes"]) {
      noted += absl::StrContains(note.get<std::string>(), "each side ran on 3 separately prepared copies");
    }
    return std::pair<int, size_t>{noted, side.contains("run_sources") ? side["run_sources"].size() : 0};
  };
  EXPECT_EQ(copies(j["a"]), (std::pair<int, size_t>{1, 3}));
  EXPECT_EQ(copies(j["b"]), (std::pair<int, size_t>{1, 3}));
  const std::string one = TempDir("export_cli_test") + "/one.json";
  const Result single = RunTool({"--model=" + testing::FixturePath("export/mlp_script.pt"),
                                 "--compare_model=" + testing::FixturePath("export/mlp.pt2"), "--ab_copies=1",
                                 "--warmup=1", "--runs=4", "--format=json", "--output=" + one});
  ASSERT_EQ(single.code, 0) << single.err;
  EXPECT_EQ(copies(nlohmann::json::parse(Slurp(one))["b"]), (std::pair<int, size_t>{0, 0}));
  ExpectOneLineError(RunTool({"--zoo=mlp", "--compare_model=" + testing::FixturePath("export/mlp.pt2")}), 2,
                     "--compare_model compares a --model (TorchScript) with a program");
  // A/A of the program: every node paired with itself, both sides verified.
  const std::string aa = TempDir("export_cli_test") + "/aa.json";
  const Result same = RunTool({"--model=" + testing::FixturePath("export/mlp.pt2"), "--ab=none", "--warmup=1", "--runs=12",
                               "--format=json", "--output=" + aa});
  ASSERT_EQ(same.code, 0) << same.err;
  const nlohmann::json k = nlohmann::json::parse(Slurp(aa));
  EXPECT_EQ(k["diff"]["same"].get<int>(), static_cast<int>(k["diff"]["nodes"].size()));
  EXPECT_EQ(k["a"]["verified"], true);
  EXPECT_EQ(k["b"]["verified"], true);
  EXPECT_EQ(copies(k["a"]), (std::pair<int, size_t>{1, 3}));
  EXPECT_EQ(copies(k["b"]), (std::pair<int, size_t>{1, 3}));
}

TEST(ExportCliTest, RefusalsAreOneLine) {
  const std::string model = "--model=" + testing::FixturePath("export/mlp.pt2");
  ExpectOneLineError(RunTool({model, "--input=3x8:int64"}), 1, "input 0 (x) must be Float but is Long");
  ExpectOneLineError(RunTool({model, "--input=3x9:float32"}), 1, "must have size 8 in dimension 1 (exported static)");
  ExpectOneLineError(RunTool({model, "--ab=cse"}), 1, "passes and freezing apply to TorchScript modules, not to a torch.export program");
  ExpectOneLineError(RunTool({model, "--backward"}), 1, "training steps (--backward) need a TorchScript module");
  ExpectOneLineError(RunTool({"--model=" + Write("garbage.pt2", "not a zip")}), 1, "not a readable zip archive");
  const Result sdpa = RunTool({"--model=" + testing::FixturePath("export/sdpa.pt2"), "--runs=2"});
  if (TORCH_VERSION_MAJOR < 2) {
    ExpectOneLineError(sdpa, 1, "calls aten::scaled_dot_product_attention");
  } else {
    EXPECT_EQ(sdpa.code, 0) << sdpa.err;
  }
}

// Programs that mutate their input, return None or numbers, take a dict:
// profiled and verified as PyTorch ran them (the inputs as given).
TEST(ExportCliTest, OddProgramsAreVerifiedAsPyTorchRanThem) {
  for (const char* fixture : {"mutates.pt2", "pair_none.pt2", "none.pt2", "pair_int.pt2", "dict_in.pt2"}) {
    const Result r = RunTool({"--model=" + testing::FixturePath(std::string("export/") + fixture), "--warmup=1",
                              "--runs=2"});
    EXPECT_EQ(r.code, 0) << fixture << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "verified      output identical to PyTorch")) << fixture << "\n" << r.out;
  }
  const Result mutates = RunTool({"--model=" + testing::FixturePath("export/mutates.pt2"), "--warmup=1", "--runs=2"});
  EXPECT_TRUE(absl::StrContains(mutates.out, "the program writes its input in place (x (node add_, aten::add_))"))
      << mutates.out;
}

// A program that writes its own buffer in place (a batch norm exported in
// training mode: num_batches_tracked.add_) is refused in one line.
TEST(ExportCliTest, AProgramWritingItsOwnBufferIsRefused) {
  ExpectOneLineError(RunTool({"--model=" + testing::FixturePath("export/bn_train.pt2"), "--runs=2"}), 1,
                     "writes buffer 'bn.num_batches_tracked' in place");
}

// Module paths are named_modules()'s whatever forward's first argument is
// called (Dynamo writes L['s'].fc1 when it is `s`).
TEST(ExportCliTest, ModulePathsDoNotDependOnTheNameOfSelf) {
  const Result r = RunTool({"--model=" + testing::FixturePath("export/not_self.pt2"), "--warmup=1", "--runs=2",
                            "--group_by=module"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "  fc1 ")) << r.out;
  EXPECT_FALSE(absl::StrContains(r.out, "L['s']")) << r.out;
}

// A program calling aten::save is refused before anything runs: nothing is
// written.
TEST(ExportCliTest, AProgramThatWritesAFileIsRefused) {
  ExpectOneLineError(RunTool({"--model=" + testing::FixturePath("export/saves.pt2"), "--warmup=1", "--runs=2"}), 1,
                     "aten::save");
  ExpectOneLineError(RunTool({"--model=" + testing::FixturePath("export/saves.pt2"), "--ab=none", "--runs=2"}), 1,
                     "writes a file");
  EXPECT_FALSE(testing::Exists("graphprof_saved_by_model.pt"));
}

// --workers with --ab=none on a program, and no worker directory left
// behind when a worker fails.
TEST(ExportCliTest, WorkersRunAProgramsAaAndLeaveNothingBehind) {
  const std::string tmp = TempDir("export_cli_workers");
  setenv("TMPDIR", tmp.c_str(), 1);
  const std::string out = TempDir("export_cli_test") + "/workers_aa.json";
  const Result aa = RunTool({"--model=" + testing::FixturePath("export/mlp.pt2"), "--ab=none", "--workers=2",
                             "--warmup=1", "--runs=4", "--ab_copies=1", "--format=json", "--output=" + out});
  ASSERT_EQ(aa.code, 0) << aa.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["a"]["verified"], true);
  EXPECT_EQ(j["b"]["verified"], true);
  EXPECT_EQ(j["diff"]["nodes"].size(), j["a"]["nodes"].size());
  const Result failed = RunTool({"--model=" + testing::FixturePath("export/mlp.pt2"), "--input=3x9:float32",
                                 "--workers=2", "--runs=2"});
  EXPECT_EQ(failed.code, 1) << failed.err;
  unsetenv("TMPDIR");
  std::vector<std::string> left;
  if (DIR* dir = opendir(tmp.c_str()); dir != nullptr) {
    for (dirent* e = readdir(dir); e != nullptr; e = readdir(dir)) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") left.push_back(e->d_name);
    }
    closedir(dir);
  }
  EXPECT_EQ(left, std::vector<std::string>{}) << "a worker directory was left behind";
}

}  // namespace
}  // namespace graphprof
