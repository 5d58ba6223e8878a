// A C++ project that embeds graphprof through its installed CMake package
// (CMakeLists.txt beside this file): the README's embedding example, a
// compiler pass that checks its own effect, on a small module defined here.
// Built and run against `cmake --install`'s prefix by ctest's
// cmake_consumer_test; the block between the markers is docs/cpp.md's
// example verbatim (tests/readme_test.sh checks it).
#include <torch/script.h>

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

int main() {
  torch::NoGradGuard no_grad;
  torch::jit::Module module("Residual");
  module.define(R"(
def forward(self, x):
    y = torch.add(x, torch.sin(x))
    return torch.relu(y)
)");
  absl::StatusOr<graphprof::ReportDiff> diff = FuseAddReluAndCompare(module, {torch::randn({64, 64})});
  if (!diff.ok()) {
    std::cerr << "cmake_consumer: " << diff.status() << "\n";
    return 1;
  }
  int fused = 0;
  for (const graphprof::NodeDelta& d : diff->nodes) {
    fused += d.match == graphprof::NodeDelta::Match::kAdded && d.kind == "aten::_add_relu";
  }
  std::cout << "cmake_consumer: " << fused << " fused node(s)\n";
  return fused == 1 ? 0 : 1;
}
