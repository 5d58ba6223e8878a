// TorchScript IR text files (--ir=graph.ir) as model sources: the graph
// parsed (ir/loader), prepared in place; the native reference runs a copy
// of it through the JIT.
#ifndef GRAPHPROF_SOURCES_IR_TEXT_IR_TEXT_SOURCE_H_
#define GRAPHPROF_SOURCES_IR_TEXT_IR_TEXT_SOURCE_H_

#include "sources/model_source.h"

namespace graphprof {

// "ir": named only (IR text has no mark of its own).
SourceFormat IrTextFormat();

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_IR_TEXT_IR_TEXT_SOURCE_H_
