// The Interpreter must reproduce module.forward exactly, fail cleanly, and
// expose its hooks.
#include "interpreter/interpreter.h"

#include <gtest/gtest.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/api/function_impl.h>

#include <map>

#include "absl/strings/match.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "tools/zoo/zoo.h"
#include "profilers/memory_tracker.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectIdentical;
using ::graphprof::testing::NativeForward;
using ::graphprof::testing::PlanIr;
using ::graphprof::testing::PlanModule;

class ZooEquivalenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooEquivalenceTest, InterpreterOutputIsIdenticalToForward) {
  absl::StatusOr<ZooModel> model = MakeZooModel(GetParam(), /*seed=*/7);
  ASSERT_TRUE(model.ok()) << model.status();
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  for (uint64_t seed : {1, 2}) {  // twice: the interpreter is reusable
    std::vector<c10::IValue> inputs = model->ExampleInputs(seed);
    c10::IValue expected = NativeForward(model->module, inputs);
    ExpectIdentical(expected, interpreter.Run(inputs));
  }
}

TEST_P(ZooEquivalenceTest, NotInlinedCallsAlsoMatch) {
  absl::StatusOr<ZooModel> model = MakeZooModel(GetParam(), 7);
  ASSERT_TRUE(model.ok());
  PrepareOptions options;
  options.inline_calls = false;
  auto plan = PlanModule(model->module, options);
  ASSERT_NE(plan, nullptr);
  std::vector<c10::IValue> inputs = model->ExampleInputs(3);
  Interpreter interpreter(plan);
  ExpectIdentical(NativeForward(model->module, inputs), interpreter.Run(inputs));
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooEquivalenceTest, ::testing::ValuesIn(ZooNames()));

// Counts the calls RunCall executes.
class CallCounter : public Interpreter {
 public:
  using Interpreter::Interpreter;
  int calls = 0;

 protected:
  absl::Status RunCall(const NodePlan& node) override {
    ++calls;
    return Interpreter::RunCall(node);
  }
};

TEST(InterpreterTest, NotInlinedGraphRunsCallsThroughTheCallHandler) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  PrepareOptions options;
  options.inline_calls = false;
  auto plan = PlanModule(model->module, options);
  ASSERT_NE(plan, nullptr);
  int call_nodes = 0;
  for (const NodePlan& node : plan->nodes()) call_nodes += node.family == NodeFamily::kCall;
  ASSERT_GT(call_nodes, 0);
  CallCounter interpreter(plan);
  std::vector<c10::IValue> inputs = model->ExampleInputs(2);
  ExpectIdentical(NativeForward(model->module, inputs), interpreter.Run(inputs));
  EXPECT_EQ(interpreter.calls, call_nodes) << "every call node ran through RunCall once";
}

TEST(InterpreterTest, AFailingCallNamesTheCallNode) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  PrepareOptions options;
  options.inline_calls = false;
  auto plan = PlanModule(model->module, options);
  ASSERT_NE(plan, nullptr);
  CallCounter interpreter(plan);
  absl::StatusOr<c10::IValue> bad = interpreter.Run({torch::randn({1, 4, 32, 32})});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "CallMethod")) << bad.status();
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "channels")) << bad.status();
  EXPECT_GE(interpreter.calls, 1);
  std::vector<c10::IValue> inputs = model->ExampleInputs(1);
  ExpectIdentical(NativeForward(model->module, inputs), interpreter.Run(inputs));  // still usable
}

TEST(InterpreterTest, PreparingDoesNotMutateTheModule) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  auto before = model->module.get_method("forward").graph()->toString();
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  PrepareOptions frozen;
  frozen.freeze = true;
  ASSERT_NE(PlanModule(model->module, frozen), nullptr);
  EXPECT_EQ(before, model->module.get_method("forward").graph()->toString());
  EXPECT_TRUE(absl::StrContains(before, "prim::CallMethod"));
}

TEST(InterpreterTest, FrozenGraphMatchesFrozenModule) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  PrepareOptions options;
  options.freeze = true;
  auto plan = PlanModule(model->module, options);
  ASSERT_NE(plan, nullptr);
  int get_attrs = 0;
  for (const NodePlan& node : plan->nodes()) get_attrs += node.identity.kind == "prim::GetAttr";
  EXPECT_EQ(get_attrs, 0) << "frozen graphs read weights from constants";
  torch::jit::Module frozen = *plan->prepared().module;
  std::vector<c10::IValue> inputs = model->ExampleInputs(5);
  Interpreter interpreter(plan);
  ExpectIdentical(NativeForward(frozen, inputs), interpreter.Run(inputs));
}

TEST(InterpreterTest, FreezingATrainingModuleIsRefused) {
  absl::StatusOr<ZooModel> model = MakeZooModel("mlp");
  ASSERT_TRUE(model.ok());
  model->module.train(true);
  PrepareOptions options;
  options.freeze = true;
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(model->module, options);
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(absl::StrContains(prepared.status().message(), "eval mode")) << prepared.status();
}

TEST(InterpreterTest, UnknownMethodIsNotFound) {
  absl::StatusOr<ZooModel> model = MakeZooModel("mlp");
  ASSERT_TRUE(model.ok());
  PrepareOptions options;
  options.method = "predict";
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(model->module, options);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(prepared.status().message(), "predict"));
}

TEST(InterpreterTest, RaisingModelSurfacesItsMessageAndStaysUsable) {
  absl::StatusOr<ZooModel> model = MakeZooModel("control_flow");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> bad = interpreter.Run({torch::ones({2, 3, 4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "control_flow expects a 2-D input"))
      << bad.status();
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "RaiseException")) << bad.status();
  std::vector<c10::IValue> inputs = model->ExampleInputs(1);
  ExpectIdentical(NativeForward(model->module, inputs), interpreter.Run(inputs));
}

TEST(InterpreterTest, FailingOperatorNamesTheNodeAndSource) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> bad = interpreter.Run({torch::randn({1, 4, 32, 32})});
  ASSERT_FALSE(bad.ok());
  const std::string message(bad.status().message());
  EXPECT_TRUE(absl::StrContains(message, "conv1/conv2d")) << message;
  EXPECT_TRUE(absl::StrContains(message, "Conv2d.forward:")) << message;
  EXPECT_TRUE(absl::StrContains(message, "channels")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  std::vector<c10::IValue> inputs = model->ExampleInputs(1);
  ExpectIdentical(NativeForward(model->module, inputs), interpreter.Run(inputs));
}

TEST(InterpreterTest, WrongInputCountAndTypeAreExplained) {
  absl::StatusOr<ZooModel> model = MakeZooModel("gcn");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> too_few = interpreter.Run({torch::randn({4, 64})});
  ASSERT_FALSE(too_few.ok());
  EXPECT_TRUE(absl::StrContains(too_few.status().message(), "takes 2 inputs")) << too_few.status();
  EXPECT_TRUE(absl::StrContains(too_few.status().message(), "edge_index")) << too_few.status();
  absl::StatusOr<c10::IValue> wrong_type = interpreter.Run({torch::randn({4, 64}), int64_t{3}});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_TRUE(absl::StrContains(wrong_type.status().message(), "input 2 (edge_index) must be Tensor"))
      << wrong_type.status();
}

TEST(InterpreterTest, UnsupportedNodeKindIsRejectedAtPlanTime) {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(R"IR(
graph(%x : Tensor):
  %y : Tensor = prim::GraphprofNoSuchOp(%x)
  return (%y)
)IR");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<PreparedGraph> prepared = PrepareGraph(**graph, "bad");
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(plan.status().message(), "prim::GraphprofNoSuchOp"))
      << plan.status();
}

// IR text can give a node any inputs, outputs and blocks; the handlers index
// them as the kind implies. These passed Build and then read out of bounds
// at run time (an absl::Span assertion, a vector past its end, a tuple
// element past its end: "unexpected tag 53"). Found while fuzzing the --ir
// path (tests/fuzz/ir_text_fuzzer plans graphs but does not run them).
TEST(InterpreterTest, MalformedNodesAreRejectedAtPlanTime) {
  const char* graphs[] = {
      // prim::If with one block; with no blocks; with a Tensor condition;
      // with blocks returning fewer values than it has outputs.
      "graph(%x : Tensor, %c : bool):\n  %y : Tensor = prim::If(%c)\n    block0():\n      -> (%x)\n  return (%y)\n",
      "graph(%x : Tensor, %c : bool):\n  %y : Tensor = prim::If(%c)\n  return (%y)\n",
      "graph(%x : Tensor):\n  %y : Tensor = prim::If(%x)\n    block0():\n      -> (%x)\n    block1():\n"
      "      -> (%x)\n  return (%y)\n",
      "graph(%x : Tensor, %c : bool):\n  %y : Tensor, %z : Tensor = prim::If(%c)\n    block0():\n      -> (%x)\n"
      "    block1():\n      -> (%x)\n  return (%y)\n",
      // prim::Loop without a condition; with a body short of parameters.
      "graph(%x : Tensor, %n : int):\n  %y : Tensor = prim::Loop(%n)\n    block0(%i : int):\n      -> (%x)\n"
      "  return (%y)\n",
      "graph(%x : Tensor, %n : int, %c : bool):\n  %y : Tensor = prim::Loop(%n, %c, %x)\n    block0(%i : int):\n"
      "      -> (%c)\n  return (%y)\n",
      // A key without a value; a slice ending before it begins.
      "graph(%x : Tensor):\n  %k : str = prim::Constant[value=\"a\"]()\n"
      "  %d : Dict(str, Tensor) = prim::DictConstruct(%k, %x, %k)\n  return (%d)\n",
      "graph(%x : Tensor):\n  %t : (Tensor, Tensor) = prim::TupleConstruct(%x, %x)\n"
      "  %s : () = prim::TupleSlice[beg=2, end=1](%t)\n  return (%s)\n",
  };
  for (const char* ir : graphs) {
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(ir);
    ASSERT_TRUE(graph.ok()) << graph.status() << "\n" << ir;
    absl::StatusOr<PreparedGraph> prepared = PrepareGraph(**graph, "malformed");
    ASSERT_TRUE(prepared.ok()) << prepared.status() << "\n" << ir;
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
    ASSERT_FALSE(plan.ok()) << ir;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument) << plan.status();
    EXPECT_TRUE(absl::StrContains(plan.status().message(), "malformed: prim::")) << plan.status();
  }
}

// A tuple slice's bounds are checked against the tuple that arrives.
TEST(InterpreterTest, TupleSlicePastTheTupleIsAnError) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor):
  %t : (Tensor, Tensor) = prim::TupleConstruct(%x, %x)
  %s : (Tensor, Tensor) = prim::TupleSlice[beg=0, end=5](%t)
  return (%s)
)IR");
  ASSERT_NE(plan, nullptr);
  Interpreter interpreter(plan);
  absl::StatusOr<c10::IValue> out = interpreter.Run({torch::ones({2})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "slice [0, 5) of a tuple of 2")) << out.status();
}

// Runs an IR graph natively (GraphFunction) and through the interpreter.
void ExpectIrMatchesNative(const std::string& ir, std::vector<c10::IValue> inputs) {
  auto plan = PlanIr(ir);
  ASSERT_NE(plan, nullptr);
  torch::jit::GraphFunction native("native", plan->prepared().graph->copy(), nullptr);
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  native.run(stack);
  ASSERT_EQ(stack.size(), 1u);
  Interpreter interpreter(plan);
  ExpectIdentical(stack[0], interpreter.Run(inputs));
}

TEST(InterpreterTest, ContainerNodesMatchNativeExecution) {
  // List/tuple/dict construction and unpacking, TupleSlice, isinstance,
  // ConstantChunk and a vararg operator (aten::format).
  ExpectIrMatchesNative(R"IR(
graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %list : Tensor[] = prim::ListConstruct(%x, %x)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%list)
  %c : Tensor = aten::add(%a, %b, %one)
  %tup : (Tensor, int, Tensor) = prim::TupleConstruct(%c, %n, %a)
  %sl : (int, Tensor) = prim::TupleSlice[beg=1, end=3](%tup)
  %m : int, %t : Tensor = prim::TupleUnpack(%sl)
  %key : str = prim::Constant[value="k"]()
  %d : Dict(str, Tensor) = prim::DictConstruct(%key, %t)
  %any : Any = prim::unchecked_cast(%n)
  %isint : bool = prim::isinstance[types=[int]](%any)
  %istensor : bool = prim::isinstance[types=[Tensor]](%any)
  %p : Tensor, %q : Tensor = prim::ConstantChunk[chunks=2, dim=0](%c)
  %fmt : str = prim::Constant[value="{}-{}"]()
  %s : str = aten::format(%fmt, %m, %isint)
  %out : (Dict(str, Tensor), bool, bool, Tensor, Tensor, str) = prim::TupleConstruct(%d, %isint, %istensor, %p, %q, %s)
  return (%out)
)IR",
                        {torch::arange(6.0), int64_t{4}});
}

TEST(InterpreterTest, LoopWithPermutedCarriedValuesMatchesNative) {
  // The body swaps its two carried values and counts down a while-style condition.
  ExpectIrMatchesNative(R"IR(
graph(%a : Tensor, %b : Tensor):
  %max : int = prim::Constant[value=5]()
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %x : Tensor, %y : Tensor = prim::Loop(%max, %true, %a, %b)
    block0(%i : int, %p : Tensor, %q : Tensor):
      %r : Tensor = aten::add(%p, %q, %one)
      %keep : bool = aten::lt(%i, %max)
      -> (%keep, %q, %r)
  %out : (Tensor, Tensor) = prim::TupleConstruct(%x, %y)
  return (%out)
)IR",
                        {torch::ones({2}), torch::full({2}, 2.0)});
}

TEST(InterpreterTest, ZeroTripLoopReturnsInitialValues) {
  ExpectIrMatchesNative(R"IR(
graph(%a : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %x : Tensor = prim::Loop(%n, %true, %a)
    block0(%i : int, %p : Tensor):
      %r : Tensor = aten::add(%p, %p, %one)
      -> (%true, %r)
  return (%x)
)IR",
                        {torch::ones({2}), int64_t{0}});
}

// A custom interpreter in the style of torch.fx: counts nodes per family and
// swaps aten::relu for aten::neg by overriding one handler.
class CountingInterpreter : public Interpreter {
 public:
  using Interpreter::Interpreter;
  std::map<NodeFamily, int> counts;

 protected:
  absl::Status RunNode(const NodePlan& node) override {
    ++counts[node.family];
    return Interpreter::RunNode(node);
  }
  absl::Status RunOperator(const NodePlan& node) override {
    if (node.identity.kind != "aten::relu") return Interpreter::RunOperator(node);
    SetOutput(node, 0, TakeInput(node, 0).toTensor().neg());
    return absl::OkStatus();
  }
};

TEST(InterpreterTest, SubclassesCanObserveAndReplaceHandlers) {
  auto plan = PlanIr(R"IR(
graph(%x : Tensor, %flag : bool):
  %y : Tensor = prim::If(%flag)
    block0():
      %r : Tensor = aten::relu(%x)
      -> (%r)
    block1():
      -> (%x)
  return (%y)
)IR");
  ASSERT_NE(plan, nullptr);
  CountingInterpreter interpreter(plan);
  absl::StatusOr<c10::IValue> out = interpreter.Run({torch::tensor({1.0, -2.0}), true});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->toTensor().equal(torch::tensor({-1.0, 2.0})));
  EXPECT_EQ(interpreter.counts[NodeFamily::kIf], 1);
  EXPECT_EQ(interpreter.counts[NodeFamily::kOperator], 1);
}

TEST(GraphPlanTest, NodeIdentityCarriesModulePathSourceAndNesting) {
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  auto plan = PlanModule(model->module);
  ASSERT_NE(plan, nullptr);
  bool found = false;
  for (const NodePlan& node : plan->nodes()) {
    EXPECT_EQ(node.identity.id, node.id);
    if (node.identity.module == "layer1.0.conv1" && node.identity.kind == "aten::conv2d") {
      found = true;
      EXPECT_EQ(node.identity.label, "layer1.0.conv1/conv2d");
      EXPECT_TRUE(absl::StartsWith(node.identity.schema, "aten::conv2d(")) << node.identity.schema;
      EXPECT_TRUE(absl::StrContains(node.identity.source, "Conv2d.forward:")) << node.identity.source;
    }
  }
  EXPECT_TRUE(found);

  absl::StatusOr<ZooModel> cf = MakeZooModel("control_flow");
  ASSERT_TRUE(cf.ok());
  auto cf_plan = PlanModule(cf->module);
  ASSERT_NE(cf_plan, nullptr);
  int nested = 0;
  for (const NodePlan& node : cf_plan->nodes()) {
    if (node.identity.parent < 0) {
      EXPECT_EQ(node.identity.depth, 0);
      continue;
    }
    ++nested;
    const NodePlan& parent = cf_plan->node(node.identity.parent);
    EXPECT_LT(parent.id, node.id) << "parents come first in execution order";
    EXPECT_TRUE(parent.family == NodeFamily::kIf || parent.family == NodeFamily::kLoop);
    EXPECT_EQ(node.identity.depth, parent.identity.depth + 1);
  }
  EXPECT_GT(nested, 10);
}

// Peak live bytes, measured by the same hook around native forward and the
// interpreter, must agree: the interpreter frees exactly where forward does.
int64_t PeakBytes(const std::function<void()>& run) {
  auto tracker = std::make_shared<MemoryTracker>();
  {
    ScopedMemoryTracking scope(tracker);
    run();
  }
  return tracker->peak_bytes();
}

TEST(InterpreterTest, PeakMemoryMatchesNativeForward) {
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  for (const std::string name : {"resnet18", "transformer", "gcn", "control_flow"}) {
    absl::StatusOr<ZooModel> model = MakeZooModel(name);
    ASSERT_TRUE(model.ok());
    auto plan = PlanModule(model->module);
    ASSERT_NE(plan, nullptr);
    Interpreter interpreter(plan);
    // Warm up both paths (the graph executor optimises on its first runs).
    for (int i = 0; i < 3; ++i) {
      NativeForward(model->module, model->ExampleInputs(1));
      ASSERT_TRUE(interpreter.Run(model->ExampleInputs(1)).ok());
    }
    // The caller keeps its inputs alive in both cases.
    const std::vector<c10::IValue> inputs = model->ExampleInputs(1);
    const int64_t native = PeakBytes([&] { NativeForward(model->module, inputs); });
    const int64_t ours = PeakBytes([&] { (void)interpreter.Run(inputs); });
    EXPECT_GT(native, 0) << name;
    EXPECT_EQ(ours, native) << name;
  }
}

}  // namespace
}  // namespace graphprof
