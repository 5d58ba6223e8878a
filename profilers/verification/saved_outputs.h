// Outputs saved with a model (a torch.export program's reference outputs,
// written by graphprof.save_export) and the one rule every front end
// verifies a profiled output against them by:
//
//   * only for the inputs they were computed for (identical inputs); for
//     any other inputs there is no reference, and the plan says why;
//   * identical when this process's LibTorch is the version that computed
//     them, runs the same number of threads, and the caller gave no
//     tolerance (the same kernels summing in the same order);
//   * otherwise within rtol/atol: another version or thread count may sum in
//     another order, which moves float results by rounding.
//
// profile_graph (--model=m.pt2) and graphprof.profile (a program, or a path)
// both get their check from PlanSavedOutputsCheck, so they give one verdict
// on one program (tests/reference_check_test.cc: the rule at given versions
// and thread counts; python/tests/graphprof_compare_test.py: both front ends).
#ifndef GRAPHPROF_PROFILERS_VERIFICATION_SAVED_OUTPUTS_H_
#define GRAPHPROF_PROFILERS_VERIFICATION_SAVED_OUTPUTS_H_

#include <torch/script.h>

#include <string>
#include <vector>

#include "profilers/verification/reference_check.h"

namespace graphprof {

struct SavedOutputs {
  std::vector<c10::IValue> inputs;  // what they were computed for
  c10::IValue outputs;              // as the graph returns them
  std::string computed_by;          // "PyTorch 2.6.0's ep.module()"
  std::string saved_by;             // "graphprof.save_export"
  std::string torch_version;        // of the PyTorch that computed them ("2.6.0+debian")
  int threads = -1;                 // its intra-op threads; -1: not recorded
};

// What a verification against saved outputs will be for given inputs.
struct SavedOutputsCheck {
  bool possible = false;
  c10::IValue expected;  // the saved outputs, when possible
  OutputCheck check;     // identical, or within rtol/atol; its `reference` names them
  std::string why_not;   // when not possible
};

// The rule above, for `inputs` in this process (its LibTorch version and
// at::get_num_threads()). `rtol`/`atol` are the caller's tolerance;
// `tolerance_given`: the caller asked for it (then never identical).
SavedOutputsCheck PlanSavedOutputsCheck(const SavedOutputs& saved, const std::vector<c10::IValue>& inputs,
                                        double rtol, double atol, bool tolerance_given);

// The same rule for a given version and thread count (tests).
SavedOutputsCheck PlanSavedOutputsCheck(const SavedOutputs& saved, const std::vector<c10::IValue>& inputs,
                                        double rtol, double atol, bool tolerance_given,
                                        const std::string& this_version, int this_threads);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_VERIFICATION_SAVED_OUTPUTS_H_
