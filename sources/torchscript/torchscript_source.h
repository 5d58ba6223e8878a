// TorchScript modules as model sources: a saved module (.pt, a TorchScript
// source file: ir/loader) and the zoo's models built in code
// (tools/zoo). Loaded in eval mode, moved to the request's device, the
// request's method prepared with its passes; the native reference is the
// module as loaded.
#ifndef GRAPHPROF_SOURCES_TORCHSCRIPT_TORCHSCRIPT_SOURCE_H_
#define GRAPHPROF_SOURCES_TORCHSCRIPT_TORCHSCRIPT_SOURCE_H_

#include "sources/model_source.h"

namespace graphprof {

// Claims every path (the fallback: registered last).
SourceFormat TorchScriptFormat();
// "zoo": the path is a zoo model's name ("resnet18").
SourceFormat ZooFormat();

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_TORCHSCRIPT_TORCHSCRIPT_SOURCE_H_
