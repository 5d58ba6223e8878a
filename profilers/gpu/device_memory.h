// Device memory, the two ways torch_geometric.profile reads it:
//
//  * the CUDA caching allocator's statistics: LibTorch's own counters of the
//    tensor memory it hands out (allocated), what it holds from cudaMalloc
//    (reserved) and the blocks in use (active), each current and peak since
//    the last reset (torch.cuda.max_memory_allocated / max_memory_reserved /
//    memory_stats()["active_bytes.all.peak"]);
//  * the driver's view of the whole device, every process included: free and
//    used bytes from NVML, the library behind nvidia-smi.
//
// Both are interfaces so that tests can fake them. The real sources are in
// cuda_allocator_stats.h and nvml.h; where one cannot work (no CUDA LibTorch,
// no device, no driver) it returns a Status saying why, never zeros.
#ifndef GRAPHPROF_PROFILERS_GPU_DEVICE_MEMORY_H_
#define GRAPHPROF_PROFILERS_GPU_DEVICE_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace graphprof {

// The caching allocator's counters for one device, in bytes.
struct AllocatorStats {
  std::string device;  // "cuda:0"
  int64_t allocated_bytes = 0;  // live tensor memory now
  int64_t reserved_bytes = 0;   // held from the driver now (allocated + cached)
  int64_t active_bytes = 0;     // in active blocks now
  // Highest values since the last ResetPeaks().
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t peak_active_bytes = 0;
};

class AllocatorStatsSource {
 public:
  virtual ~AllocatorStatsSource() = default;
  // Starts a new peak window (torch.cuda.reset_peak_memory_stats).
  virtual absl::Status ResetPeaks() = 0;
  virtual absl::StatusOr<AllocatorStats> Read() = 0;
};

// The whole device as the driver sees it (NVML's nvmlMemory_t), in bytes.
struct DeviceMemoryInfo {
  std::string device;  // "cuda:0"
  int64_t total_bytes = 0;
  int64_t free_bytes = 0;
  int64_t used_bytes = 0;  // every process's allocations plus the driver's own reservations
};

class DeviceMemoryInfoSource {
 public:
  virtual ~DeviceMemoryInfoSource() = default;
  virtual absl::StatusOr<DeviceMemoryInfo> Read() = 0;
};

// Sources that always answer `why` (an error status): what a toolbox
// function uses where the real source cannot work.
std::unique_ptr<AllocatorStatsSource> UnavailableAllocatorStats(absl::Status why);
std::unique_ptr<DeviceMemoryInfoSource> UnavailableDeviceMemoryInfo(absl::Status why);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_DEVICE_MEMORY_H_
