// Real PyTorch-saved models (tests/fixtures, made by make_fixtures.py with
// Debian's python3-torch): the interpreter must match their forward exactly.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::FixturePath;
using ::graphprof::testing::NativeForward;
using ::graphprof::testing::PlanModule;

struct Fixture {
  torch::jit::Module module;
  std::vector<c10::IValue> inputs;
};

Fixture LoadFixture(const std::string& name) {
  absl::StatusOr<torch::jit::Module> module = LoadModule(FixturePath(name + ".pt"));
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadInputs(FixturePath(name + ".inputs.pt"));
  EXPECT_TRUE(inputs.ok()) << inputs.status();
  return Fixture{*module, *inputs};
}

void ExpectMatches(Fixture& fixture, const std::vector<c10::IValue>& inputs) {
  auto plan = PlanModule(fixture.module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  c10::IValue expected = NativeForward(fixture.module, inputs);
  absl::StatusOr<c10::IValue> actual = interpreter.Run(inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::string why;
  EXPECT_TRUE(IdenticalIValues(expected, *actual, &why)) << why;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, InterpreterMatchesForward) {
  Fixture fixture = LoadFixture(GetParam());
  ExpectMatches(fixture, fixture.inputs);
}

INSTANTIATE_TEST_SUITE_P(Saved, FixtureTest,
                         ::testing::Values("traced_convnet", "modulelist_loop", "lstm", "raises"));

TEST(FixtureTest, ScriptedControlFlowMatchesForEveryPath) {
  Fixture fixture = LoadFixture("scripted_control");
  // steps = 0 skips the loop (acc stays None); larger values take both branches.
  for (int64_t steps : {0, 1, 3, 6}) {
    std::vector<c10::IValue> inputs = fixture.inputs;
    inputs.emplace_back(steps);
    ExpectMatches(fixture, inputs);
  }
}

TEST(FixtureTest, ModelRaisingValueErrorGivesItsMessage) {
  Fixture fixture = LoadFixture("raises");
  auto plan = PlanModule(fixture.module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> out = interpreter.Run({torch::ones({2, 2, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "ValueError: Raises expects a 2-D input"))
      << out.status();
  EXPECT_TRUE(interpreter.Run(fixture.inputs).ok());
}

TEST(FixtureTest, TracedModuleKeepsModulePaths) {
  Fixture fixture = LoadFixture("traced_convnet");
  auto plan = PlanModule(fixture.module);
  ASSERT_NE(plan, nullptr);
  bool conv = false, fc = false;
  for (const NodePlan& node : plan->nodes()) {
    conv = conv || (node.identity.module == "conv" && node.identity.kind == "aten::_convolution");
    fc = fc || (node.identity.module == "fc" && node.identity.kind == "aten::linear");
  }
  EXPECT_TRUE(conv);
  EXPECT_TRUE(fc);
}

}  // namespace
}  // namespace graphprof
