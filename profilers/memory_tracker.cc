#include "profilers/memory_tracker.h"

#include <algorithm>

namespace graphprof {

void MemoryTracker::reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, int64_t /*total_allocated*/,
                                      int64_t /*total_reserved*/, c10::Device device) {
  if (!device.is_cpu()) return;  // device memory is not part of this view
  live_ += alloc_size;
  if (alloc_size >= 0) {
    allocated_ += alloc_size;
    ++allocations_;
  } else {
    freed_ -= alloc_size;
    ++frees_;
  }
  if (live_ > peak_) {
    peak_ = live_;
    peak_tag_ = tag_;
  }
  window_peak_ = std::max(window_peak_, live_);
}

void MemoryTracker::Reset() {
  live_ = allocated_ = freed_ = allocations_ = frees_ = peak_ = window_peak_ = 0;
  tag_ = peak_tag_ = -1;
}

}  // namespace graphprof
