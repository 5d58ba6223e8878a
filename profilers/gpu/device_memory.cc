#include "profilers/gpu/device_memory.h"

#include <utility>

namespace graphprof {
namespace {

class NoAllocatorStats final : public AllocatorStatsSource {
 public:
  explicit NoAllocatorStats(absl::Status why) : why_(std::move(why)) {}
  absl::Status ResetPeaks() override { return why_; }
  absl::StatusOr<AllocatorStats> Read() override { return why_; }

 private:
  absl::Status why_;
};

class NoDeviceMemoryInfo final : public DeviceMemoryInfoSource {
 public:
  explicit NoDeviceMemoryInfo(absl::Status why) : why_(std::move(why)) {}
  absl::StatusOr<DeviceMemoryInfo> Read() override { return why_; }

 private:
  absl::Status why_;
};

absl::Status NotOk(absl::Status why) {
  return why.ok() ? absl::InternalError("unavailable without a reason") : why;
}

}  // namespace

std::unique_ptr<AllocatorStatsSource> UnavailableAllocatorStats(absl::Status why) {
  return std::make_unique<NoAllocatorStats>(NotOk(std::move(why)));
}

std::unique_ptr<DeviceMemoryInfoSource> UnavailableDeviceMemoryInfo(absl::Status why) {
  return std::make_unique<NoDeviceMemoryInfo>(NotOk(std::move(why)));
}

}  // namespace graphprof
