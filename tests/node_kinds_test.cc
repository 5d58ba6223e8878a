// The node kinds LibTorch's own interpreter handles itself (instructions,
// not operators: torch/csrc/jit/runtime/interpreter/code_impl.h of 1.13 and
// 2.6) are each either run by graphprof or refused, and docs/cpp.md's table
// says which (issue 41: nothing refused by accident). A kind added to the
// list below and not to the table fails here; a refused kind is refused at
// plan time with its name.
#include <gtest/gtest.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/script.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "ir/prepared_graph.h"

namespace graphprof {
namespace {

// The kinds code_impl.h emits as instructions (or special-cases) in
// LibTorch 1.13 and 2.6.
constexpr const char* kInterpreterKinds[] = {
    "prim::Constant",      "prim::If",           "prim::Loop",           "prim::GetAttr",
    "prim::SetAttr",       "prim::CallMethod",   "prim::CallFunction",   "prim::CreateObject",
    "prim::Enter",         "prim::Exit",         "prim::ListConstruct",  "prim::ListUnpack",
    "prim::TupleConstruct", "prim::TupleUnpack", "prim::TupleSlice",     "prim::DictConstruct",
    "prim::isinstance",    "prim::RaiseException", "aten::warn",         "prim::fork",
    "aten::wait",          "prim::TupleIndex",   "prim::Param",          "prim::Drop",
    "prim::awaitable",     "prim::profile",      "prim::profile_ivalue", "prim::TypeCheck",
    "prim::RequiresGradCheck", "prim::BailOut",  "prim::BailoutTemplate", "prim::Guard",
    "prim::DifferentiableGraph", "prim::TensorExprGroup", "prim::FusionGroup", "prim::CudaFusionGroup",
    "prim::PythonOp",
};

std::string Docs() {
  std::ifstream in("docs/cpp.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NodeKindsTest, EveryInterpreterKindIsRunOrRefusedInTheDocs) {
  const std::string docs = Docs();
  const size_t table = docs.find("| kind | graphprof |", docs.find("## Node kinds"));
  ASSERT_NE(table, std::string::npos) << "docs/cpp.md has no node-kind table";
  const std::string section = docs.substr(table);
  for (const char* kind : kInterpreterKinds) {
    const size_t at = section.find(absl::StrCat("`", kind, "`"));
    ASSERT_NE(at, std::string::npos) << kind << " is neither listed as run nor as refused in docs/cpp.md";
    const size_t line_end = section.find('\n', at);
    const std::string line = section.substr(section.rfind('\n', at), line_end - section.rfind('\n', at));
    EXPECT_TRUE(absl::StrContains(line, "| runs") || absl::StrContains(line, "| refused") ||
                absl::StrContains(line, "| not a node"))
        << kind << ": " << line;
  }
}

// A kind the table calls refused is refused when the plan is built, naming it.
TEST(NodeKindsTest, RefusedKindsAreRefusedAtPlanTimeByName) {
  for (const char* kind :
       {"prim::Drop", "prim::PythonOp", "prim::awaitable", "prim::profile", "prim::profile_ivalue", "prim::TypeCheck",
        "prim::RequiresGradCheck", "prim::BailOut", "prim::BailoutTemplate", "prim::Guard", "prim::DifferentiableGraph",
        "prim::TensorExprGroup", "prim::FusionGroup", "prim::CudaFusionGroup"}) {
    auto graph = std::make_shared<torch::jit::Graph>();
    torch::jit::Value* x = graph->addInput("x");
    x->setType(c10::TensorType::get());
    torch::jit::Node* node = graph->create(c10::Symbol::fromQualString(kind), {x}, 1);
    graph->insertNode(node);
    node->output()->setType(c10::TensorType::get());
    graph->registerOutput(node->output());
    absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(graph, "kinds");
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*std::move(prepared));
    ASSERT_FALSE(plan.ok()) << kind;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented) << plan.status();
    EXPECT_TRUE(absl::StrContains(plan.status().message(), kind)) << plan.status();
  }
}

}  // namespace
}  // namespace graphprof
