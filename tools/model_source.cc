#include "tools/model_source.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/cuda.h>

#include <ATen/Parallel.h>
#include <torch/version.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/passes.h"
#include "common/status_util.h"
#include "tools/zoo/zoo.h"

namespace graphprof::cli {
namespace {

absl::StatusOr<c10::IValue> RunMethod(torch::jit::Module module, const std::string& method,
                                      const std::vector<c10::IValue>& inputs) {
  try {
    return module.get_method(method)(inputs);
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", method), e);
  }
}

absl::StatusOr<ModelSource> FromModule(torch::jit::Module module, std::string display_name,
                                       const CliOptions& options) {
  PrepareOptions prepare;
  prepare.method = options.method;
  prepare.freeze = options.freeze;
  if (!options.passes.empty()) {
    absl::StatusOr<std::vector<Pass>> passes = ParsePasses(options.passes);
    if (!passes.ok()) return passes.status();
    prepare.passes = *std::move(passes);
  }
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module, prepare);
  if (!prepared.ok()) return Annotate(prepared.status(), display_name);
  ModelSource source;
  source.display_name = options.method == "forward" ? display_name : absl::StrCat(display_name, ":", options.method);
  source.module = module;
  source.transformed = !prepared->passes.empty();
  // The native reference is always the module as loaded.
  const std::string method = options.method;
  source.run_native = [module, method](const std::vector<c10::IValue>& inputs) {
    return RunMethod(module, method, inputs);
  };
  source.prepared = *std::move(prepared);
  return source;
}

}  // namespace

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

absl::Status MoveModule(torch::jit::Module& module, const c10::Device& device) {
  if (device.is_cpu()) return absl::OkStatus();
  try {
    module.to(device);
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kFailedPrecondition, absl::StrCat("moving the module to ", device.str()), e);
  }
}

namespace {

absl::StatusOr<ModelSource> FromExport(const CliOptions& options) {
  if (!options.passes.empty() || options.freeze || (!options.ab.empty() && options.ab != "none")) {
    return absl::InvalidArgumentError(absl::StrCat(options.model, ": --passes, --freeze and --ab with passes apply to "
                                                   "TorchScript modules, not to torch.export programs (--ab=none: an A/A)"));
  }
  if (options.backward) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.model, ": --backward needs a TorchScript module (a torch.export program's weights are constants here)"));
  }
  if (options.method != "forward") {
    return absl::InvalidArgumentError(absl::StrCat(options.model, ": a torch.export program has no methods (--method)"));
  }
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(options.model);
  if (!program.ok()) return program.status();
  ModelSource source;
  source.display_name = options.model;
  source.prepared = std::move(program->prepared);
  source.exported = std::make_shared<const ExportedProgram>(*std::move(program));
  return source;
}

}  // namespace

ExportVerification VerifyExport(const ExportedProgram& program, const std::vector<c10::IValue>& inputs) {
  ExportVerification v;
  if (!program.reference.has_value()) {
    v.why_not = "the archive has no reference outputs (save the program with graphprof.save_export)";
    return v;
  }
  const ExportReference& ref = *program.reference;
  bool same_inputs = ref.inputs.size() == inputs.size();
  for (size_t i = 0; same_inputs && i < inputs.size(); ++i) same_inputs = IdenticalIValues(ref.inputs[i], inputs[i]);
  if (!same_inputs) {
    v.why_not = "the reference outputs in the archive are for other inputs (graphprof.save_export's)";
    return v;
  }
  v.possible = true;
  v.exact = absl::StartsWith(ref.torch_version, TORCH_VERSION) && ref.threads == at::get_num_threads();
  v.expected = ref.Expected();
  v.reference = absl::StrCat("PyTorch ", ref.torch_version, "'s ep.module() (graphprof.save_export, ",
                             ref.threads < 0 ? "threads not recorded"
                                             : absl::StrCat(ref.threads, ref.threads == 1 ? " thread" : " threads"),
                             v.exact ? ")" : absl::StrCat("; here LibTorch ", TORCH_VERSION, ", ", at::get_num_threads(),
                                                           " thread(s): compared within rtol/atol)"));
  return v;
}

namespace {

// A default argument as Python writes it (scale=0.5, flag=True), its
// description for what has no short literal.
std::string DefaultText(const c10::IValue& v) {
  if (v.isInt()) return absl::StrCat(v.toInt());
  if (v.isDouble()) return absl::StrCat(v.toDouble());
  if (v.isBool()) return v.toBool() ? "True" : "False";
  if (v.isString()) return absl::StrCat("'", v.toStringRef(), "'");
  return DescribeIValue(v);
}

bool IsExport(const std::string& path) {
  return absl::EndsWith(path, ".pt2") || IsExportedProgramFile(path);
}

}  // namespace

absl::StatusOr<ModelSource> LoadModelSource(const CliOptions& options) {
  absl::StatusOr<c10::Device> device = ParseDevice(options.device);
  if (!device.ok()) return device.status();
  if (!options.model.empty() && IsExport(options.model)) {
    if (!device->is_cpu()) return absl::InvalidArgumentError("--device: torch.export programs run on the CPU here");
    return FromExport(options);
  }
  if (!options.model.empty()) {
    absl::StatusOr<torch::jit::Module> module = LoadModule(options.model);
    if (!module.ok()) return module.status();
    const bool saved_in_training = module->is_training();
    module->eval();
    if (absl::Status moved = MoveModule(*module, *device); !moved.ok()) return moved;
    absl::StatusOr<ModelSource> source = FromModule(*module, options.model, options);
    if (source.ok()) {
      source->device = *device;
      source->saved_in_training = saved_in_training;
    }
    return source;
  }
  if (!options.ir.empty()) {
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = LoadGraphFile(options.ir);
    if (!graph.ok()) return graph.status();
    // The parsed graph is ours: prepared in place, no copy. Inlining does
    // nothing to IR text (it has no calls) and dead code elimination keeps
    // every side effect, so --verify runs a copy of it natively.
    absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(*std::move(graph), options.ir);
    if (!prepared.ok()) return prepared.status();
    ModelSource source;
    source.display_name = options.ir;
    source.device = *device;
    std::shared_ptr<const torch::jit::Graph> parsed = prepared->graph;
    source.run_native = [parsed](const std::vector<c10::IValue>& inputs) -> absl::StatusOr<c10::IValue> {
      try {
        torch::jit::GraphFunction native("native", const_cast<torch::jit::Graph&>(*parsed).copy(), nullptr);
        torch::jit::Stack stack(inputs.begin(), inputs.end());
        native.run(stack);
        if (stack.size() == 1) return stack[0];
        return c10::IValue(c10::ivalue::Tuple::create(std::move(stack)));
      } catch (const std::exception& e) {
        return StatusFromException(absl::StatusCode::kInvalidArgument, "native graph run", e);
      }
    };
    source.prepared = *std::move(prepared);
    return source;
  }
  const std::string zoo = options.zoo.empty() ? "resnet18" : options.zoo;
  absl::StatusOr<ZooModel> model = MakeZooModel(zoo, options.seed);
  if (!model.ok()) return model.status();
  if (absl::Status moved = MoveModule(model->module, *device); !moved.ok()) return moved;
  absl::StatusOr<ModelSource> source = FromModule(model->module, absl::StrCat("zoo:", zoo), options);
  if (!source.ok()) return source.status();
  source->default_inputs = model->inputs;
  source->device = *device;
  return source;
}

absl::StatusOr<std::vector<c10::IValue>> LoadModelInputs(const CliOptions& options, ModelSource& source) {
  std::vector<c10::IValue> inputs;
  const ExportedProgram* program = source.exported.get();
  if (program != nullptr && options.inputs.empty() && options.input.empty()) {
    if (program->reference.has_value()) {
      inputs = program->reference->inputs;
      source.inputs_from = "the archive's reference inputs (graphprof.save_export)";
    } else if (program->example_inputs.has_value()) {
      inputs = *program->example_inputs;
      source.inputs_from = "the archive's example inputs";
    } else {
      return absl::InvalidArgumentError(absl::StrCat(source.display_name, " has no example inputs: pass --inputs=FILE.pt"));
    }
  } else if (!options.inputs.empty()) {
    absl::StatusOr<std::vector<c10::IValue>> loaded = LoadInputs(options.inputs);
    if (!loaded.ok()) return loaded.status();
    inputs = *std::move(loaded);
  } else if (!options.input.empty()) {
    absl::StatusOr<std::vector<InputSpec>> specs = ParseInputSpecs(options.input);
    if (!specs.ok()) return Annotate(specs.status(), "--input");
    absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(*specs, options.seed);
    if (!made.ok()) return Annotate(made.status(), "--input");
    inputs = *std::move(made);
  } else if (!source.default_inputs.empty()) {
    absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(source.default_inputs, options.seed);
    if (!made.ok()) return made.status();
    inputs = *std::move(made);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        source.display_name, " needs inputs for (", source.prepared.DescribeUserInputs(),
        "): pass --input=SHAPE:DTYPE,... (e.g. 1x3x224x224:float32) or --inputs=FILE.pt"));
  }
  if (!source.device.is_cpu()) {
    try {
      for (c10::IValue& input : inputs) {
        if (input.isTensor()) input = input.toTensor().to(source.device);
      }
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kFailedPrecondition, "moving the inputs", e);
    }
  }
  if (program != nullptr) {
    if (absl::Status checked = CheckExportedInputs(program->inputs, inputs); !checked.ok()) {
      return Annotate(checked, source.display_name);
    }
  }
  const size_t expected = source.prepared.num_user_inputs();
  // Inputs not given take the method's defaults, as module.forward(...) does
  // (targets=None of torchvision's detection models).
  if (inputs.size() < expected && source.module.has_value()) {
    try {
      const c10::FunctionSchema& schema = source.module->get_method(options.method).function().getSchema();
      std::vector<std::string> defaulted;
      for (size_t i = inputs.size(); i < expected && 1 + i < schema.arguments().size(); ++i) {
        const c10::Argument& argument = schema.arguments()[1 + i];
        if (!argument.default_value().has_value()) break;
        inputs.push_back(*argument.default_value());
        defaulted.push_back(absl::StrCat(argument.name(), "=", DefaultText(*argument.default_value())));
      }
      if (!defaulted.empty() && inputs.size() == expected) {
        source.defaulted_inputs = absl::StrJoin(defaulted, ", ");
      } else {
        inputs.resize(inputs.size() - defaulted.size());
      }
    } catch (const std::exception&) {
      // No schema to read: the count check below says what is missing.
    }
  }
  if (inputs.size() == expected && source.module.has_value()) {
    // As module.forward(...) takes them: containers retyped by the schema.
    const auto graph_inputs = source.prepared.graph->inputs();
    const size_t first = source.prepared.has_self() ? 1 : 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const torch::jit::Value* param = graph_inputs[first + i];
      absl::StatusOr<c10::IValue> converted =
          ConvertToType(inputs[i], param->type(), absl::StrCat("input ", i + 1, " (", param->debugNameBase(), ")"));
      if (!converted.ok()) return Annotate(converted.status(), source.display_name);
      inputs[i] = *std::move(converted);
    }
  }
  if (inputs.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(source.display_name, " takes ", expected, " input",
                                                   expected == 1 ? "" : "s", " (",
                                                   source.prepared.DescribeUserInputs(), ") but ", inputs.size(),
                                                   inputs.size() == 1 ? " was" : " were", " given"));
  }
  return inputs;
}

}  // namespace graphprof::cli
