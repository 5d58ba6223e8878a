// The machine this process runs on, as a Report records it (Report::machine):
// CPU model and frequency governor, cores and the threads used (intra-op,
// inter-op, and the BLAS's own), the BLAS library LibTorch's GEMM resolves
// to, LibTorch's version, the kernel and the load average. Read from
// /proc, /sys and the loaded libraries; whatever cannot be read stays unknown.
#ifndef GRAPHPROF_PROFILERS_MACHINE_H_
#define GRAPHPROF_PROFILERS_MACHINE_H_

#include <string>

#include "profilers/report/machine_info.h"

namespace graphprof {

Machine DescribeMachine();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_MACHINE_H_
