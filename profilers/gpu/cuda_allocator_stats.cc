#include "profilers/gpu/cuda_allocator_stats.h"

#include "absl/strings/str_cat.h"

#ifdef GRAPHPROF_WITH_TORCH_CUDA
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include "common/torch_compat.h"
#endif

namespace graphprof {

#ifdef GRAPHPROF_WITH_TORCH_CUDA
namespace {

namespace cca = c10::cuda::CUDACachingAllocator;

constexpr size_t kAll = torch_compat::kAggregateStat;

int DeviceCount() {
  try {
    return static_cast<int>(c10::cuda::device_count());
  } catch (const std::exception&) {
    return 0;
  }
}

AllocatorStats ToStats(int device, const cca::DeviceStats& s) {
  AllocatorStats out;
  out.device = absl::StrCat("cuda:", device);
  out.allocated_bytes = s.allocated_bytes[kAll].current;
  out.reserved_bytes = s.reserved_bytes[kAll].current;
  out.active_bytes = s.active_bytes[kAll].current;
  out.peak_allocated_bytes = s.allocated_bytes[kAll].peak;
  out.peak_reserved_bytes = s.reserved_bytes[kAll].peak;
  out.peak_active_bytes = s.active_bytes[kAll].peak;
  return out;
}

absl::StatusOr<AllocatorStats> ReadDevice(int device) {
  try {
    return ToStats(device, cca::getDeviceStats(device));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cuda:", device, " allocator statistics: ", e.what()));
  }
}

class CachingAllocatorStats final : public AllocatorStatsSource {
 public:
  explicit CachingAllocatorStats(int device) : device_(device) {}
  absl::Status ResetPeaks() override {
    try {
      cca::resetPeakStats(device_);
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("cuda:", device_, " reset of allocator peaks: ", e.what()));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<AllocatorStats> Read() override { return ReadDevice(device_); }

 private:
  int device_;
};

}  // namespace

absl::Status CudaAllocatorStatsStatus() {
  if (DeviceCount() == 0) return absl::UnavailableError("no CUDA device: no caching allocator statistics");
  // LibTorch sets the caching allocator up lazily, with the first CUDA
  // tensor; until then reading or resetting its statistics throws "Invalid
  // device argument". Set it up now (once per process, as a tensor would).
  try {
    torch_compat::LazyInitCuda();
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("CUDA initialisation failed: ", e.what()));
  }
  return absl::OkStatus();
}

std::unique_ptr<AllocatorStatsSource> MakeCudaAllocatorStats(int device) {
  if (absl::Status status = CudaAllocatorStatsStatus(); !status.ok()) return UnavailableAllocatorStats(status);
  if (device < 0) {
    device = c10::cuda::current_device();
  } else if (device >= DeviceCount()) {
    return UnavailableAllocatorStats(
        absl::InvalidArgumentError(absl::StrCat("no CUDA device ", device, " (", DeviceCount(), " devices)")));
  }
  return std::make_unique<CachingAllocatorStats>(device);
}

absl::StatusOr<std::vector<AllocatorStats>> ReadAllCudaAllocatorStats() {
  if (absl::Status status = CudaAllocatorStatsStatus(); !status.ok()) return status;
  std::vector<AllocatorStats> all;
  for (int d = 0, n = DeviceCount(); d < n; ++d) {
    absl::StatusOr<AllocatorStats> stats = ReadDevice(d);
    if (!stats.ok()) return stats.status();
    all.push_back(*std::move(stats));
  }
  return all;
}

#else  // !GRAPHPROF_WITH_TORCH_CUDA

absl::Status CudaAllocatorStatsStatus() {
#ifdef GRAPHPROF_LIBTORCH_HAS_CUDA
  return absl::UnavailableError(
      "graphprof was built without CUDA: rebuild with --config=cuda to read the CUDA caching allocator");
#else
  return absl::UnavailableError(
      "LibTorch without CUDA (no caching allocator statistics; set LIBTORCH_DIR to a CUDA LibTorch and build with "
      "--config=cuda)");
#endif
}

std::unique_ptr<AllocatorStatsSource> MakeCudaAllocatorStats(int device) {
  return UnavailableAllocatorStats(CudaAllocatorStatsStatus());
}

absl::StatusOr<std::vector<AllocatorStats>> ReadAllCudaAllocatorStats() { return CudaAllocatorStatsStatus(); }

#endif

}  // namespace graphprof
