#include "profilers/toolbox/profileit.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "profilers/report/stats.h"

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
  std::vector<int64_t> ns;
  for (const ProfileStats& s : stats) {
    ns.push_back(std::llround(s.seconds * 1e9));
    summary.max_peak_bytes = std::max(summary.max_peak_bytes, s.peak_bytes);
    summary.max_allocated_bytes = std::max(summary.max_allocated_bytes, s.allocated_bytes);
  }
  const Summary time = Summarize(ns);
  summary.seconds_mean = time.mean / 1e9;
  summary.seconds_std = time.std / 1e9;
  return summary;
}

}  // namespace graphprof
