// torchvision's scripted detection models as users ship them (issue 41),
// made at build time by the Python torch and torchvision of the build (1.13
// / 0.14 under Bazel, 2.6 / 0.21 in the Debian 13 root): they call
// operators of torchvision's own library, create TorchScript class instances
// (ImageList), enter with statements (RetinaNet) and leave `targets` to its
// default. Without the library the model is refused in one line naming it;
// with it each profiles from the image list alone, its output identical to
// module.forward, its nodes under the model's own module paths.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "ir/operator_libraries.h"
#include "tests/cli_test_util.h"
#include "tests/real/real_model_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::RealModelPath;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;

std::string TorchvisionLibrary() {
  const std::string library = KnownLibraryFor("torchvision");
  EXPECT_FALSE(library.empty()) << "the Python torchvision's compiled extension (torchvision/_C*.so) not found";
  return library;
}

TEST(DetectionModelsTest, WithoutTheirLibraryTheErrorNamesItAndTheFlag) {
  const std::string library = TorchvisionLibrary();
  ASSERT_FALSE(library.empty());
  const std::string model = "--model=" + RealModelPath("fasterrcnn_script.pt");
  const std::string inputs = "--inputs=" + RealModelPath("fasterrcnn_script.inputs.pt");
  testing::ExpectOneLineError(RunTool({model, inputs}), 1,
                              "torchvision::nms is torchvision's: pass --load_library=" + library);
  testing::ExpectOneLineError(RunTool({model, inputs, "--load_library=/nonexistent/libops.so"}), 1,
                              "/nonexistent/libops.so: no such operator library");
}

struct Detection {
  const char* name;
  std::vector<const char*> parts;  // modules that must have nodes (their own or their submodules')
  std::vector<const char*> kinds;  // node kinds that must run
};

void PrintTo(const Detection& d, std::ostream* os) { *os << d.name; }

class DetectionModelsTest : public ::testing::TestWithParam<Detection> {};

TEST_P(DetectionModelsTest, RunVerifiedUnderTheirModulePaths) {
  const Detection& d = GetParam();
  const std::string library = TorchvisionLibrary();
  ASSERT_FALSE(library.empty());
  const std::string name = std::string(d.name) + "_script";
  Result r = RunTool({"--model=" + RealModelPath(name + ".pt"), "--inputs=" + RealModelPath(name + ".inputs.pt"),
                      "--load_library=" + library, "--warmup=0", "--runs=1", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verified"], true) << j["verification"];
  std::string notes;
  for (const nlohmann::json& note : j["notes"]) notes += note.get<std::string>() + "\n";
  EXPECT_TRUE(absl::StrContains(notes, "inputs not given took the method's defaults: targets=None")) << notes;

  // Module paths: each one a module of the model (named_modules() of the
  // loaded model, written by Python), and the model's parts among them;
  // source lines in torchvision's detection code.
  std::set<std::string> truth;
  std::ifstream modules(RealModelPath(name + ".modules.txt"));
  for (std::string line; std::getline(modules, line);) truth.insert(line.substr(0, line.find('\t')));
  ASSERT_GT(truth.size(), 10u);
  std::set<std::string> seen;
  std::set<std::string> kinds;
  int detection_sources = 0;
  for (const nlohmann::json& node : j["nodes"]) {
    const std::string path = node["module"].get<std::string>();
    EXPECT_TRUE(truth.count(path)) << "node " << node["id"] << " (" << node["kind"] << ") under '" << path
                                   << "', which is not a module of the model";
    seen.insert(path);
    kinds.insert(node["kind"].get<std::string>());
    detection_sources += absl::StrContains(node["source"].get<std::string>(), "torchvision/models/detection/");
  }
  // A part's nodes are under it or under one of its submodules.
  auto has_nodes = [&seen](const std::string& part) {
    for (const std::string& path : seen) {
      if (path == part || absl::StartsWith(path, part + ".")) return true;
    }
    return false;
  };
  for (const char* part : d.parts) EXPECT_TRUE(has_nodes(part)) << part << " has no nodes, nor its submodules";
  for (const char* kind : d.kinds) EXPECT_TRUE(kinds.count(kind)) << kind << " not among the profiled nodes";
  EXPECT_GT(detection_sources, 0) << "no node's source line is in torchvision/models/detection/";

  // Work: the library's operators are counted or listed as uncounted, never
  // silently zero.
  std::set<std::string> uncounted;
  for (const nlohmann::json& u : j["uncounted"]) uncounted.insert(u["kind"].get<std::string>());
  for (const nlohmann::json& node : j["nodes"]) {
    const std::string kind = node["kind"].get<std::string>();
    if (!absl::StartsWith(kind, "torchvision::")) continue;
    EXPECT_TRUE(node["flops"].get<double>() > 0 || uncounted.count(kind)) << kind;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, DetectionModelsTest,
    ::testing::Values(
        Detection{"fasterrcnn",
                  {"transform", "backbone.body", "backbone.fpn", "rpn.head", "rpn.anchor_generator",
                   "roi_heads.box_roi_pool", "roi_heads.box_head", "roi_heads.box_predictor"},
                  {"torchvision::nms", "torchvision::roi_align", "prim::CreateObject"}},
        Detection{"retinanet",
                  {"transform", "backbone.body", "backbone.fpn", "head.classification_head", "head.regression_head",
                   "anchor_generator"},
                  {"torchvision::nms", "prim::CreateObject", "prim::Enter", "prim::Exit"}},
        Detection{"ssdlite",
                  {"transform", "backbone.features", "head.classification_head", "head.regression_head",
                   "anchor_generator"},
                  {"torchvision::nms", "prim::CreateObject"}},
        Detection{"maskrcnn",
                  {"backbone.body", "rpn.head", "roi_heads.box_predictor", "roi_heads.mask_roi_pool",
                   "roi_heads.mask_head", "roi_heads.mask_predictor"},
                  {"torchvision::nms", "torchvision::roi_align", "prim::CreateObject"}},
        Detection{"keypointrcnn",
                  {"backbone.body", "rpn.head", "roi_heads.box_predictor", "roi_heads.keypoint_roi_pool",
                   "roi_heads.keypoint_head", "roi_heads.keypoint_predictor"},
                  {"torchvision::nms", "torchvision::roi_align", "prim::CreateObject"}}),
    [](const ::testing::TestParamInfo<Detection>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graphprof
