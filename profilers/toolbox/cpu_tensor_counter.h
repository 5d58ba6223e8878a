// Live CPU tensor memory, process-wide: the C++ counterpart of
// torch_geometric's get_cpu_memory_from_gc(), which sums the tensors
// Python's garbage collector can find. C++ has no collector to ask, so the
// count is kept where every tensor's memory comes from: c10's CPU allocator.
//
// CountCpuTensorMemory() puts a counting allocator in the place of c10's
// default CPU allocator (c10::SetCPUAllocator). It does what that one does
// (posix_memalign at c10's alignment, c10's memory reports with every
// allocation and free, so MemoryTracker and the profilers see the same
// sizes) and keeps each block's size in a 64-byte header in front of it, so
// a free needs no lookup. It counts on every thread and stays installed for
// the rest of the process.
//
//   graphprof::CountCpuTensorMemory();           // first thing, before models load
//   ...
//   absl::StatusOr<int64_t> live = graphprof::LiveCpuTensorBytes();
//
// What it counts: bytes of CPU tensor storage (and any other allocation
// through c10's CPU allocator) allocated since it was installed and not yet
// freed, each storage once (views share one). Memory allocated before it was
// installed is not counted, not even when freed later; memory LibTorch did
// not allocate (torch::from_blob) is not counted. Cost: one atomic add per
// allocation and free, and 64 bytes per block. It refuses (and counts
// nothing) where another allocator than c10's default is installed.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace graphprof {

// Installs the counter (once; later calls return the first call's result).
// FailedPrecondition where another CPU allocator than c10's default is installed.
absl::Status CountCpuTensorMemory();

// Bytes allocated through c10's CPU allocator since the counter was
// installed and not freed yet; FailedPrecondition before it is.
absl::StatusOr<int64_t> LiveCpuTensorBytes();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_
