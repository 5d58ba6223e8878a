// Live CPU tensor memory, process-wide: the C++ counterpart of
// torch_geometric's get_cpu_memory_from_gc(), which sums the tensors
// Python's garbage collector can find. C++ has no collector to ask, so the
// count is kept where every tensor's memory comes from: c10's CPU allocator.
//
// CountCpuTensorMemory() installs a counting allocator in front of the
// current one (c10::SetCPUAllocator). It forwards every request, so memory
// layout, c10's memory reporting (MemoryTracker, the profilers) and LibTorch's
// behaviour are unchanged, and records each block's size until it is freed,
// on any thread. It stays installed for the rest of the process.
//
//   graphprof::CountCpuTensorMemory();           // first thing, before models load
//   ...
//   absl::StatusOr<int64_t> live = graphprof::LiveCpuTensorBytes();
//
// What it counts: bytes of CPU tensor storage (and any other allocation
// through c10's CPU allocator) allocated since it was installed and not yet
// freed, each storage once (views share one). Memory allocated before it was
// installed is not counted, not even when freed later; memory LibTorch did
// not allocate (torch::from_blob) is not counted. Cost: a mutex and a hash
// map entry per allocation and free (about 0.1 us).
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace graphprof {

// Installs the counter (once; later calls do nothing). Fails if c10 keeps
// another allocator in front of it.
absl::Status CountCpuTensorMemory();

// Bytes allocated through c10's CPU allocator since the counter was
// installed and not freed yet; FailedPrecondition before it is.
absl::StatusOr<int64_t> LiveCpuTensorBytes();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_CPU_TENSOR_COUNTER_H_
