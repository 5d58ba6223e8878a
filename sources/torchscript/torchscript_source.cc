#include "sources/torchscript/torchscript_source.h"

#include <torch/csrc/jit/api/function_impl.h>

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"
#include "ir/input_spec.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/passes.h"
#include "tools/zoo/zoo.h"

namespace graphprof {
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

absl::Status MoveModule(torch::jit::Module& module, const c10::Device& device) {
  if (device.is_cpu()) return absl::OkStatus();
  try {
    module.to(device);
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kFailedPrecondition, absl::StrCat("moving the module to ", device.str()),
                               e);
  }
}

// What was loaded, before preparing: the module, and the zoo's inputs.
struct Loaded {
  torch::jit::Module module;
  bool saved_in_training = false;
  std::vector<InputSpec> default_inputs;
  // Files are profiled in eval mode, as inference runs them; the zoo builds
  // its models in the mode they are profiled in.
  bool to_eval = true;
};

class ModuleSource final : public ModelSource {
 public:
  using Loader = std::function<absl::StatusOr<Loaded>(const SourceRequest&)>;

  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(std::string display_name, Loader load,
                                                           const SourceRequest& request) {
    absl::StatusOr<Loaded> loaded = load(request);
    if (!loaded.ok()) return loaded.status();
    if (loaded->to_eval) loaded->module.eval();
    if (absl::Status moved = MoveModule(loaded->module, request.device); !moved.ok()) return moved;
    PrepareOptions prepare;
    prepare.method = request.method;
    prepare.freeze = request.freeze;
    if (!request.passes.empty()) {
      absl::StatusOr<std::vector<Pass>> passes = ParsePasses(request.passes);
      if (!passes.ok()) return passes.status();
      prepare.passes = *std::move(passes);
    }
    absl::StatusOr<PreparedGraph> prepared = PrepareMethod(loaded->module, prepare);
    if (!prepared.ok()) return Annotate(prepared.status(), display_name);
    auto source = std::unique_ptr<ModuleSource>(new ModuleSource);
    source->name_ = request.method == "forward" ? display_name : absl::StrCat(display_name, ":", request.method);
    source->display_name_ = std::move(display_name);
    source->load_ = std::move(load);
    source->request_ = request;
    source->loaded_ = *std::move(loaded);
    source->prepared_ = *std::move(prepared);
    return std::unique_ptr<ModelSource>(std::move(source));
  }

  std::string name() const override { return name_; }
  const SourceAbilities& abilities() const override {
    static const SourceAbilities kAbilities{"a TorchScript module", "TorchScript"};
    return kAbilities;
  }
  const PreparedGraph& prepared() const override { return prepared_; }
  const torch::jit::Module* module() const override { return &loaded_.module; }
  c10::Device device() const override { return request_.device; }

  absl::StatusOr<SuppliedInputs> SupplyInputs(uint64_t seed) const override {
    if (loaded_.default_inputs.empty()) return ModelSource::SupplyInputs(seed);
    absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(loaded_.default_inputs, seed);
    if (!made.ok()) return made.status();
    return SuppliedInputs{*std::move(made), ""};
  }

  absl::StatusOr<std::vector<c10::IValue>> CompleteInputs(std::vector<c10::IValue> inputs,
                                                          std::string* note) const override {
    if (note != nullptr) note->clear();
    const size_t expected = prepared_.num_user_inputs();
    // Inputs not given take the method's defaults, as module.forward(...)
    // does (targets=None of torchvision's detection models).
    if (inputs.size() < expected) {
      try {
        const c10::FunctionSchema& schema = loaded_.module.get_method(request_.method).function().getSchema();
        std::vector<std::string> defaulted;
        for (size_t i = inputs.size(); i < expected && 1 + i < schema.arguments().size(); ++i) {
          const c10::Argument& argument = schema.arguments()[1 + i];
          if (!argument.default_value().has_value()) break;
          inputs.push_back(*argument.default_value());
          defaulted.push_back(absl::StrCat(argument.name(), "=", DefaultText(*argument.default_value())));
        }
        if (!defaulted.empty() && inputs.size() == expected) {
          if (note != nullptr) *note = absl::StrJoin(defaulted, ", ");
        } else {
          inputs.resize(inputs.size() - defaulted.size());
        }
      } catch (const std::exception&) {
        // No schema to read: the count check says what is missing.
      }
    }
    if (inputs.size() == expected) {
      // As module.forward(...) takes them: containers retyped by the schema.
      const auto graph_inputs = prepared_.graph->inputs();
      const size_t first = prepared_.has_self() ? 1 : 0;
      for (size_t i = 0; i < inputs.size(); ++i) {
        const torch::jit::Value* param = graph_inputs[first + i];
        absl::StatusOr<c10::IValue> converted =
            ConvertToType(inputs[i], param->type(), absl::StrCat("input ", i + 1, " (", param->debugNameBase(), ")"));
        if (!converted.ok()) return Annotate(converted.status(), name_);
        inputs[i] = *std::move(converted);
      }
    }
    return ModelSource::CompleteInputs(std::move(inputs), nullptr);
  }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    Reference reference;
    // The native reference is always the module as loaded.
    const torch::jit::Module module = loaded_.module;
    const std::string method = request_.method;
    reference.run = [module, method](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
      try {
        return torch::jit::Module(module).get_method(method)(in);
      } catch (const std::exception& e) {
        return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", method), e);
      }
    };
    reference.check.transformed = !prepared_.passes.empty();
    reference.check.float64_reference = !tolerance.given;
    reference.check.rtol = tolerance.rtol;
    reference.check.atol = tolerance.atol;
    reference.check.reference = absl::StrCat("module.", method);
    return reference;
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override {
    return Open(display_name_, load_, request_);
  }

  void Describe(Report& report) const override {
    // Profiled as inference runs it: Open put the module in eval mode.
    if (loaded_.saved_in_training) {
      report.notes.push_back(
          "the module was saved in training mode; profiled in eval mode (.eval(): dropout off, batch norm on "
          "running statistics), as inference runs it");
    }
  }

 private:
  ModuleSource() = default;

  std::string name_;
  std::string display_name_;
  Loader load_;
  SourceRequest request_;
  Loaded loaded_;
  PreparedGraph prepared_;
};

}  // namespace

SourceFormat TorchScriptFormat() {
  SourceFormat format;
  format.name = "torchscript";
  format.claims = [](const std::string&) { return true; };
  format.open = [](const std::string& path, const SourceRequest& request) {
    ModuleSource::Loader load = [path](const SourceRequest&) -> absl::StatusOr<Loaded> {
      absl::StatusOr<torch::jit::Module> module = LoadModule(path);
      if (!module.ok()) return module.status();
      return Loaded{*module, module->is_training(), {}};
    };
    return ModuleSource::Open(path, std::move(load), request);
  };
  return format;
}

SourceFormat ZooFormat() {
  SourceFormat format;
  format.name = "zoo";
  format.claims = [](const std::string&) { return false; };  // named only (--zoo)
  format.open = [](const std::string& name, const SourceRequest& request) {
    ModuleSource::Loader load = [name](const SourceRequest& r) -> absl::StatusOr<Loaded> {
      absl::StatusOr<ZooModel> model = MakeZooModel(name, r.seed);
      if (!model.ok()) return model.status();
      return Loaded{model->module, false, model->inputs, false};
    };
    return ModuleSource::Open(absl::StrCat("zoo:", name), std::move(load), request);
  };
  return format;
}

}  // namespace graphprof
