// Time sources for the profilers: where "now" comes from.
//
// A profiler reads the clock once per node (twice with observers), so
// implementations must be cheap and must not allocate or lock. TscClock (the CPU's time-stamp counter,
// ~10 ns a read) is the default where the TSC is invariant, SteadyClock
// elsewhere; ManualClock only moves when told to, which makes timing tests
// deterministic (a test operator advances it by a known amount, and every
// statistic becomes exact). Device time (CUDA events) is a different
// interface: see device_timer.h.
//
// ProfilingInterpreter reads TscClock and SteadyClock without a virtual
// call (their Read* functions are inline and static): see kind().
#ifndef GRAPHPROF_PROFILERS_TIME_SOURCE_H_
#define GRAPHPROF_PROFILERS_TIME_SOURCE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

class TimeSource {
 public:
  // Which clock this is, for callers that read it without a virtual call.
  enum class Kind { kOther, kSteady, kTsc };

  virtual ~TimeSource() = default;
  // Monotonic time in nanoseconds from an arbitrary origin.
  virtual int64_t NowNs() = 0;
  virtual absl::string_view name() const = 0;
  virtual Kind kind() const { return Kind::kOther; }
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
  Kind kind() const override { return Kind::kSteady; }
  static int64_t Read() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// The CPU's time-stamp counter, converted to nanoseconds with a rate
// calibrated against steady_clock when the clock is made (~20 ms). Only
// offered where the TSC is invariant (constant_tsc and nonstop_tsc: it ticks
// at one rate in every power state and core), on x86-64.
//
// Fences: none, `rdtsc` alone. rdtsc does not wait for earlier instructions
// to finish, and later ones may start before it, so each end of a node's
// interval can move by the CPU's reorder window (a few hundred instructions
// in flight: tens of nanoseconds at most, either way, averaging out over
// executions). A fence would pin each read (`lfence; rdtsc`, or rdtscp at
// the stop), but on this project's machine (AMD EPYC) a fenced read costs
// 15 ns and rdtscp 17 ns against 9 ns for rdtsc alone: with one read per
// node (chained: it ends one node and starts the next), fences would add
// ~6 ns to every node to sharpen intervals already at the noise of the
// shortest nodes. Whatever the reads cost on average is
// measured at start-up and taken off (MeasureTimerCost, Compensate), and
// the memory clobber keeps the compiler from moving work across a read.
class TscClock final : public TimeSource {
 public:
  // Fails (with the reason) where the TSC is not invariant or not x86-64.
  static absl::StatusOr<std::shared_ptr<TscClock>> Create();

  int64_t NowNs() override { return TicksToNs(Read()); }
  absl::string_view name() const override { return "tsc"; }
  Kind kind() const override { return Kind::kTsc; }

  static int64_t Read() {
#if defined(__x86_64__)
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return static_cast<int64_t>((static_cast<uint64_t>(hi) << 32) | lo);
#else
    return SteadyClock::Read();
#endif
  }
  double ns_per_tick() const { return ns_per_tick_; }
  int64_t TicksToNs(int64_t ticks) const { return static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick_); }

 private:
  explicit TscClock(double ns_per_tick) : ns_per_tick_(ns_per_tick) {}
  double ns_per_tick_;
};

// Why there is no invariant TSC here ("" when there is one).
std::string InvariantTscMissing();

// A clock that stands still until Advance() is called (thread-safe).
class ManualClock final : public TimeSource {
 public:
  int64_t NowNs() override { return now_.load(std::memory_order_relaxed); }
  absl::string_view name() const override { return "manual"; }
  void Advance(int64_t ns) { now_.fetch_add(ns, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_{0};
};

// TscClock where available, else SteadyClock.
std::shared_ptr<TimeSource> DefaultTimeSource();

// "steady" or "tsc" (anything else fails with the choices).
absl::StatusOr<std::shared_ptr<TimeSource>> MakeTimeSource(absl::string_view name);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TIME_SOURCE_H_
