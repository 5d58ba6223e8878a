// AOTInductor packages as model sources (docs/compiled.md): a torch.export
// program compiled by AOTInductor, run whole by LibTorch's runner
// (aoti_model.h, LibTorch 2.6+), its report's rows the generated kernels
// and extern calls the package's wrapper makes (profilers/compiled/).
//
// What it needs of the package besides the compiled model is what
// graphprof.compile_aoti stores in it: the program (graphprof/program.pt2,
// with reference inputs and outputs: its graph declares the inputs, its
// nodes give the rows their modules and source lines, its outputs verify
// the compiled run, within a tolerance) and the nodes of each generated
// kernel (graphprof/kernels.json). A package without the program is refused
// in one line saying how to make one. prepared() is the program's graph
// (for describing and checking inputs); compiled() is what runs.
//
// It claims zip archives holding data/aotinductor/ (before the torch.export
// format, which would claim its .pt2 name). With LibTorch before 2.6 it
// refuses in one line naming the LibTorch it needs.
#ifndef GRAPHPROF_SOURCES_COMPILED_COMPILED_SOURCE_H_
#define GRAPHPROF_SOURCES_COMPILED_COMPILED_SOURCE_H_

#include "sources/model_source.h"

namespace graphprof {

SourceFormat CompiledFormat();
const SourceAbilities& CompiledAbilities();

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_COMPILED_COMPILED_SOURCE_H_
