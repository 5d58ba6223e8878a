// The CUDA caching allocator's statistics (c10::cuda::CUDACachingAllocator:
// what torch.cuda.memory_stats() reads), as an AllocatorStatsSource.
//
// They exist only in a CUDA LibTorch (LIBTORCH_DIR pointing at one, so that
// @libtorch//:defs.bzl has LIBTORCH_HAS_CUDA) built with --config=cuda (its
// headers need the CUDA toolkit's). Otherwise every call answers
// Unavailable with which of the two is missing; with them but no device,
// "no CUDA device". Debian's libtorch is CPU-only, so on the development
// machine only those answers are seen; tools/gpu_check reads the real ones.
#ifndef GRAPHPROF_PROFILERS_GPU_CUDA_ALLOCATOR_STATS_H_
#define GRAPHPROF_PROFILERS_GPU_CUDA_ALLOCATOR_STATS_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profilers/gpu/device_memory.h"

namespace graphprof {

// OK when the statistics can be read, else why not.
absl::Status CudaAllocatorStatsStatus();

// CUDA device `device`'s statistics; -1: the current device.
std::unique_ptr<AllocatorStatsSource> MakeCudaAllocatorStats(int device = -1);

// Every CUDA device's current statistics (live tensor bytes per device:
// AllocatorStats::allocated_bytes), in device order.
absl::StatusOr<std::vector<AllocatorStats>> ReadAllCudaAllocatorStats();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_CUDA_ALLOCATOR_STATS_H_
