#include "profilers/memory_tracker.h"

#include <algorithm>

namespace graphprof {

void AllocationLedger::Freed(void* ptr) {
  auto it = live_.find(ptr);
  if (it == live_.end()) return;
  if (phase_ == Phase::kBackward && it->second.tag >= 0 && it->second.tag < static_cast<int>(saved_by_tag_.size())) {
    saved_by_tag_[it->second.tag] += it->second.bytes;
    saved_ += it->second.bytes;
  }
  live_.erase(it);
}

void MemoryTracker::reportMemoryUsage(void* ptr, int64_t alloc_size, torch_compat::ReportedTotal /*total_allocated*/,
                                      torch_compat::ReportedTotal /*total_reserved*/, c10::Device device) {
  if (!device.is_cpu()) return;  // device memory is not part of this view
  if (ledger_ != nullptr) {
    if (alloc_size >= 0) {
      ledger_->Allocated(ptr, alloc_size, tag_);
    } else {
      ledger_->Freed(ptr);
    }
  }
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
  if (live_ > window_peak_) {
    window_peak_ = live_;
    window_peak_tag_ = tag_;
  }
}

void MemoryTracker::Reset() {
  live_ = allocated_ = freed_ = allocations_ = frees_ = peak_ = window_peak_ = 0;
  tag_ = peak_tag_ = window_peak_tag_ = -1;
}

}  // namespace graphprof
