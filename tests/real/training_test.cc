// Training steps on models saved from Python: profiled forward + backward
// gives the same parameter gradients as the module's own forward +
// backward, and every autograd function the graph created is attributed to
// one of its nodes.
#include <gtest/gtest.h>

#include "profilers/autograd/training_step.h"
#include "profilers/verification/verify.h"
#include "profilers/profiler.h"
#include "tests/real/real_model_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::LoadRealModel;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::RealModel;

class RealTrainingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealTrainingTest, GradientsEqualNativeBackward) {
  RealModel model = LoadRealModel(GetParam());
  ASSERT_FALSE(model.name.empty());
  auto plan = PlanModule(model.module);
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.runs = 1;
  options.warmup = 0;
  options.backward.enabled = true;
  absl::StatusOr<Report> report = Profile(plan, model.inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();

  const TrainingStep training(plan->self(), options.backward);
  ASSERT_FALSE(training.parameters().empty());
  const std::vector<at::Tensor> ours = training.Gradients();
  auto native = [&](const std::vector<c10::IValue>& inputs) -> absl::StatusOr<c10::IValue> {
    return model.module.forward(inputs);
  };
  absl::StatusOr<std::vector<at::Tensor>> reference = training.ReferenceGradients(native, model.inputs);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const Verification v =
      CompareGradients(training.ParameterNames(), *reference, ours, 0, 0, "module.forward + backward");
  EXPECT_TRUE(v.identical) << v.detail << " (max abs error " << v.max_abs_error << ")";

  // Every parameter got a gradient, and the functions that produced them
  // came from the graph's nodes: each node with an autograd function has
  // backward time in the run.
  int64_t gradient_bytes = 0;
  for (const ModuleBytes& m : report->gradient_bytes) gradient_bytes += m.bytes;
  int64_t parameter_bytes = 0;
  for (const NamedParameter& p : training.parameters()) parameter_bytes += p.value.numel() * p.value.element_size();
  EXPECT_EQ(gradient_bytes, parameter_bytes);
  const int functions = report->FindMetric("backward_fns");
  ASSERT_GE(functions, 0);
  int64_t attributed = 0;
  for (const NodeRecord& node : report->nodes) {
    if (node.identity.parent < 0) attributed += node.metrics[functions].total[0];
  }
  EXPECT_GT(attributed, 0);
}

INSTANTIATE_TEST_SUITE_P(Real, RealTrainingTest,
                         ::testing::Values("resnet18_script", "resnet18_trace", "mobilenet_v2_script",
                                           "modulelist_script", "transformer_script", "lstm_script"));

}  // namespace
}  // namespace graphprof
