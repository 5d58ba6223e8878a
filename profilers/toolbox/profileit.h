// Profileit: run a callable once and get its result plus what it cost
// (torch_geometric.profile.profileit in C++): wall time, bytes allocated,
// allocations and peak live bytes of CPU tensor memory (MemoryTracker, this
// thread), and device memory: the CUDA caching allocator's peak allocated,
// reserved and active bytes during the call (peaks reset before it) and the
// device's free/used memory after it (NVML). SummarizeStats folds several
// calls' stats (torch_geometric's get_stats_summary: mean/std time, max
// peaks, min free and max used device memory).
//
//   auto [output, stats] = graphprof::Profileit([&] { return module.forward(inputs); });
//   std::cout << stats.seconds << " s, peak " << stats.peak_bytes << " B\n";
//   if (stats.device_allocator.ok()) std::cout << stats.device_allocator->peak_allocated_bytes << "\n";
//   else std::cout << stats.device_allocator.status().message() << "\n";  // e.g. "LibTorch without CUDA ..."
//
// Device fields are absl::StatusOr: where they cannot be measured (a CPU
// LibTorch, no device, no driver) they hold the reason, never zeros. On a
// device the call is bracketed by device synchronisation, as Timeit's.
// Exceptions thrown by the callable propagate unchanged.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "profilers/gpu/device_memory.h"
#include "profilers/memory_tracker.h"
#include "profilers/time_source.h"

namespace graphprof {

struct ProfileStats {
  double seconds = 0;
  int64_t peak_bytes = 0;       // highest live CPU tensor bytes above the starting point
  int64_t allocated_bytes = 0;  // everything allocated
  int64_t allocations = 0;
  // The caching allocator after the call, its peaks reset before it: the
  // call's peak allocated/reserved/active device bytes (peak_*_bytes).
  absl::StatusOr<AllocatorStats> device_allocator = absl::UnavailableError("device memory not measured");
  // The device's free/used memory after the call (NVML, all processes).
  absl::StatusOr<DeviceMemoryInfo> device_info = absl::UnavailableError("device memory not measured");
};

template <typename T>
struct Profiled {
  T value;
  ProfileStats stats;
};

template <>
struct Profiled<void> {
  ProfileStats stats;
};

struct ProfileitOptions {
  // Device memory sources. Null: the current CUDA device's caching allocator
  // (cuda_allocator_stats.h) and NVML (nvml.h); where one cannot work the
  // stats carry its reason.
  AllocatorStatsSource* allocator = nullptr;
  DeviceMemoryInfoSource* device_info = nullptr;
  // Called before the clock is read at the start and at the end; null:
  // SynchronizeDevice (device_sync.h, a no-op without a device).
  std::function<void()> synchronize;
  std::shared_ptr<TimeSource> clock;  // null: SteadyClock
};

struct DeviceAllocatorSummary {
  int64_t max_allocated_bytes = 0;  // the highest peak_allocated_bytes of the calls
  int64_t max_reserved_bytes = 0;
  int64_t max_active_bytes = 0;
};

struct DeviceInfoSummary {
  int64_t min_free_bytes = 0;
  int64_t max_used_bytes = 0;
};

struct StatsSummary {
  int count = 0;
  double seconds_mean = 0;
  double seconds_std = 0;  // sample std (n - 1)
  int64_t max_peak_bytes = 0;
  int64_t max_allocated_bytes = 0;
  // Over the calls' device fields; present only when every call has them,
  // else the first missing one's reason ("call 2: no CUDA device ...").
  absl::StatusOr<DeviceAllocatorSummary> device_allocator = absl::UnavailableError("no calls");
  absl::StatusOr<DeviceInfoSummary> device_info = absl::UnavailableError("no calls");
};

StatsSummary SummarizeStats(absl::Span<const ProfileStats> stats);

namespace internal {

// Times and tracks one call; `fn` is invoked between construction and Finish().
class ProfileScope {
 public:
  explicit ProfileScope(const ProfileitOptions& options);
  ~ProfileScope();
  ProfileStats Finish();

 private:
  std::unique_ptr<AllocatorStatsSource> own_allocator_;
  std::unique_ptr<DeviceMemoryInfoSource> own_device_info_;
  AllocatorStatsSource* allocator_;
  DeviceMemoryInfoSource* device_info_;
  std::function<void()> synchronize_;
  std::shared_ptr<TimeSource> clock_;
  absl::Status reset_;
  std::shared_ptr<MemoryTracker> tracker_;
  std::unique_ptr<ScopedMemoryTracking> tracking_;
  int64_t start_ns_ = 0;
};

}  // namespace internal

template <typename F>
auto Profileit(F&& fn, const ProfileitOptions& options = {}) -> Profiled<std::invoke_result_t<F>> {
  using R = std::invoke_result_t<F>;
  internal::ProfileScope scope(options);
  if constexpr (std::is_void_v<R>) {
    std::forward<F>(fn)();
    return Profiled<void>{scope.Finish()};
  } else {
    R value = std::forward<F>(fn)();
    ProfileStats stats = scope.Finish();
    return Profiled<R>{std::move(value), std::move(stats)};
  }
}

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_
