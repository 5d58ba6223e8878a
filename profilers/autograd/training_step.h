// TrainingStep: what a profiled training step does around the graph's
// forward: find the parameters, make the loss, run backward, reset the
// gradients, and compare gradients with a reference.
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

  // Compares gradients parameter by parameter: identical, else within
  // rtol/atol; the detail names the first parameter that differs.
  Verification CompareGradients(const std::vector<at::Tensor>& expected, const std::vector<at::Tensor>& actual,
                                double rtol, double atol, std::string reference) const;

 private:
  BackwardOptions options_;
  std::vector<NamedParameter> parameters_;
};

// The gradients the last profiled step left on `profiled_self`'s parameters
// against one native step of `forward`, whose module is `native_self`: the
// module as given, which after passes is not the plan's clone (same
// parameter names and order; --backward refuses passes that change them).
// Nothing compared (no parameter got a gradient) is not a pass: the report
// gets a note instead (SetGradientVerification).
absl::StatusOr<Verification> VerifyGradients(
    const c10::optional<c10::IValue>& profiled_self, const c10::optional<c10::IValue>& native_self,
    const BackwardOptions& options,
    const std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)>& forward,
    const std::vector<c10::IValue>& inputs, double rtol, double atol, std::string reference);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_AUTOGRAD_TRAINING_STEP_H_
