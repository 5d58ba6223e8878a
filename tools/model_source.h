// What profile_graph profiles: a module method or an IR graph, prepared, with
// its inputs and a way to run it natively for --verify.
#ifndef GRAPHPROF_TOOLS_MODEL_SOURCE_H_
#define GRAPHPROF_TOOLS_MODEL_SOURCE_H_

#include <torch/script.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/input_spec.h"
#include "ir/prepared_graph.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

struct ModelSource {
  std::string display_name;  // "zoo:resnet18", "model.pt", "model.pt:predict", "graph.ir"
  PreparedGraph prepared;
  std::optional<torch::jit::Module> module;  // the module as loaded (sizes, A/B, verify)
  bool transformed = false;                  // passes (freeze included) were applied
  bool saved_in_training = false;            // the file's module was in training mode (now .eval())
  std::vector<InputSpec> default_inputs;     // zoo models only
  c10::Device device = c10::kCPU;            // where the module and inputs live
  // Runs the module as loaded (its method) or the IR graph natively.
  std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)> run_native;
};

absl::StatusOr<ModelSource> LoadModelSource(const CliOptions& options);

// The inputs from --input / --inputs / the zoo defaults.
absl::StatusOr<std::vector<c10::IValue>> LoadModelInputs(const CliOptions& options, const ModelSource& source);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_MODEL_SOURCE_H_
