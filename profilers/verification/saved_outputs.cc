#include "profilers/verification/saved_outputs.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/ivalue_util.h"

namespace graphprof {
namespace {

std::string Threads(int threads) {
  if (threads < 0) return "threads not recorded";
  return absl::StrCat(threads, threads == 1 ? " thread" : " threads");
}

}  // namespace

SavedOutputsCheck PlanSavedOutputsCheck(const SavedOutputs& saved, const std::vector<c10::IValue>& inputs,
                                        double rtol, double atol, bool tolerance_given,
                                        const std::string& this_version, int this_threads) {
  SavedOutputsCheck plan;
  bool same_inputs = saved.inputs.size() == inputs.size();
  for (size_t i = 0; same_inputs && i < inputs.size(); ++i) same_inputs = IdenticalIValues(saved.inputs[i], inputs[i]);
  if (!same_inputs) {
    plan.why_not = absl::StrCat("the reference outputs saved with the model (", saved.saved_by, ") are for other inputs");
    return plan;
  }
  plan.possible = true;
  plan.expected = saved.outputs;
  const bool same_runtime = absl::StartsWith(saved.torch_version, this_version) && saved.threads == this_threads;
  plan.check.transformed = !same_runtime || tolerance_given;
  plan.check.float64_reference = false;
  plan.check.rtol = rtol;
  plan.check.atol = atol;
  std::string how;
  if (!same_runtime) {
    how = absl::StrCat("; here LibTorch ", this_version, ", ", Threads(this_threads), ": compared within rtol/atol");
  } else if (tolerance_given) {
    how = "; compared within the rtol/atol given";
  }
  plan.check.reference = absl::StrCat(saved.computed_by, " (", saved.saved_by, ", ", Threads(saved.threads), how, ")");
  return plan;
}

SavedOutputsCheck PlanSavedOutputsCheck(const SavedOutputs& saved, const std::vector<c10::IValue>& inputs,
                                        double rtol, double atol, bool tolerance_given) {
  return PlanSavedOutputsCheck(saved, inputs, rtol, atol, tolerance_given, TORCH_VERSION, at::get_num_threads());
}

}  // namespace graphprof
