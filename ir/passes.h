// Graph passes by name: LibTorch's own passes, the ones people apply to a
// TorchScript model before deploying it, so that a profile can be taken
// before and after them (see profilers/before_after.h).
//
// A Pass transforms a module in place (a module pass may replace it, as
// freeze does); graph passes run on the method's graph. ApplyPasses works on
// a clone: the module passed in is never changed. Passes LibTorch defines
// only for frozen graphs fail with a clear message on a module that was not
// frozen first. Passes that create nodes without source or call-stack
// information (the MKLDNN conversion, the linear transpose) have it restored
// from the nodes they replaced, so module paths survive them.
#ifndef GRAPHPROF_IR_PASSES_H_
#define GRAPHPROF_IR_PASSES_H_

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

struct Pass {
  std::string name;         // "freeze", "optimize_for_inference", ...
  std::string description;  // one line
  // Transforms `module` (its `method`) in place or replaces it.
  std::function<absl::Status(torch::jit::Module& module, const std::string& method)> apply;
  // Parameters become constants or change (freeze, optimize_for_inference,
  // folds): training steps (--backward) after it have nothing to compare.
  bool changes_parameters = false;
};

// LibTorch 1.13's passes graphprof knows, in the order --list_passes prints them.
const std::vector<Pass>& BuiltinPasses();

// "freeze,optimize_for_inference" -> the passes; unknown names fail with the
// list of known ones.
absl::StatusOr<std::vector<Pass>> ParsePasses(absl::string_view comma_separated);

// A custom pass over the method's graph (the graph as stored in the module:
// calls not yet inlined unless the module was frozen).
Pass GraphPass(std::string name, std::function<void(std::shared_ptr<torch::jit::Graph>&)> fn);
Pass GraphPass(std::string name, std::string description,
               std::function<void(std::shared_ptr<torch::jit::Graph>&)> fn);

// Applies `passes` in order to a clone of `module`. Fails with the pass's
// name on the first failure.
absl::StatusOr<torch::jit::Module> ApplyPasses(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                               const std::string& method = "forward");

// "freeze -> optimize_for_inference".
std::string DescribePasses(const std::vector<Pass>& passes);

// OK when MKLDNN tensors work in this process (optimize_for_inference and
// convert_to_mkldnn need them), else FailedPrecondition saying why: probed
// once, in a child process, since LibTorch 2.6 with Debian 13's oneDNN 3.7
// dies with SIGFPE in an MKLDNN add on some virtual machines. Those passes
// refuse to run with this status.
absl::Status MkldnnUsable();

}  // namespace graphprof

#endif  // GRAPHPROF_IR_PASSES_H_
