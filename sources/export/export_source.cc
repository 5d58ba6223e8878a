#include "sources/export/export_source.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/export/exported_program.h"
#include "profilers/verification/saved_outputs.h"

namespace graphprof {
namespace {

class ExportSource final : public ProgramBackedSource {
 public:
  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(const std::string& path, const SourceRequest& request) {
    absl::StatusOr<ExportedProgram> program = LoadExportedProgram(path);
    if (!program.ok()) return program.status();
    return std::unique_ptr<ModelSource>(new ExportSource(path, *std::move(program)));
  }

  const SourceAbilities& abilities() const override { return ExportAbilities(); }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    return SavedReferenceFor(program(), inputs, tolerance, /*compiled=*/false);
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override { return Open(path(), SourceRequest()); }

  void Describe(Report& report) const override {
    report.notes.push_back(absl::StrCat("a torch.export program (", program().layout, ", schema ",
                                        program().schema_version, ", exported by PyTorch ", program().torch_version,
                                        ")"));
    report.notes.insert(report.notes.end(), program().notes.begin(), program().notes.end());
    report.parameters = program().parameters;
  }

 private:
  ExportSource(std::string path, ExportedProgram program)
      : ProgramBackedSource(std::move(path), std::move(program), "the archive's reference inputs (graphprof.save_export)",
                            "the archive's example inputs") {}
};

}  // namespace

absl::StatusOr<SuppliedInputs> ProgramBackedSource::SupplyInputs(uint64_t seed) const {
  if (program_.reference.has_value()) return SuppliedInputs{program_.reference->inputs, reference_note_};
  if (program_.example_inputs.has_value()) return SuppliedInputs{*program_.example_inputs, examples_note_};
  return absl::NotFoundError(absl::StrCat(path_, " has no example inputs"));
}

absl::StatusOr<std::vector<c10::IValue>> ProgramBackedSource::CompleteInputs(std::vector<c10::IValue> inputs,
                                                                             std::string* note) const {
  if (absl::Status checked = CheckExportedInputs(program_.inputs, inputs); !checked.ok()) return Annotate(checked, path_);
  return ModelSource::CompleteInputs(std::move(inputs), note);
}

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
