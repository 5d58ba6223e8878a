// profile_graph's way to a model source (sources/model_source.h): the
// flags naming the model (--model, --ir, --zoo) and shaping it (--method,
// --passes, --freeze, --device, --seed) turned into an opened source, and
// its inputs (--inputs, --input, else what the source supplies), completed
// by the source. Nothing here depends on the input format.
#ifndef GRAPHPROF_TOOLS_MODEL_SOURCE_H_
#define GRAPHPROF_TOOLS_MODEL_SOURCE_H_

#include <torch/script.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sources/model_source.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// The source --model / --ir / --zoo name (the zoo's resnet18 when none),
// checked against what the command will do with it (--ab's passes,
// --backward).
absl::StatusOr<std::unique_ptr<ModelSource>> OpenCliSource(const CliOptions& options);

// --compare_model's source (B of the migration diff).
absl::StatusOr<std::unique_ptr<ModelSource>> OpenCompareSource(const CliOptions& options);

// Inputs and the notes a report gets about them.
struct CliInputs {
  std::vector<c10::IValue> values;
  std::vector<std::string> notes;  // "inputs: the archive's example inputs", the defaults taken
};

// --inputs / --input, else what `supplier` supplies (the source itself, or
// --compare_model's program), moved to the source's device and completed by
// `source`.
absl::StatusOr<CliInputs> LoadCliInputs(const CliOptions& options, const ModelSource& source,
                                        const ModelSource* supplier = nullptr);

// --rtol/--atol as the sources take them.
Tolerance ToleranceOf(const CliOptions& options);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_MODEL_SOURCE_H_
