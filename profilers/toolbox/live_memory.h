// Memory queries: what is alive now (torch_geometric.profile's
// get_cpu_memory_from_gc, get_gpu_memory_from_gc, and the process's
// resident set size).
//
//   graphprof::LiveMemory m = graphprof::ReadLiveMemory();
//   std::cout << graphprof::FormatLiveMemory(m) << "\n";
//   // CPU tensors 44.73 MiB; resident 412.20 MiB (peak 498.02 MiB); device: LibTorch without CUDA (...)
//
// Each field is a value or the reason it has none.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_LIVE_MEMORY_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_LIVE_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace graphprof {

struct DeviceTensorBytes {
  std::string device;  // "cuda:0"
  int64_t bytes = 0;
};

// Live tensor bytes on every CUDA device: the caching allocator's allocated
// bytes (every live tensor's block, what get_gpu_memory_from_gc sums up to
// the allocator's rounding). Unavailable without a CUDA LibTorch or device.
absl::StatusOr<std::vector<DeviceTensorBytes>> LiveDeviceTensorBytes();

// The process's resident set size now (/proc/self/statm) and its peak so
// far (VmHWM in /proc/self/status), in bytes. Both are the kernel's
// counters, which it updates in batches: they can lag by a few hundred KiB.
// PeakResidentSetBytes(pid) reads another process's (for benchmarks that
// run a child; its VmHWM starts anew at exec, unlike getrusage's ru_maxrss,
// which keeps the size of the forked parent).
absl::StatusOr<int64_t> ResidentSetBytes();
absl::StatusOr<int64_t> PeakResidentSetBytes(int pid = 0);

struct LiveMemory {
  absl::StatusOr<int64_t> cpu_tensor_bytes;  // LiveCpuTensorBytes (cpu_tensor_counter.h)
  absl::StatusOr<std::vector<DeviceTensorBytes>> device_tensor_bytes;
  absl::StatusOr<int64_t> resident_bytes;
  absl::StatusOr<int64_t> peak_resident_bytes;
};

LiveMemory ReadLiveMemory();

// One line: "CPU tensors 44.73 MiB; resident 412.20 MiB (peak 498.02 MiB);
// cuda:0 tensors 1.00 GiB", each missing value replaced by its reason.
std::string FormatLiveMemory(const LiveMemory& memory);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_LIVE_MEMORY_H_
