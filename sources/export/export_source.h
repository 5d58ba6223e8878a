// torch.export programs (.pt2, ir/export) as model sources. LibTorch cannot
// run a program natively, so its reference is the outputs PyTorch computed
// and graphprof.save_export stored in the archive, verified by
// profilers/verification/saved_outputs.h's rule; it supplies the inputs
// those were computed for (else the archive's example inputs). It has no
// methods, runs on the CPU, and takes no passes or training steps.
#ifndef GRAPHPROF_SOURCES_EXPORT_EXPORT_SOURCE_H_
#define GRAPHPROF_SOURCES_EXPORT_EXPORT_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "ir/export/exported_program.h"
#include "sources/model_source.h"

namespace graphprof {

// What the sources backed by a torch.export program share (a program's own,
// an AOTInductor package's): its graph describes the inputs, it supplies
// the reference inputs saved with it (else its example inputs), and it
// checks given inputs against what it declares.
class ProgramBackedSource : public ModelSource {
 public:
  std::string name() const override { return path_; }
  const PreparedGraph& prepared() const override { return program_.prepared; }
  absl::StatusOr<SuppliedInputs> SupplyInputs(uint64_t seed) const override;
  absl::StatusOr<std::vector<c10::IValue>> CompleteInputs(std::vector<c10::IValue> inputs,
                                                          std::string* note) const override;

 protected:
  // `reference_note` and `examples_note` say where supplied inputs came from.
  ProgramBackedSource(std::string path, ExportedProgram program, std::string reference_note, std::string examples_note)
      : path_(std::move(path)),
        program_(std::move(program)),
        reference_note_(std::move(reference_note)),
        examples_note_(std::move(examples_note)) {}
  const std::string& path() const { return path_; }
  const ExportedProgram& program() const { return program_; }

 private:
  std::string path_;
  ExportedProgram program_;
  std::string reference_note_;
  std::string examples_note_;
};

// Claims names ending in .pt2 and zip archives holding a program.
SourceFormat ExportFormat();

// What a program can do (its sources' abilities()).
const SourceAbilities& ExportAbilities();

// The reference a program's saved outputs give for `inputs`
// (saved_outputs.h's rule); `compiled`: the outputs a compiled form of the
// program (an AOTInductor package holding it) is checked against, always
// within the tolerance, never as identical.
Reference SavedReferenceFor(const ExportedProgram& program, const std::vector<c10::IValue>& inputs,
                            const Tolerance& tolerance, bool compiled);

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_EXPORT_EXPORT_SOURCE_H_
