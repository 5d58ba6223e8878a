// TrainingStep: what a profiled training step does around the graph's
// forward: find the parameters, make the loss, run backward, reset the
// gradients, and take one native step's gradients as a reference (compared
// by profilers/verification/verify.h's VerifyGradients).
//
//   loss      the sum of every floating-point tensor in the output (tuples,
//             lists and dicts searched), or output K alone (BackwardOptions::
//             loss_output), which must be a one-element floating tensor
//   params    the module's parameters (named_parameters of the object bound
//             to `self`) that require grad; graphs without `self` have none,
//             and their inputs are differentiated as given (requires_grad)
//   reset     gradients are set to None before every step (as
//             zero_grad(set_to_none=True)), outside any timing
#ifndef GRAPHPROF_PROFILERS_AUTOGRAD_TRAINING_STEP_H_
#define GRAPHPROF_PROFILERS_AUTOGRAD_TRAINING_STEP_H_

#include <torch/script.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profilers/report/report.h"

namespace graphprof {

struct BackwardOptions {
  bool enabled = false;
  int loss_output = -1;  // -1: the sum of all floating outputs; K: output K
};

struct NamedParameter {
  std::string name;    // "layer1.0.conv1.weight"
  std::string module;  // "layer1.0.conv1" ("" for the root module)
  at::Tensor value;
};

class TrainingStep {
 public:
  // `self`: the module object the graph runs on (GraphPlan::self()), if any.
  TrainingStep(const c10::optional<c10::IValue>& self, BackwardOptions options);

  const std::vector<NamedParameter>& parameters() const { return parameters_; }
  // Their names, in order ("layer1.0.conv1.weight").
  std::vector<std::string> ParameterNames() const;
  const BackwardOptions& options() const { return options_; }
  // "the sum of all floating outputs" / "output 1".
  std::string DescribeLoss() const;

  // The scalar to differentiate. Fails (one line) when it does not require
  // grad or output K is not a one-element floating tensor.
  absl::StatusOr<at::Tensor> Loss(const c10::IValue& output) const;
  // loss.backward(); exceptions become a Status.
  static absl::Status Backward(const at::Tensor& loss);
  void ResetGradients() const;

  // After a backward: gradient bytes of each module's own parameters, in
  // parameter order (modules without gradients left out).
  std::vector<ModuleBytes> GradientBytes() const;
  // After a backward: each parameter's gradient, copied (undefined: none).
  std::vector<at::Tensor> Gradients() const;

  // One native step as a reference: `forward` (module.forward, say) on
  // `inputs`, the same loss, backward; returns its gradients and puts the
  // parameters' gradients back as they were.
  absl::StatusOr<std::vector<at::Tensor>> ReferenceGradients(
      const std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)>& forward,
      const std::vector<c10::IValue>& inputs) const;

 private:
  BackwardOptions options_;
  std::vector<NamedParameter> parameters_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_AUTOGRAD_TRAINING_STEP_H_
