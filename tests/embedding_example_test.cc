// The README's embedding example, compiled and run: a compiler pass that
// checks its own effect with a custom Interpreter and two profiles.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tools/zoo/zoo.h"

// --- README example begins ---
#include <torch/csrc/jit/passes/fuse_relu.h>

#include <iostream>
#include <map>

#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"
#include "profilers/profiler.h"
#include "profilers/report/report_diff.h"

// A custom interpreter, torch.fx style: counts the operators it runs.
class OpCounter : public graphprof::Interpreter {
 public:
  using Interpreter::Interpreter;
  std::map<std::string, int> counts;

 protected:
  absl::Status RunOperator(const graphprof::NodePlan& node) override {
    ++counts[node.identity.kind];
    return Interpreter::RunOperator(node);
  }
};

// A pass (fuse add + relu into aten::_add_relu) that proves itself: same
// output, fewer ops, and where the time went, before vs after.
absl::StatusOr<graphprof::ReportDiff> FuseAddReluAndCompare(const torch::jit::Module& module,
                                                            const std::vector<c10::IValue>& inputs) {
  using namespace graphprof;
  absl::StatusOr<PreparedGraph> before = PrepareMethod(module);  // a copy, inlined
  if (!before.ok()) return before.status();
  PreparedGraph after = *before;
  after.graph = before->graph->copy();
  torch::jit::FuseAddRelu(after.graph);  // the pass under test

  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan_before = GraphPlan::Build(*before);
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan_after = GraphPlan::Build(after);
  if (!plan_before.ok()) return plan_before.status();
  if (!plan_after.ok()) return plan_after.status();

  OpCounter counter(*plan_after);
  absl::StatusOr<c10::IValue> fused = counter.Run(inputs);
  absl::StatusOr<c10::IValue> reference = Interpreter(*plan_before).Run(inputs);
  if (!fused.ok()) return fused.status();
  if (!reference.ok()) return reference.status();
  if (!IdenticalIValues(*reference, *fused)) return absl::InternalError("the pass changed the output");
  std::cout << "aten::_add_relu_ runs " << counter.counts["aten::_add_relu_"] << " times\n";

  ProfileOptions options;
  options.runs = 5;
  absl::StatusOr<Report> base = Profile(*plan_before, inputs, options);
  absl::StatusOr<Report> current = Profile(*plan_after, inputs, options);
  if (!base.ok()) return base.status();
  if (!current.ok()) return current.status();
  ReportDiff diff = DiffReports(*base, *current);
  std::cout << RenderDiff(diff, /*top=*/10);
  return diff;
}
// --- README example ends ---

namespace graphprof {
namespace {

TEST(EmbeddingExampleTest, FusionPassIsCheckedAndProfiled) {
  torch::NoGradGuard no_grad;
  absl::StatusOr<ZooModel> model = MakeZooModel("resnet18");
  ASSERT_TRUE(model.ok());
  testing::internal::CaptureStdout();
  absl::StatusOr<ReportDiff> diff = FuseAddReluAndCompare(model->module, model->ExampleInputs(0));
  const std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_TRUE(absl::StrContains(printed, "aten::_add_relu_ runs 8 times")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "graphprof diff")) << printed;
  // The 8 residual add_ + relu_ pairs became 8 fused nodes.
  int removed = 0, added = 0;
  for (const NodeDelta& d : diff->nodes) {
    removed += d.match == NodeDelta::Match::kRemoved;
    added += d.match == NodeDelta::Match::kAdded && d.kind == "aten::_add_relu_";
  }
  EXPECT_EQ(added, 8);
  EXPECT_EQ(removed, 16);
}

}  // namespace
}  // namespace graphprof
