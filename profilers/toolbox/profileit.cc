#include "profilers/toolbox/profileit.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "profilers/gpu/cuda_allocator_stats.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/nvml.h"
#include "profilers/report/stats.h"
#include "profilers/toolbox/device_sync.h"

namespace graphprof {
namespace internal {

ProfileScope::ProfileScope(const ProfileitOptions& options)
    : allocator_(options.allocator),
      device_info_(options.device_info),
      synchronize_(options.synchronize),
      clock_(options.clock) {
  if (allocator_ == nullptr) {
    own_allocator_ = MakeCudaAllocatorStats();
    allocator_ = own_allocator_.get();
  }
  if (device_info_ == nullptr) {
    static const CudaStatus cuda = ProbeCuda();
    own_device_info_ = cuda.available ? MakeNvmlMemoryInfo(CurrentCudaDevice())
                                      : UnavailableDeviceMemoryInfo(cuda.ToStatus());
    device_info_ = own_device_info_.get();
  }
  if (!synchronize_) synchronize_ = [] { SynchronizeDevice(); };
  if (!clock_) clock_ = std::make_shared<SteadyClock>();
  // Queued device work from before the call must not count: synchronise
  // before the peaks are reset and the clock starts.
  synchronize_();
  reset_ = allocator_->ResetPeaks();
  tracker_ = std::make_shared<MemoryTracker>();
  tracking_ = std::make_unique<ScopedMemoryTracking>(tracker_);
  start_ns_ = clock_->NowNs();
}

ProfileScope::~ProfileScope() = default;

ProfileStats ProfileScope::Finish() {
  ProfileStats stats;
  synchronize_();
  stats.seconds = static_cast<double>(clock_->NowNs() - start_ns_) / 1e9;
  tracking_.reset();
  stats.peak_bytes = tracker_->peak_bytes();
  stats.allocated_bytes = tracker_->allocated_bytes();
  stats.allocations = tracker_->allocations();
  // Without a reset the peaks would be of an older window: not the call's.
  stats.device_allocator = reset_.ok() ? allocator_->Read() : absl::StatusOr<AllocatorStats>(reset_);
  stats.device_info = device_info_->Read();
  return stats;
}

}  // namespace internal

namespace {

// The first call's error, named by its position, or OK when all have values.
template <typename T>
absl::Status AllPresent(absl::Span<const ProfileStats> stats, absl::StatusOr<T> ProfileStats::*field) {
  if (stats.empty()) return absl::UnavailableError("no calls");
  for (size_t i = 0; i < stats.size(); ++i) {
    const absl::Status& status = (stats[i].*field).status();
    if (!status.ok()) return absl::Status(status.code(), absl::StrCat("call ", i, ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace

StatsSummary SummarizeStats(absl::Span<const ProfileStats> stats) {
  StatsSummary summary;
  summary.count = static_cast<int>(stats.size());
  std::vector<int64_t> ns;
  for (const ProfileStats& s : stats) {
    ns.push_back(std::llround(s.seconds * 1e9));
    summary.max_peak_bytes = std::max(summary.max_peak_bytes, s.peak_bytes);
    summary.max_allocated_bytes = std::max(summary.max_allocated_bytes, s.allocated_bytes);
  }
  const Summary time = Summarize(ns);
  summary.seconds_mean = time.mean / 1e9;
  summary.seconds_std = time.std / 1e9;

  if (absl::Status all = AllPresent(stats, &ProfileStats::device_allocator); all.ok()) {
    DeviceAllocatorSummary device;
    for (const ProfileStats& s : stats) {
      device.max_allocated_bytes = std::max(device.max_allocated_bytes, s.device_allocator->peak_allocated_bytes);
      device.max_reserved_bytes = std::max(device.max_reserved_bytes, s.device_allocator->peak_reserved_bytes);
      device.max_active_bytes = std::max(device.max_active_bytes, s.device_allocator->peak_active_bytes);
    }
    summary.device_allocator = device;
  } else {
    summary.device_allocator = all;
  }
  if (absl::Status all = AllPresent(stats, &ProfileStats::device_info); all.ok()) {
    DeviceInfoSummary info;
    info.min_free_bytes = stats.front().device_info->free_bytes;
    for (const ProfileStats& s : stats) {
      info.min_free_bytes = std::min(info.min_free_bytes, s.device_info->free_bytes);
      info.max_used_bytes = std::max(info.max_used_bytes, s.device_info->used_bytes);
    }
    summary.device_info = info;
  } else {
    summary.device_info = all;
  }
  return summary;
}

}  // namespace graphprof
