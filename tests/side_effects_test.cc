// Operators that act outside the process (interpreter/side_effects.h): a
// graph holding one is refused when planned, in one line naming the node,
// and nothing runs (no file is written); allowed, it runs. The list covers
// every operator of this LibTorch's registry that takes a file name or
// belongs to a distributed namespace (a new one fails this test). And the
// CLI: refused with exit 1, run with --allow_side_effects.
#include "interpreter/side_effects.h"

#include <gtest/gtest.h>
#include <torch/script.h>

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/prepared_graph.h"
#include "tests/cli_test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Exists;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Write;

// A module whose forward saves its input to `path` (aten::save, as
// torch.save in TorchScript), then returns relu(x).
torch::jit::Module SavingModule(const std::string& path) {
  torch::jit::Module m("Saves");
  m.define(absl::StrCat("def forward(self, x):\n    torch.save(x, \"", path, "\")\n    return torch.relu(x)\n"));
  return m;
}

absl::StatusOr<std::shared_ptr<const GraphPlan>> Plan(const torch::jit::Module& module, bool allow) {
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module);
  if (!prepared.ok()) return prepared.status();
  PlanOptions options;
  options.allow_side_effects = allow;
  return GraphPlan::Build(*std::move(prepared), options);
}

TEST(SideEffectsTest, ASavingGraphIsRefusedWhenPlannedAndRunsWhenAllowed) {
  const std::string path = Write("saved_by_the_model.pt", "") + ".out";
  absl::StatusOr<std::shared_ptr<const GraphPlan>> refused = Plan(SavingModule(path), false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(refused.status().message());
  for (const char* want : {"aten::save", "writes a file", "refused", "allow_side_effects"}) {
    EXPECT_TRUE(absl::StrContains(message, want)) << want << ": " << message;
  }
  EXPECT_FALSE(absl::StrContains(message, "\n")) << message;
  EXPECT_FALSE(Exists(path));

  absl::StatusOr<std::shared_ptr<const GraphPlan>> allowed = Plan(SavingModule(path), true);
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  Interpreter interpreter(*allowed);
  absl::StatusOr<c10::IValue> out = interpreter.Run({torch::ones({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Exists(path)) << "allowed, aten::save ran";
}

TEST(SideEffectsTest, TheListCoversEveryOperatorTakingAFileNameOrOfADistributedNamespace) {
  const std::set<std::string> file_arguments = {"filename", "file", "path", "f", "fname", "file_name"};
  int checked = 0;
  for (const std::shared_ptr<torch::jit::Operator>& op : torch::jit::getAllOperators()) {
    const c10::FunctionSchema& schema = op->schema();
    const std::string& name = schema.name();
    bool outside = absl::StartsWith(name, "c10d::") || absl::StartsWith(name, "_c10d_functional") ||
                   absl::StartsWith(name, "prim::rpc_") || absl::StartsWith(name, "_dtensor::");
    for (const c10::Argument& argument : schema.arguments()) {
      outside = outside || (file_arguments.count(argument.name()) > 0 &&
                            argument.type()->str().find("str") != std::string::npos);
    }
    if (!outside) continue;
    ++checked;
    EXPECT_FALSE(SideEffectOf(name).empty()) << name << " takes a file name or reaches another process: "
                                             << "add it to interpreter/side_effects.cc (or say why not)";
  }
  EXPECT_GE(checked, 2) << "aten::save and aten::from_file at least";
  EXPECT_EQ(SideEffectOf("aten::relu"), "");
  EXPECT_EQ(SideEffectOf("aten::warn"), "") << "warnings are not side effects";
  EXPECT_EQ(SideEffectOf("_c10d_functional::all_reduce"),
            "communicates with other processes (a torch.distributed collective)");
}

TEST(SideEffectsTest, TheCliRefusesASavingGraphInOneLineAndRunsItWhenAllowed) {
  const std::string path = Write("cli_saved.pt", "") + ".out";
  const std::string model = Write("saving_model.pt", "") + ".model.pt";
  SavingModule(path).save(model);
  ExpectOneLineError(RunTool({"--model=" + model, "--input=2:float32", "--warmup=1", "--runs=2"}), 1, "aten::save");
  EXPECT_FALSE(Exists(path)) << "nothing ran";
  const Result allowed =
      RunTool({"--model=" + model, "--input=2:float32", "--warmup=1", "--runs=2", "--allow_side_effects"});
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_TRUE(Exists(path));
}

}  // namespace
}  // namespace graphprof
