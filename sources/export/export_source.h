// torch.export programs (.pt2, ir/export) as model sources. LibTorch cannot
// run a program natively, so its reference is the outputs PyTorch computed
// and graphprof.save_export stored in the archive, verified by
// profilers/verification/saved_outputs.h's rule; it supplies the inputs
// those were computed for (else the archive's example inputs). It has no
// methods, runs on the CPU, and takes no passes or training steps.
#ifndef GRAPHPROF_SOURCES_EXPORT_EXPORT_SOURCE_H_
#define GRAPHPROF_SOURCES_EXPORT_EXPORT_SOURCE_H_

#include <vector>

#include "ir/export/exported_program.h"
#include "sources/model_source.h"

namespace graphprof {

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
