// profile_graph on models saved from Python: what a user runs first.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "tests/cli_test_util.h"
#include "tests/real/real_model_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::RealModelPath;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;

std::vector<std::string> Model(const std::string& name, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--model=" + RealModelPath(name + ".pt"),
                                   "--inputs=" + RealModelPath(name + ".inputs.pt"), "--warmup=1", "--runs=2",
                                   "--format=json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string Notes(const nlohmann::json& j) {
  std::string all;
  for (const nlohmann::json& note : j["notes"]) all += note.get<std::string>() + "\n";
  return all;
}

TEST(RealCliTest, TrainingModeModelsAreNoted) {
  Result r = RunTool(Model("modulelist_trainmode", {}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(Notes(nlohmann::json::parse(r.out)), "the module was saved in training mode; profiled in eval mode")) << r.out;
  Result eval = RunTool(Model("modulelist_script", {}));
  ASSERT_EQ(eval.code, 0) << eval.err;
  EXPECT_FALSE(absl::StrContains(Notes(nlohmann::json::parse(eval.out)), "training mode"));
}

// A pass that changes no parameter leaves them trainable: backward after it
// has gradients, and they are compared.
TEST(RealCliTest, BackwardAfterAPassComparesGradients) {
  for (const char* pass : {"--passes=cse", "--passes=dce"}) {
    Result r = RunTool(Model("modulelist_script", {"--backward", pass}));
    ASSERT_EQ(r.code, 0) << pass << ": " << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["verified"], true) << pass;
    ASSERT_TRUE(j["gradient_verification"].is_object()) << pass << ": gradients were compared";
    EXPECT_FALSE(absl::StrContains(Notes(j), "gradients not verified")) << Notes(j);
    EXPECT_GT(j["gradient_bytes"].size(), 0u) << pass;
  }
  Result ab = RunTool(Model("modulelist_script", {"--backward", "--ab=cse"}));
  EXPECT_EQ(ab.code, 0) << ab.err;
}

TEST(RealCliTest, WarnAndForkModelsProfile) {
  Result warn = RunTool(Model("googlenet_script", {}));
  ASSERT_EQ(warn.code, 0) << warn.err;
  const nlohmann::json j = nlohmann::json::parse(warn.out);
  EXPECT_EQ(j["verified"], true);
  EXPECT_TRUE(absl::StrContains(Notes(j), "warning raised by node")) << Notes(j);
  for (const char* fork : {"forks_script", "forks_trace"}) {
    Result r = RunTool(Model(fork, {}));
    ASSERT_EQ(r.code, 0) << fork << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["verified"], true) << fork;
  }
}

std::set<std::string> Kinds(const nlohmann::json& j) {
  std::set<std::string> kinds;
  for (const nlohmann::json& node : j["nodes"]) kinds.insert(node["kind"].get<std::string>());
  return kinds;
}

// What shipped scripted models do beyond tensors in, tensors out (issue 41):
// a Dict[str, Tensor] read from a torch.save file, an Optional argument left
// to its default, a TorchScript class, fork/wait and a with statement.
TEST(RealCliTest, DictInputsDefaultsScriptClassesAndWithStatementsProfile) {
  Result r = RunTool(Model("shipped_script", {}));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verified"], true) << r.out;
  EXPECT_TRUE(absl::StrContains(Notes(j), "inputs not given took the method's defaults: scale=None")) << Notes(j);
  const std::set<std::string> kinds = Kinds(j);
  for (const char* kind : {"prim::CreateObject", "prim::SetAttr", "prim::Enter", "prim::Exit", "prim::fork"}) {
    EXPECT_TRUE(kinds.count(kind)) << kind << " not among the profiled nodes";
  }
}

}  // namespace
}  // namespace graphprof
