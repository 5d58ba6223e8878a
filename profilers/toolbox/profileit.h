// Profileit: run a callable once and get its result plus what it cost
// (torch_geometric.profile.profileit in C++): wall time, bytes allocated,
// allocations and peak live bytes of CPU tensor memory (MemoryTracker, this
// thread). SummarizeStats folds several runs' stats (mean/std time, max peaks).
//
//   auto [output, stats] = graphprof::Profileit([&] { return module.forward(inputs); });
//   std::cout << stats.seconds << " s, peak " << stats.peak_bytes << " B\n";
//
// Exceptions thrown by the callable propagate unchanged.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/types/span.h"
#include "profilers/memory_tracker.h"
#include "profilers/time_source.h"

namespace graphprof {

struct ProfileStats {
  double seconds = 0;
  int64_t peak_bytes = 0;       // highest live bytes above the starting point
  int64_t allocated_bytes = 0;  // everything allocated
  int64_t allocations = 0;
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

struct StatsSummary {
  int count = 0;
  double seconds_mean = 0;
  double seconds_std = 0;  // sample std (n - 1)
  int64_t max_peak_bytes = 0;
  int64_t max_allocated_bytes = 0;
};

StatsSummary SummarizeStats(absl::Span<const ProfileStats> stats);

namespace internal {

// Times and tracks one call; `fn` is invoked inside.
class ProfileScope {
 public:
  ProfileScope();
  ~ProfileScope();
  ProfileStats Finish();

 private:
  std::shared_ptr<MemoryTracker> tracker_;
  std::unique_ptr<ScopedMemoryTracking> tracking_;
  SteadyClock clock_;
  int64_t start_ns_;
};

}  // namespace internal

template <typename F>
auto Profileit(F&& fn) -> Profiled<std::invoke_result_t<F>> {
  using R = std::invoke_result_t<F>;
  internal::ProfileScope scope;
  if constexpr (std::is_void_v<R>) {
    std::forward<F>(fn)();
    return Profiled<void>{scope.Finish()};
  } else {
    R value = std::forward<F>(fn)();
    ProfileStats stats = scope.Finish();
    return Profiled<R>{std::move(value), stats};
  }
}

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_PROFILEIT_H_
