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
#include "ir/export/exported_program.h"
#include "ir/prepared_graph.h"
#include "tools/input_spec.h"
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
  // Unset for a torch.export program, which LibTorch cannot run itself: it
  // is checked against the outputs PyTorch computed (ExportVerification).
  std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)> run_native;
  // A torch.export program (--model=m.pt2): what it declares and carries
  // (its graph is `prepared`).
  std::shared_ptr<const ExportedProgram> exported;
  // Which inputs LoadModelInputs took when none were given ("the archive's
  // example inputs"); "" otherwise.
  std::string inputs_from;
  // The method's arguments LoadModelInputs filled with their defaults
  // ("targets=None"); "" when every input was given.
  std::string defaulted_inputs;
};

absl::StatusOr<ModelSource> LoadModelSource(const CliOptions& options);

// How a torch.export program's output is verified for `inputs`: against
// graphprof.save_export's reference outputs when `inputs` are the ones they
// were computed for (identical when this LibTorch's version and threads are
// theirs, else within the tolerance), else not at all, and why.
struct ExportVerification {
  bool possible = false;
  bool exact = false;       // same LibTorch version and thread count
  c10::IValue expected;     // the reference outputs, as the graph returns them
  std::string reference;    // "PyTorch 2.6.0's ep.module() (graphprof.save_export, 1 thread)"
  std::string why_not;      // why not, when not possible
};
ExportVerification VerifyExport(const ExportedProgram& program, const std::vector<c10::IValue>& inputs);

// The inputs from --input / --inputs / the zoo defaults / a torch.export
// program's own (graphprof.save_export's reference inputs, else its example
// inputs; source.inputs_from says which), checked against what a program
// declares.
absl::StatusOr<std::vector<c10::IValue>> LoadModelInputs(const CliOptions& options, ModelSource& source);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_MODEL_SOURCE_H_
