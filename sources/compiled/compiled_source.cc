#include "sources/compiled/compiled_source.h"

#include <torch/csrc/jit/runtime/graph_iterator.h>

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/compiled/aoti_package.h"
#include "ir/compiled/wrapper_calls.h"
#include "ir/export/exported_program.h"
#include "profilers/compiled/compiled_profile.h"
#include "sources/compiled/aoti_model.h"
#include "sources/export/export_source.h"

namespace graphprof {
namespace {

// graphprof.compile_aoti's record of each generated kernel's nodes
// (python/graphprof/_compiled.py: KERNELS_ENTRY).
constexpr char kKernelRecordEntry[] = "graphprof/kernels.json";
constexpr uint64_t kMaxKernelRecordBytes = 64ull << 20;

absl::Status Refuse(const std::string& path, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
}

class AotiProgram final : public CompiledProgram {
 public:
  AotiProgram(std::unique_ptr<AotiModel> model, CompiledPlan plan) : model_(std::move(model)), plan_(std::move(plan)) {}

  absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue>& inputs) override {
    tensors_.clear();
    for (const c10::IValue& input : inputs) {
      if (!input.isTensor()) return absl::InvalidArgumentError("a compiled program takes tensors only");
      tensors_.push_back(input.toTensor());
    }
    absl::StatusOr<std::vector<at::Tensor>> outputs = model_->Run(tensors_);
    tensors_.clear();  // the run's inputs not kept past it (the vector's capacity is)
    if (!outputs.ok()) return outputs.status();
    if (outputs->size() == 1) return c10::IValue((*outputs)[0]);
    std::vector<c10::IValue> items(outputs->begin(), outputs->end());
    return c10::IValue(c10::ivalue::Tuple::create(std::move(items)));
  }
  const CompiledPlan& plan() const override { return plan_; }

 private:
  std::unique_ptr<AotiModel> model_;
  CompiledPlan plan_;
  std::vector<at::Tensor> tensors_;
};

class CompiledSource final : public ProgramBackedSource {
 public:
  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(const std::string& path, const SourceRequest&) {
    absl::StatusOr<AotiPackage> package = ReadAotiPackage(path);
    if (!package.ok()) return package.status();
    if (!AotiModelsSupported()) return LoadAotiModel(*package).status();  // says what it needs
    if (!package->has_program) {
      return Refuse(path, absl::StrCat("has no program (", kAotiProgramEntry, "): graphprof profiles the packages "
                                       "graphprof.compile_aoti(ep, path, *args) writes"));
    }
    const ZipArchive::Entry* entry = package->archive.Find(kAotiProgramEntry);
    absl::StatusOr<ExportedProgram> program = LoadExportedProgram(
        SliceSource(package->archive.source(), entry->offset, entry->size), absl::StrCat(path, ":", kAotiProgramEntry));
    if (!program.ok()) return program.status();
    absl::StatusOr<std::string> wrapper = package->archive.ReadEntry(package->wrapper, kMaxWrapperBytes);
    if (!wrapper.ok()) return Refuse(path, wrapper.status().message());
    absl::StatusOr<WrapperCalls> calls = ParseWrapperCalls(*wrapper, absl::StrCat(path, ":", package->wrapper));
    if (!calls.ok()) return calls.status();
    if (package->archive.Find(kKernelRecordEntry) != nullptr) {
      absl::StatusOr<std::string> record = package->archive.ReadEntry(kKernelRecordEntry, kMaxKernelRecordBytes);
      if (!record.ok()) return Refuse(path, record.status().message());
      if (absl::Status applied = ApplyKernelRecord(*record, absl::StrCat(path, ":", kKernelRecordEntry), *calls);
          !applied.ok()) {
        return applied;
      }
    }
    std::map<std::string, NodePlace> places;
    // The graph's live nodes only: `origins` may still hold nodes its
    // preparation removed.
    torch::jit::DepthFirstGraphNodeIterator live(program->prepared.graph);
    for (torch::jit::Node* node = live.next(); node != nullptr; node = live.next()) {
      auto origin = program->prepared.origins.find(node);
      if (origin == program->prepared.origins.end() || origin->second.name.empty()) continue;
      places[origin->second.name] = NodePlace{origin->second.module, origin->second.source, node->kind().toQualString()};
    }
    absl::StatusOr<CompiledPlan> plan = CompiledPlan::Build(*calls, places);
    if (!plan.ok()) return Refuse(path, plan.status().message());
    absl::StatusOr<std::unique_ptr<AotiModel>> model = LoadAotiModel(*package);
    if (!model.ok()) return model.status();
    return std::unique_ptr<ModelSource>(
        new CompiledSource(path, *std::move(program), calls->kernel_nodes,
                           std::make_unique<AotiProgram>(*std::move(model), *std::move(plan))));
  }

  const SourceAbilities& abilities() const override { return CompiledAbilities(); }
  CompiledProgram* compiled() const override { return compiled_.get(); }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    return SavedReferenceFor(program(), inputs, tolerance, /*compiled=*/true);
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override { return Open(path(), SourceRequest()); }

  void Describe(Report& report) const override {
    report.notes.push_back(absl::StrCat("an AOTInductor package (a torch.export program compiled by PyTorch ",
                                        program().torch_version,
                                        "), run whole: rows are its generated kernels and extern calls"));
    report.notes.push_back(
        "an extern call's time is the stretch between the generated kernels around it (the wrapper's code there "
        "included); the run time outside the rows (100% - coverage) is the wrapper's own");
    if (!kernel_nodes_) {
      report.notes.push_back("the package does not name every generated kernel's nodes (no graphprof/kernels.json "
                             "entry for some): their rows have no module or source line");
    }
    report.parameters = program().parameters;
  }

 private:
  CompiledSource(std::string path, ExportedProgram program, bool kernel_nodes, std::unique_ptr<AotiProgram> compiled)
      : ProgramBackedSource(std::move(path), std::move(program),
                            "the package's reference inputs (graphprof.compile_aoti)", "the program's example inputs"),
        kernel_nodes_(kernel_nodes),
        compiled_(std::move(compiled)) {}

  bool kernel_nodes_ = false;
  std::unique_ptr<AotiProgram> compiled_;
};

}  // namespace

const SourceAbilities& CompiledAbilities() {
  static const SourceAbilities kAbilities{"an AOTInductor package", "AOTInductor", /*passes=*/false,
                                          /*backward=*/false, /*methods=*/false, /*devices=*/false};
  return kAbilities;
}

SourceFormat CompiledFormat() {
  SourceFormat format;
  format.name = "aoti";
  format.claims = &IsAotiPackageFile;
  format.open = &CompiledSource::Open;
  return format;
}

}  // namespace graphprof
