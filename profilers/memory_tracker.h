// MemoryTracker: counts CPU tensor memory through c10's memory reporting hook.
//
// While a ScopedMemoryTracking is alive on a thread, every allocation and free
// made by LibTorch on that thread is reported to the tracker (frees arrive as
// negative sizes). The tracker keeps running counters that a profiler
// snapshots around each node. Live bytes are counted from zero when tracking
// starts, so they are relative: a free of memory allocated before tracking
// makes them drop below zero.
//
// Caveats (LibTorch 1.13): the hook is thread-local, so work on other threads
// (intra-op parallelism) is invisible: profile memory with one thread. The hook
// shares c10's PROFILER_STATE slot with the autograd/Kineto profiler, so the
// two cannot run at the same time.
#ifndef GRAPHPROF_PROFILERS_MEMORY_TRACKER_H_
#define GRAPHPROF_PROFILERS_MEMORY_TRACKER_H_

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/torch_compat.h"

namespace graphprof {

// Each live allocation's size and tag, to find what forward allocated and
// backward freed: the memory kept for backward (saved activations). A hash
// map update per allocation: for inspection runs, not timed ones.
class AllocationLedger {
 public:
  explicit AllocationLedger(int num_tags) : saved_by_tag_(num_tags, 0) {}
  // Between these, frees of forward's allocations count as saved.
  void BeginBackward() { phase_ = Phase::kBackward; }
  void EndBackward() { phase_ = Phase::kAfter; }
  void Allocated(void* ptr, int64_t bytes, int tag) {
    if (phase_ == Phase::kForward) live_[ptr] = Entry{bytes, tag};
  }
  void Freed(void* ptr);
  // Per tag: bytes allocated in forward under it and freed in backward.
  const std::vector<int64_t>& saved_by_tag() const { return saved_by_tag_; }
  int64_t saved_bytes() const { return saved_; }

 private:
  struct Entry {
    int64_t bytes;
    int tag;
  };
  enum class Phase { kForward, kBackward, kAfter };
  Phase phase_ = Phase::kForward;
  std::unordered_map<void*, Entry> live_;
  std::vector<int64_t> saved_by_tag_;
  int64_t saved_ = 0;
};

class MemoryTracker : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* ptr, int64_t alloc_size, torch_compat::ReportedTotal total_allocated,
                         torch_compat::ReportedTotal total_reserved, c10::Device device) override;
  bool memoryProfilingEnabled() const override { return true; }

  // Running totals since construction or Reset().
  int64_t live_bytes() const { return live_; }
  int64_t allocated_bytes() const { return allocated_; }
  int64_t freed_bytes() const { return freed_; }
  int64_t allocations() const { return allocations_; }
  int64_t frees() const { return frees_; }

  // Highest live_bytes() since Reset(), and the tag current when it was reached.
  int64_t peak_bytes() const { return peak_; }
  int peak_tag() const { return peak_tag_; }

  // A resettable high-water mark for nested measurement windows: save
  // window_peak(), set_window_peak(live_bytes()), run, read window_peak(),
  // then restore max(saved, read).
  int64_t window_peak() const { return window_peak_; }
  void set_window_peak(int64_t bytes) {
    window_peak_ = bytes;
    window_peak_tag_ = tag_;
  }
  // The tag current when window_peak() was last raised.
  int window_peak_tag() const { return window_peak_tag_; }

  // A caller-defined tag (e.g. the running node's id) recorded with the peak.
  void set_tag(int tag) { tag_ = tag; }
  int tag() const { return tag_; }

  void Reset();

  // Also reports every allocation and free to `ledger` (not owned; null: none).
  void set_ledger(AllocationLedger* ledger) { ledger_ = ledger; }

 private:
  AllocationLedger* ledger_ = nullptr;
  int64_t live_ = 0;
  int64_t allocated_ = 0;
  int64_t freed_ = 0;
  int64_t allocations_ = 0;
  int64_t frees_ = 0;
  int64_t peak_ = 0;
  int64_t window_peak_ = 0;
  int tag_ = -1;
  int peak_tag_ = -1;
  int window_peak_tag_ = -1;
};

// Routes this thread's memory reports to `tracker` for the guard's lifetime.
class ScopedMemoryTracking {
 public:
  explicit ScopedMemoryTracking(std::shared_ptr<MemoryTracker> tracker)
      : guard_(c10::DebugInfoKind::PROFILER_STATE, std::move(tracker)) {}

 private:
  c10::DebugInfoGuard guard_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_MEMORY_TRACKER_H_
