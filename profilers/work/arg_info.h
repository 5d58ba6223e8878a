// An IValue as the work counter sees it (profilers/work/work.h): shapes,
// element sizes and storages of tensors (MKLDNN tensors have no storage:
// their logical size counts), and the scalars and int lists of arguments.
#ifndef GRAPHPROF_PROFILERS_WORK_ARG_INFO_H_
#define GRAPHPROF_PROFILERS_WORK_ARG_INFO_H_

#include <torch/script.h>

#include "profilers/work/work.h"

namespace graphprof {

ArgInfo ToArgInfo(const c10::IValue& value);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_WORK_ARG_INFO_H_
