// The zoo: torchvision-compatible resnet18, deterministic weights, and every
// model survives save/load.
#include "tools/zoo/zoo.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "absl/strings/str_join.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::FixturePath;

std::map<std::string, std::string> ShapesOf(const torch::jit::Module& module) {
  std::map<std::string, std::string> shapes;
  auto add = [&](const std::string& name, const at::Tensor& t) {
    shapes[name] = t.dim() == 0 ? "scalar" : absl::StrJoin(t.sizes(), "x");
  };
  for (const auto& p : module.named_parameters()) add(p.name, p.value);
  for (const auto& b : module.named_buffers()) add(b.name, b.value);
  return shapes;
}

TEST(ZooTest, ResNet18HasTorchvisionParameterNamesAndShapes) {
  std::map<std::string, std::string> expected;
  std::ifstream in(FixturePath("resnet18_params.txt"));
  ASSERT_TRUE(in) << "fixture missing";
  std::string name, shape;
  while (in >> name >> shape) expected[name] = shape;
  ASSERT_EQ(expected.size(), 122u);  // 62 parameters + 60 buffers in torchvision 0.14
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(ShapesOf(model->module), expected);
}

TEST(ZooTest, WeightsDependOnlyOnTheSeed) {
  absl::StatusOr<ZooModel> a = MakeZooModel("mlp", 1);
  absl::StatusOr<ZooModel> b = MakeZooModel("mlp", 1);
  absl::StatusOr<ZooModel> c = MakeZooModel("mlp", 2);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  const at::Tensor wa = a->module.attr("fc1").toModule().attr("weight").toTensor();
  EXPECT_TRUE(wa.equal(b->module.attr("fc1").toModule().attr("weight").toTensor()));
  EXPECT_FALSE(wa.equal(c->module.attr("fc1").toModule().attr("weight").toTensor()));
}

TEST(ZooTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<ZooModel> m = MakeZooModel("resnet1000");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(m.status().message()).find("resnet18, mlp"), std::string::npos);
}

TEST(ZooTest, GcnEdgesIndexExistingNodes) {
  absl::StatusOr<ZooModel> m = MakeZooModel("gcn");
  ASSERT_TRUE(m.ok());
  std::vector<c10::IValue> inputs = m->ExampleInputs(3);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_LT(inputs[1].toTensor().max().item<int64_t>(), inputs[0].toTensor().size(0));
}

class ZooSaveLoadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooSaveLoadTest, SavedAndReloadedModelInterpretsIdentically) {
  absl::StatusOr<ZooModel> model = MakeZooModel(GetParam());
  ASSERT_TRUE(model.ok());
  const std::string path = testing::TempDir("zoo_test") + "/" + GetParam() + ".pt";
  model->module.save(path);
  absl::StatusOr<torch::jit::Module> loaded = LoadModule(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto plan = testing::PlanModule(*loaded);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  std::vector<c10::IValue> inputs = model->ExampleInputs(4);
  absl::StatusOr<c10::IValue> out = interpreter.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  std::string why;
  EXPECT_TRUE(IdenticalIValues(model->module.forward(inputs), *out, &why)) << why;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooSaveLoadTest, ::testing::ValuesIn(ZooNames()));

}  // namespace
}  // namespace graphprof
