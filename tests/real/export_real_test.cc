// profile_graph on torchvision models exported by the build's PyTorch 2.x
// (torch.export, saved by graphprof.save_export: make_real_models.py's
// NAME_export), as a migrating user runs it: the output verified against
// PyTorch's, every named_modules() path of the eager model in the module
// paths, the heaviest nodes pointing at torchvision's own source files, the
// multiply-accumulates within 2% of forward hooks counting the eager modules
// (count_macs), nothing uncounted; and the migration diff of the same
// resnet18 as TorchScript and as a program. CMake only, with a Python whose
// torch has torch.export (tests/real/CMakeLists.txt): Bazel's Python is 1.13.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "tests/cli_test_util.h"
#include "tests/real/real_model_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::MatrixWork;
using ::graphprof::testing::RealModelPath;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;

struct Exported {
  std::string name;    // make_real_models.py's NAME without _export
  std::string source;  // the torchvision file its heaviest nodes are in
};

void PrintTo(const Exported& e, std::ostream* os) { *os << e.name; }

class ExportRealTest : public ::testing::TestWithParam<Exported> {};

TEST_P(ExportRealTest, ProfilesLikeItsTorchScript) {
  const std::string name = GetParam().name + "_export";
  const std::string out = TempDir("export_real_test") + "/" + name + ".json";
  const Result r = RunTool({"--model=" + RealModelPath(name + ".pt2"), "--warmup=0", "--runs=1", "--format=json",
                            "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  // Verified against the outputs PyTorch computed for the archive's inputs.
  EXPECT_EQ(j["verified"], true) << j["verification"].dump();
  // Every module of the eager model is a node's module path or one above it.
  std::set<std::string> paths;
  for (const nlohmann::json& node : j["nodes"]) {
    std::string m = node["module"];
    while (!m.empty()) {
      paths.insert(m);
      const size_t dot = m.rfind('.');
      m = dot == std::string::npos ? "" : m.substr(0, dot);
    }
  }
  std::ifstream modules(RealModelPath(name + ".modules.txt"));
  std::string line;
  int wanted = 0;
  while (std::getline(modules, line)) {
    const std::string module = line.substr(0, line.find('\t'));
    if (module.empty()) continue;
    ++wanted;
    EXPECT_TRUE(paths.count(module)) << name << ": no node in module " << module;
  }
  EXPECT_GT(wanted, 50) << "the eager model's named_modules()";
  // The ten heaviest nodes point at torchvision's sources (file:line), most
  // of them at the model's own file (mobilenet_v3_small's squeeze-excitation
  // pooling is in torchvision/ops/misc.py).
  std::vector<const nlohmann::json*> nodes;
  for (const nlohmann::json& node : j["nodes"]) {
    if (node["kind"] != "prim::Constant") nodes.push_back(&node);
  }
  std::sort(nodes.begin(), nodes.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return (*a)["mean_us"].get<double>() > (*b)["mean_us"].get<double>();
  });
  ASSERT_GE(nodes.size(), 10u);
  int in_model_file = 0;
  for (size_t i = 0; i < 10; ++i) {
    const std::string source = (*nodes[i])["source"];
    EXPECT_TRUE(absl::StartsWith(source, "torchvision/") && absl::StrContains(source, ".py:"))
        << (*nodes[i])["name"] << ": " << source;
    in_model_file += absl::StrContains(source, GetParam().source);
  }
  EXPECT_GE(in_model_file, 6) << "of the ten heaviest nodes in " << GetParam().source;
  // The work: within 2% of the hooks' count, nothing uncounted.
  std::ifstream macs_file(RealModelPath(name + ".macs.txt"));
  double expected = 0;
  ASSERT_TRUE(macs_file >> expected) << "no .macs.txt";
  double macs = 0;
  for (const nlohmann::json& node : j["nodes"]) {
    if (MatrixWork(node["kind"])) macs += node["flops"].get<double>() / 2;
  }
  EXPECT_NEAR(macs / expected, 1.0, 0.02) << name << ": graphprof " << macs << ", hooks " << expected;
  for (const nlohmann::json& u : j["uncounted"]) ADD_FAILURE() << name << ": uncounted " << u.dump();
}

INSTANTIATE_TEST_SUITE_P(Torchvision, ExportRealTest,
                         ::testing::Values(Exported{"resnet18", "torchvision/models/resnet.py:"},
                                           Exported{"mobilenet_v3_small", "torchvision/models/mobilenetv3.py:"},
                                           Exported{"vit_b_16", "torchvision/models/vision_transformer.py:"}),
                         [](const ::testing::TestParamInfo<Exported>& info) { return info.param.name; });

// The migration diff of resnet18 (the same weights and inputs, seeded in
// make_real_models.py) as TorchScript (A) and as its program (B): both
// outputs verified, at least 95% of the time paired by module and kind, and
// each convolution's module a row on both sides.
TEST(ExportRealTest, TheMigrationDiffPairsTheTimeByModule) {
  const std::string out = TempDir("export_real_test") + "/migration.json";
  const Result r = RunTool({"--model=" + RealModelPath("resnet18_script.pt"),
                            "--inputs=" + RealModelPath("resnet18_script.inputs.pt"),
                            "--compare_model=" + RealModelPath("resnet18_export.pt2"), "--warmup=1", "--runs=4",
                            "--ab_copies=1", "--format=json", "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["a"]["verified"], true) << j["a"]["verification"].dump();
  EXPECT_EQ(j["b"]["verified"], true) << j["b"]["verification"].dump();
  EXPECT_GE(j["matched_time_fraction"].get<double>(), 0.95);
  std::set<std::string> modules;
  for (const nlohmann::json& m : j["diff"]["modules"]) modules.insert(m["module"]);
  for (const char* m : {"conv1", "layer1.0.conv1", "layer4.1.conv2", "fc"}) {
    EXPECT_TRUE(modules.count(m)) << m << " is a module row of the diff";
  }
}

}  // namespace
}  // namespace graphprof
