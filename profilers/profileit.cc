#include "profilers/profileit.h"

#include <algorithm>
#include <cmath>

namespace graphprof {
namespace internal {

ProfileScope::ProfileScope()
    : tracker_(std::make_shared<MemoryTracker>()),
      tracking_(std::make_unique<ScopedMemoryTracking>(tracker_)),
      start_ns_(clock_.NowNs()) {}

ProfileScope::~ProfileScope() = default;

ProfileStats ProfileScope::Finish() {
  ProfileStats stats;
  stats.seconds = static_cast<double>(clock_.NowNs() - start_ns_) / 1e9;
  tracking_.reset();
  stats.peak_bytes = tracker_->peak_bytes();
  stats.allocated_bytes = tracker_->allocated_bytes();
  stats.allocations = tracker_->allocations();
  return stats;
}

}  // namespace internal

StatsSummary SummarizeStats(absl::Span<const ProfileStats> stats) {
  StatsSummary summary;
  summary.count = static_cast<int>(stats.size());
  if (stats.empty()) return summary;
  for (const ProfileStats& s : stats) {
    summary.seconds_mean += s.seconds;
    summary.max_peak_bytes = std::max(summary.max_peak_bytes, s.peak_bytes);
    summary.max_allocated_bytes = std::max(summary.max_allocated_bytes, s.allocated_bytes);
  }
  summary.seconds_mean /= static_cast<double>(stats.size());
  if (stats.size() > 1) {
    double squares = 0;
    for (const ProfileStats& s : stats) squares += (s.seconds - summary.seconds_mean) * (s.seconds - summary.seconds_mean);
    summary.seconds_std = std::sqrt(squares / static_cast<double>(stats.size() - 1));
  }
  return summary;
}

}  // namespace graphprof
