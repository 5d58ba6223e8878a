// The Interpreter's extension API as a pass author meets it: stable
// arguments, checked reads of moved inputs, block hooks, kind handlers, kept
// values, partial environments, and the plan <-> original node mapping.
#include <gtest/gtest.h>

#include <map>

#include "absl/strings/match.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"
#include "tools/zoo/zoo.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectIdentical;
using ::graphprof::testing::NativeForward;
using ::graphprof::testing::PlanIr;
using ::graphprof::testing::PlanModule;

constexpr char kChain[] = R"IR(
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::add(%a, %x, %one)
  %c : Tensor = aten::neg(%b)
  return (%c)
)IR";

// Looks at every operator's inputs after the base handler ran them.
class ArgumentRecorder : public Interpreter {
 public:
  using Interpreter::Interpreter;
  std::vector<std::string> seen;

 protected:
  absl::Status RunOperator(const NodePlan& node) override {
    absl::Status status = Interpreter::RunOperator(node);  // inputs may be moved now
    std::string text = node.identity.kind + ":";
    for (const c10::IValue& arg : Arguments()) text += " " + DescribeIValue(arg);
    seen.push_back(text);
    return status;
  }
};

TEST(InterpreterApiTest, ArgumentsAreAStableCopyTakenBeforeTheNodeRan) {
  auto plan = PlanIr(kChain);
  ASSERT_NE(plan, nullptr);
  Interpreter::Options options;
  options.keep_arguments = true;
  ArgumentRecorder interpreter(plan, options);
  ASSERT_TRUE(interpreter.Run({torch::ones({2, 3})}).ok());
  EXPECT_EQ(interpreter.seen, (std::vector<std::string>{"aten::relu: f32[2,3]", "aten::add: f32[2,3] f32[2,3] int",
                                                         "aten::neg: f32[2,3]"}));
  // Without the option there are no arguments to see (and nothing is copied).
  ArgumentRecorder plain(plan);
  ASSERT_TRUE(plain.Run({torch::ones({2, 3})}).ok());
  EXPECT_EQ(plain.seen[0], "aten::relu:");
}

// Reads an input after the base handler moved it into the operator.
class LateReader : public Interpreter {
 public:
  using Interpreter::Interpreter;

 protected:
  absl::Status RunOperator(const NodePlan& node) override {
    absl::Status status = Interpreter::RunOperator(node);
    if (node.identity.kind == "aten::neg") (void)InputValue(node, 0);
    return status;
  }
};

TEST(InterpreterApiDeathTest, ReadingAMovedInputIsACheckedError) {
#ifdef NDEBUG
  GTEST_SKIP() << "the check exists in debug builds (fastbuild, asan)";
#else
  auto plan = PlanIr(kChain);
  ASSERT_NE(plan, nullptr);
  EXPECT_DEATH(
      {
        LateReader interpreter(plan);
        (void)interpreter.Run({torch::ones({2})});
      },
      "read after the input was moved into the node");
#endif
}

// Replaces control flow: every If runs its else-block, whatever the condition.
class AlwaysElse : public Interpreter {
 public:
  using Interpreter::Interpreter;
  int blocks = 0;

 protected:
  absl::Status RunBlock(const BlockPlan& block) override {
    ++blocks;
    return Interpreter::RunBlock(block);
  }
  absl::Status RunIf(const NodePlan& node) override {
    (void)TakeInput(node, 0);
    const BlockPlan& block = plan().blocks()[node.blocks[1]];
    absl::Status status = RunBlock(block);
    if (!status.ok()) return status;
    for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, TakeBlockResult(block, i));
    return absl::OkStatus();
  }
};

TEST(InterpreterApiTest, BlocksAreHooksToo) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %flag : bool, %n : int):
  %true : bool = prim::Constant[value=1]()
  %y : Tensor = prim::If(%flag)
    block0():
      %r : Tensor = aten::relu(%x)
      -> (%r)
    block1():
      %m : Tensor = aten::neg(%x)
      -> (%m)
  %z : Tensor = prim::Loop(%n, %true, %y)
    block0(%i : int, %h : Tensor):
      %h2 : Tensor = aten::mul(%h, %h)
      -> (%true, %h2)
  return (%z)
)IR");
  ASSERT_NE(plan, nullptr);
  AlwaysElse interpreter(plan);
  absl::StatusOr<c10::IValue> out = interpreter.Run({torch::tensor({2.0}), true, int64_t{3}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->toTensor().equal(torch::tensor({256.0}))) << "(-2)^8: the else branch ran";
  EXPECT_EQ(interpreter.blocks, 1 + 1 + 3) << "root, one If block, three loop iterations";
}

// The README's second example: a custom interpreter that replaces one op
// kind (exact GELU -> tanh approximation) and reports the output error.
// --- README example begins ---
absl::StatusOr<double> MaxErrorOfTanhGelu(const torch::jit::Module& module, const std::vector<c10::IValue>& inputs) {
  using namespace graphprof;
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module);
  if (!prepared.ok()) return prepared.status();
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
  if (!plan.ok()) return plan.status();

  Interpreter exact(*plan);
  Interpreter approximate(*plan);
  int replaced = 0;
  absl::Status set = approximate.SetKindHandler(
      c10::Symbol::fromQualString("aten::gelu"), [&](NodeContext& node) {
        ++replaced;
        node.SetOutput(0, at::gelu(node.TakeInput(0).toTensor(), "tanh"));
        return absl::OkStatus();
      });
  if (!set.ok()) return set;  // e.g. the model has no GELU

  absl::StatusOr<c10::IValue> reference = exact.Run(inputs);
  absl::StatusOr<c10::IValue> changed = approximate.Run(inputs);
  if (!reference.ok()) return reference.status();
  if (!changed.ok()) return changed.status();
  const IValueComparison c = CompareIValues(*reference, *changed, /*rtol=*/1e-3, /*atol=*/1e-4);
  std::cout << replaced << " GELU nodes replaced; max abs error " << c.max_abs_error << ", max rel error "
            << c.max_rel_error << (c.within_tolerance ? " (within" : " (NOT within") << " rtol 1e-3, atol 1e-4)\n";
  return c.max_abs_error;
}
// --- README example ends ---

TEST(InterpreterApiTest, KindHandlerReplacesOneOpKind) {
  absl::StatusOr<ZooModel> model = MakeZooModel("transformer");
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<c10::IValue> inputs = model->ExampleInputs(1);
  absl::StatusOr<double> error = MaxErrorOfTanhGelu(model->module, inputs);
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_GT(*error, 0) << "the approximation changes the output";
  EXPECT_LT(*error, 1e-2) << "but only a little";

  auto plan = PlanIr(kChain);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::Status missing = interpreter.SetKindHandler(c10::Symbol::fromQualString("aten::gelu"),
                                                    [](NodeContext&) { return absl::OkStatus(); });
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;
  // A handler can fall back to the default, and can be removed again.
  int relus = 0;
  const c10::Symbol relu = c10::Symbol::fromQualString("aten::relu");
  ASSERT_TRUE(interpreter
                  .SetKindHandler(relu,
                                  [&](NodeContext& node) {
                                    ++relus;
                                    EXPECT_EQ(DescribeIValue(node.input(0)), "f32[2]");
                                    return node.RunDefault();
                                  })
                  .ok());
  at::Tensor x = torch::tensor({-1.0, 2.0});
  ExpectIdentical(c10::IValue(-(x.relu() + x)), interpreter.Run({x}));
  EXPECT_EQ(relus, 1);
  ASSERT_TRUE(interpreter.SetKindHandler(relu, nullptr).ok());
  ASSERT_TRUE(interpreter.Run({x}).ok());
  EXPECT_EQ(relus, 1) << "removed";
}

TEST(InterpreterApiTest, KeptValuesAreReadableAfterTheRun) {
  const PlanOptions keep{/*garbage_collect_values=*/false};
  auto kept = PlanIr(kChain, "kept", keep);
  auto collected = PlanIr(kChain, "collected");
  ASSERT_NE(kept, nullptr);
  ASSERT_NE(collected, nullptr);
  const at::Tensor x = torch::tensor({-1.0, 2.0});
  for (const auto& plan : {kept, collected}) {
    Interpreter interpreter(plan);
    ExpectIdentical(c10::IValue(-(x.relu() + x)), interpreter.Run({x}));
    const torch::jit::Value* a = nullptr;  // %a = relu(x)
    for (const torch::jit::Node* node : plan->graph().nodes()) {
      if (node->kind() == c10::Symbol::fromQualString("aten::relu")) a = node->output();
    }
    ASSERT_NE(a, nullptr);
    absl::StatusOr<c10::IValue> value = interpreter.ValueOf(a);
    if (plan == kept) {
      ASSERT_TRUE(value.ok()) << value.status();
      EXPECT_TRUE(value->toTensor().equal(x.relu()));
    } else {
      EXPECT_EQ(value.status().code(), absl::StatusCode::kFailedPrecondition) << value.status();
      EXPECT_TRUE(absl::StrContains(value.status().message(), "garbage_collect_values")) << value.status();
    }
  }
}

TEST(InterpreterApiTest, PartialEnvironmentSkipsTheNodesItProvides) {
  // %bad would throw; giving its value skips it.
  auto plan = PlanIr(R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %bad : Tensor = graphprof_test::fail_if(%x, %true)
  %y : Tensor = aten::neg(%bad)
  return (%y)
)IR");
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  EXPECT_FALSE(interpreter.Run({torch::ones({2})}).ok());
  const torch::jit::Value* bad = nullptr;
  for (const torch::jit::Node* node : plan->graph().nodes()) {
    if (node->kind() == c10::Symbol::fromQualString("graphprof_test::fail_if")) bad = node->output();
  }
  ASSERT_NE(bad, nullptr);
  at::Tensor given = torch::full({2}, 3.0);
  ExpectIdentical(c10::IValue(torch::full({2}, -3.0)), interpreter.Run({torch::ones({2})}, {{bad, given}}));
  // The next plain run executes every node again.
  EXPECT_FALSE(interpreter.Run({torch::ones({2})}).ok());
  // Values from another graph are refused.
  auto other = PlanIr(kChain);
  absl::StatusOr<c10::IValue> foreign =
      interpreter.Run({torch::ones({2})}, {{other->graph().outputs()[0], given}});
  ASSERT_FALSE(foreign.ok());
  EXPECT_TRUE(absl::StrContains(foreign.status().message(), "not a value of")) << foreign.status();
}

TEST(InterpreterApiTest, PlanNodesMapToTheCallersOwnGraph) {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(kChain);
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<PreparedGraph> prepared = PrepareGraph(**graph, "mine");
  ASSERT_TRUE(prepared.ok());
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
  ASSERT_TRUE(plan.ok());
  int mapped = 0;
  for (const torch::jit::Node* original : (*graph)->nodes()) {
    const int id = (*plan)->NodeIdOf(original);
    ASSERT_GE(id, 0) << original->kind().toQualString();
    EXPECT_NE((*plan)->node(id).node, original) << "the plan runs a copy";
    EXPECT_EQ((*plan)->node(id).kind, original->kind());
    EXPECT_EQ((*plan)->OriginalNode(id), original);
    ++mapped;
  }
  EXPECT_EQ(mapped, 4);
  EXPECT_EQ((*plan)->NodeIdOf(nullptr), -1);

  // A module's method: the method graph's nodes map; inlined bodies have no original.
  absl::StatusOr<ZooModel> model = MakeZooModel("mlp");
  ASSERT_TRUE(model.ok());
  auto module_plan = PlanModule(model->module);
  ASSERT_NE(module_plan, nullptr);
  int with_original = 0;
  for (const NodePlan& node : module_plan->nodes()) with_original += module_plan->OriginalNode(node.id) != nullptr;
  EXPECT_GT(with_original, 0);
  EXPECT_LT(with_original, static_cast<int>(module_plan->nodes().size()));
}

TEST(InterpreterApiTest, SetAttrRunsAndMakesThePlanUnshareable) {
  torch::jit::Module module("Counter");
  module.register_attribute("count", c10::IntType::get(), int64_t{0});
  module.define(R"(
def forward(self, x: int) -> int:
    self.count = self.count + x
    return self.count
)");
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(plan->shareable());
  Interpreter interpreter(plan);
  ASSERT_TRUE(interpreter.Run({int64_t{2}}).ok());
  absl::StatusOr<c10::IValue> second = interpreter.Run({int64_t{3}});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->toInt(), 5);
  EXPECT_EQ(module.attr("count").toInt(), 5) << "the attribute of the module object was written";
  EXPECT_TRUE(PlanIr(kChain)->shareable());
}

}  // namespace
}  // namespace graphprof
