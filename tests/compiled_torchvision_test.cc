// Issue 57's real models: torchvision resnet18 and mobilenet_v3_small
// compiled at build time by graphprof.compile_aoti (tests/fixtures/compiled/
// make_packages.py, PyTorch 2.6 in the Debian 13 root), profiled per kernel
// by profile_graph: verified, the rows holding >= 97% of the run, module rows
// in the models' blocks, the heaviest rows on torchvision's source lines, the
// rows' FLOPs adding up to the eager program's profile; resnet18's
// TorchScript against its package pairing >= 95% of the time by module.
// Registered in the CMake build on LibTorch 2.6 with torchvision only
// (tests/CMakeLists.txt). Asserts nothing on time.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;

std::string Fixture(const std::string& file) { return "tests/compiled/" + file; }

nlohmann::json Profile(const std::vector<std::string>& args, const std::string& name) {
  const std::string out = TempDir("compiled_torchvision_test") + "/" + name + ".json";
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--format=json", "--output=" + out});
  const Result r = RunTool(all);
  EXPECT_EQ(r.code, 0) << name << ": " << r.err;
  return r.code == 0 ? nlohmann::json::parse(Slurp(out)) : nlohmann::json::object();
}

double Flops(const nlohmann::json& report) {
  double flops = 0;
  for (const nlohmann::json& node : report["nodes"]) flops += node["flops"].get<double>();
  return flops;
}

struct RealModel {
  const char* name;
  const char* block;   // a module the rows must reach
};

void PrintTo(const RealModel& m, std::ostream* os) { *os << m.name; }

class CompiledTorchvisionTest : public ::testing::TestWithParam<RealModel> {};

TEST_P(CompiledTorchvisionTest, AVerifiedReportPerKernelOnTheModelsModulesAndSources) {
  const RealModel& m = GetParam();
  const std::string name = m.name;
  const nlohmann::json package =
      Profile({"--model=" + Fixture(name + ".aoti.pt2"), "--warmup=1", "--runs=3"}, name + ".aoti");
  ASSERT_FALSE(package.empty());
  EXPECT_EQ(package["verified"], true) << package["verification"].dump();
  EXPECT_GE(package["coverage"].get<double>(), 0.97);
  // Module rows in the model's blocks; the rows with the most work on its
  // source lines (ranked by FLOPs, not by time).
  bool block = false;
  std::vector<std::pair<double, std::string>> by_work;
  for (const nlohmann::json& node : package["nodes"]) {
    block |= absl::StartsWith(node["module"].get<std::string>(), m.block);
    by_work.push_back({node["flops"].get<double>(), node["source"].get<std::string>()});
  }
  EXPECT_TRUE(block) << m.block;
  std::sort(by_work.rbegin(), by_work.rend());
  ASSERT_GE(by_work.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(absl::StrContains(by_work[k].second, "torchvision/")) << k << ": " << by_work[k].second;
  }
  // The rows' FLOPs: those of the eager program's profile, within 1%.
  const nlohmann::json program = Profile({"--model=" + Fixture(name + ".pt2"), "--warmup=0", "--runs=1"}, name);
  ASSERT_FALSE(program.empty());
  const double eager = Flops(program);
  ASSERT_GT(eager, 0);
  EXPECT_NEAR(Flops(package) / eager, 1.0, 0.01) << Flops(package) << " vs " << eager;
}

INSTANTIATE_TEST_SUITE_P(Torchvision, CompiledTorchvisionTest,
                         ::testing::Values(RealModel{"resnet18", "layer1.0"},
                                           RealModel{"mobilenet_v3_small", "features.3"}),
                         [](const ::testing::TestParamInfo<RealModel>& info) { return std::string(info.param.name); });

// resnet18 as TorchScript (A) against its package (B): every node of A pairs
// with the row computing it, B verified against A's output.
TEST(CompiledTorchvisionMigrationTest, TorchScriptAgainstThePackagePairsByModule) {
  const nlohmann::json j = Profile({"--model=" + Fixture("resnet18.pt"), "--inputs=" + Fixture("resnet18.inputs.pt"),
                                    "--compare_model=" + Fixture("resnet18.aoti.pt2"), "--warmup=1", "--runs=4"},
                                   "migration");
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j["a"]["verified"], true);
  EXPECT_EQ(j["b"]["verified"], true) << j["b"]["verification"].dump();
  EXPECT_GE(j["diff"]["matched_time_fraction"].get<double>(), 0.95);
  // Modules whose compiled time is partly in a kernel above them are not
  // called faster or slower; the root, the convolutions (extern calls of
  // their own) and fc are compared: 24 of 68 module rows with PyTorch 2.6.
  int compared = 0;
  std::set<std::string> compared_names;
  for (const nlohmann::json& module : j["diff"]["modules"]) {
    const std::string reason = module.value("reason", "");
    if (!reason.empty()) {
      EXPECT_EQ(module["verdict"], "inconclusive") << module.dump();
      continue;
    }
    ++compared;
    compared_names.insert(module["module"].get<std::string>());
  }
  EXPECT_GE(compared, 10) << j["diff"]["modules"].dump().substr(0, 800);
  for (const char* name : {"(root)", "conv1", "layer1.0.conv1", "fc"}) EXPECT_TRUE(compared_names.count(name)) << name;
}

}  // namespace
}  // namespace graphprof
