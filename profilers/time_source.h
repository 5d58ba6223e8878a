// Time sources for the profilers: where "now" comes from.
//
// A profiler reads NowNs() twice per node, so implementations must be cheap
// and must not allocate or lock. SteadyClock is the default; ManualClock only
// moves when told to, which makes timing tests deterministic (a test operator
// advances it by a known amount, and every statistic becomes exact).
// Device time (CUDA events) is a different interface: see device_timer.h.
#ifndef GRAPHPROF_PROFILERS_TIME_SOURCE_H_
#define GRAPHPROF_PROFILERS_TIME_SOURCE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "absl/strings/string_view.h"

namespace graphprof {

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  // Monotonic time in nanoseconds from an arbitrary origin.
  virtual int64_t NowNs() = 0;
  virtual absl::string_view name() const = 0;
};

// std::chrono::steady_clock (clock_gettime(CLOCK_MONOTONIC) via the vDSO).
class SteadyClock final : public TimeSource {
 public:
  int64_t NowNs() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  absl::string_view name() const override { return "steady_clock"; }
};

// A clock that stands still until Advance() is called (thread-safe).
class ManualClock final : public TimeSource {
 public:
  int64_t NowNs() override { return now_.load(std::memory_order_relaxed); }
  absl::string_view name() const override { return "manual"; }
  void Advance(int64_t ns) { now_.fetch_add(ns, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_{0};
};

std::shared_ptr<TimeSource> DefaultTimeSource();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TIME_SOURCE_H_
