// profile_graph on models saved from Python: what a user runs first.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "ir/operator_libraries.h"
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

// torchvision's detection models call operators of torchvision's own
// library: without it the model does not load, and the error says which
// library and flag; with it the model runs, its output identical to
// module.forward, its nodes under the model's own module paths.
TEST(RealCliTest, DetectionModelsRunWithTheirOperatorLibrary) {
  const std::string library = KnownLibraryFor("torchvision");
  ASSERT_FALSE(library.empty()) << "python3-torchvision's compiled extension (torchvision/_C*.so) not found";
  const std::string model = "--model=" + RealModelPath("fasterrcnn_script.pt");
  const std::string inputs = "--inputs=" + RealModelPath("fasterrcnn_script.inputs.pt");
  testing::ExpectOneLineError(RunTool({model, inputs}), 1, "torchvision::nms is torchvision's: pass --load_library=" + library);
  testing::ExpectOneLineError(RunTool({model, inputs, "--load_library=/nonexistent/libops.so"}), 1,
                              "/nonexistent/libops.so: no such operator library");

  Result r = RunTool({model, inputs, "--load_library=" + library, "--warmup=0", "--runs=1", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verified"], true) << j["verification"];
  EXPECT_TRUE(absl::StrContains(Notes(j), "inputs not given took the method's defaults: targets=None")) << Notes(j);
  const std::set<std::string> kinds = Kinds(j);
  for (const char* kind : {"torchvision::nms", "torchvision::roi_align", "prim::CreateObject"}) {
    EXPECT_TRUE(kinds.count(kind)) << kind << " not among the profiled nodes";
  }
  // Module paths: each one a module of the model (named_modules() of the
  // loaded model, written by Python), and the model's parts among them.
  std::set<std::string> truth;
  std::ifstream modules(RealModelPath("fasterrcnn_script.modules.txt"));
  for (std::string line; std::getline(modules, line);) truth.insert(line.substr(0, line.find('\t')));
  std::set<std::string> seen;
  for (const nlohmann::json& node : j["nodes"]) {
    const std::string path = node["module"].get<std::string>();
    EXPECT_TRUE(truth.count(path)) << "node " << node["id"] << " (" << node["kind"] << ") under '" << path
                                   << "', which is not a module of the model";
    seen.insert(path);
  }
  for (const char* part : {"transform", "backbone.body", "backbone.fpn", "rpn.head", "rpn.anchor_generator",
                           "roi_heads.box_roi_pool", "roi_heads.box_head", "roi_heads.box_predictor"}) {
    EXPECT_TRUE(seen.count(part)) << part;
  }
}

}  // namespace
}  // namespace graphprof
