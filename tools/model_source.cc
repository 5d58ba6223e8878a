#include "tools/model_source.h"

#include <torch/cuda.h>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/input_spec.h"
#include "ir/loader.h"
#include "tools/cli_option_names.h"

namespace graphprof::cli {
namespace {

absl::StatusOr<c10::Device> ParseDevice(const std::string& name) {
  try {
    c10::Device device(name);
    if (device.is_cuda() && !torch::cuda::is_available()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--device=", name, ": this LibTorch has no CUDA support or sees no GPU (build with LIBTORCH_DIR "
          "pointing at a CUDA LibTorch)"));
    }
    return device;
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("--device=", name), e);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ModelSource>> OpenCliSource(const CliOptions& options) {
  absl::StatusOr<c10::Device> device = ParseDevice(options.device);
  if (!device.ok()) return device.status();
  SourceRequest request;
  request.method = options.method;
  request.freeze = options.freeze;
  request.passes = options.passes;
  request.device = *device;
  request.seed = options.seed;
  request.passes_later = !options.ab.empty() && options.ab != "none";
  request.backward = options.backward;
  request.names = CliOptionNames();
  if (!options.model.empty()) return OpenModelSource(options.model, request);
  if (!options.ir.empty()) return OpenModelSource(options.ir, request, "ir");
  return OpenModelSource(options.zoo.empty() ? "resnet18" : options.zoo, request, "zoo");
}

absl::StatusOr<std::unique_ptr<ModelSource>> OpenCompareSource(const CliOptions& options) {
  SourceRequest request;
  request.names = CliOptionNames();
  return OpenModelSource(options.compare_model, request);
}

Tolerance ToleranceOf(const CliOptions& options) {
  Tolerance tolerance;
  tolerance.rtol = options.rtol;
  tolerance.atol = options.atol;
  tolerance.given = options.tolerance_given;
  return tolerance;
}

absl::StatusOr<CliInputs> LoadCliInputs(const CliOptions& options, const ModelSource& source,
                                        const ModelSource* supplier) {
  CliInputs inputs;
  if (!options.inputs.empty()) {
    absl::StatusOr<std::vector<c10::IValue>> loaded = LoadInputs(options.inputs);
    if (!loaded.ok()) return loaded.status();
    inputs.values = *std::move(loaded);
  } else if (!options.input.empty()) {
    absl::StatusOr<std::vector<InputSpec>> specs = ParseInputSpecs(options.input);
    if (!specs.ok()) return Annotate(specs.status(), "--input");
    absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(*specs, options.seed);
    if (!made.ok()) return Annotate(made.status(), "--input");
    inputs.values = *std::move(made);
  } else {
    const ModelSource& from = supplier != nullptr ? *supplier : source;
    absl::StatusOr<SuppliedInputs> supplied = from.SupplyInputs(options.seed);
    if (absl::IsNotFound(supplied.status()) && supplier != nullptr) supplied = source.SupplyInputs(options.seed);
    if (absl::IsNotFound(supplied.status())) {
      return absl::InvalidArgumentError(absl::StrCat(
          source.name(), " needs inputs for (", source.prepared().DescribeUserInputs(),
          "): pass --input=SHAPE:DTYPE,... (e.g. 1x3x224x224:float32) or --inputs=FILE.pt"));
    }
    if (!supplied.ok()) return supplied.status();
    inputs.values = std::move(supplied->values);
    if (!supplied->note.empty()) inputs.notes.push_back(absl::StrCat("inputs: ", supplied->note));
  }
  if (!source.device().is_cpu()) {
    try {
      for (c10::IValue& input : inputs.values) {
        if (input.isTensor()) input = input.toTensor().to(source.device());
      }
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kFailedPrecondition, "moving the inputs", e);
    }
  }
  std::string defaulted;
  absl::StatusOr<std::vector<c10::IValue>> completed = source.CompleteInputs(std::move(inputs.values), &defaulted);
  if (!completed.ok()) return completed.status();
  inputs.values = *std::move(completed);
  if (!defaulted.empty()) inputs.notes.push_back(absl::StrCat("inputs not given took the method's defaults: ", defaulted));
  return inputs;
}

}  // namespace graphprof::cli
