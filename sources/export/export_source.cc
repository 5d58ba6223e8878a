#include "sources/export/export_source.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/export/exported_program.h"
#include "profilers/verification/saved_outputs.h"

namespace graphprof {
namespace {

class ExportSource final : public ModelSource {
 public:
  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(const std::string& path, const SourceRequest& request) {
    absl::StatusOr<ExportedProgram> program = LoadExportedProgram(path);
    if (!program.ok()) return program.status();
    auto source = std::unique_ptr<ExportSource>(new ExportSource);
    source->path_ = path;
    source->program_ = *std::move(program);
    return std::unique_ptr<ModelSource>(std::move(source));
  }

  std::string name() const override { return path_; }
  const SourceAbilities& abilities() const override { return ExportAbilities(); }
  const PreparedGraph& prepared() const override { return program_.prepared; }

  absl::StatusOr<SuppliedInputs> SupplyInputs(uint64_t seed) const override {
    if (program_.reference.has_value()) {
      return SuppliedInputs{program_.reference->inputs, "the archive's reference inputs (graphprof.save_export)"};
    }
    if (program_.example_inputs.has_value()) {
      return SuppliedInputs{*program_.example_inputs, "the archive's example inputs"};
    }
    return absl::NotFoundError(absl::StrCat(path_, " has no example inputs"));
  }

  absl::StatusOr<std::vector<c10::IValue>> CompleteInputs(std::vector<c10::IValue> inputs,
                                                          std::string* note) const override {
    if (absl::Status checked = CheckExportedInputs(program_.inputs, inputs); !checked.ok()) {
      return Annotate(checked, path_);
    }
    return ModelSource::CompleteInputs(std::move(inputs), note);
  }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    return SavedReferenceFor(program_, inputs, tolerance, /*compiled=*/false);
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override { return Open(path_, SourceRequest()); }

  void Describe(Report& report) const override {
    report.notes.push_back(absl::StrCat("a torch.export program (", program_.layout, ", schema ",
                                        program_.schema_version, ", exported by PyTorch ", program_.torch_version, ")"));
    report.notes.insert(report.notes.end(), program_.notes.begin(), program_.notes.end());
    report.parameters = program_.parameters;
  }

 private:
  ExportSource() = default;

  std::string path_;
  ExportedProgram program_;
};

}  // namespace

Reference SavedReferenceFor(const ExportedProgram& program, const std::vector<c10::IValue>& inputs,
                            const Tolerance& tolerance, bool compiled) {
  Reference reference;
  if (!program.reference.has_value()) {
    reference.why_not = compiled ? "the package has no reference outputs (compile it with graphprof.compile_aoti)"
                                 : "the archive has no reference outputs (save the program with graphprof.save_export)";
    return reference;
  }
  const ExportReference& saved = *program.reference;
  SavedOutputs outputs{saved.inputs, saved.Expected(), absl::StrCat("PyTorch ", saved.torch_version, "'s ep.module()"),
                       compiled ? "graphprof.compile_aoti" : "graphprof.save_export", saved.torch_version,
                       saved.threads};
  // Compiled code sums in its own order (fused loops, vectorized
  // reductions): never called identical to the eager outputs unless the
  // caller's tolerance finds no difference.
  SavedOutputsCheck plan = PlanSavedOutputsCheck(outputs, inputs, tolerance.rtol, tolerance.atol,
                                                 tolerance.given || compiled);
  if (!plan.possible) {
    reference.why_not = plan.why_not;
    return reference;
  }
  const c10::IValue expected = plan.expected;
  reference.run = [expected](const std::vector<c10::IValue>&) -> absl::StatusOr<c10::IValue> { return expected; };
  reference.check = plan.check;
  return reference;
}

const SourceAbilities& ExportAbilities() {
  static const SourceAbilities kAbilities{"a torch.export program", "torch.export", /*passes=*/false, /*backward=*/false,
                                          /*methods=*/false, /*devices=*/false};
  return kAbilities;
}

SourceFormat ExportFormat() {
  SourceFormat format;
  format.name = "torch.export";
  format.claims = [](const std::string& path) {
    return absl::EndsWith(path, ".pt2") || IsExportedProgramFile(path);
  };
  format.open = &ExportSource::Open;
  return format;
}

}  // namespace graphprof
