// Timeit: a scoped timer (torch_geometric.profile.timeit in C++).
//
//   graphprof::TimeitOptions options;
//   options.avg_time_divisor = 100;    // report per iteration
//   options.log = true;
//   graphprof::TimeitResult t;
//   {
//     graphprof::Timeit timer(&t, options);
//     for (int i = 0; i < 100; ++i) Step();
//     timer.Reset();                   // logs "Time: 0.000123s", starts again
//     for (int i = 0; i < 100; ++i) Step();
//   }                                  // logs the second lap
//   double per_step = *t.seconds();    // the last completed measurement
//
// On a device the timer synchronises it (SynchronizeDevice, device_sync.h)
// when it starts, at every Reset() and when it stops, as torch_geometric's
// timeit does, so queued kernels are inside the measurement.
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "profilers/time_source.h"

namespace graphprof {

struct TimeitOptions {
  // Divide every duration by this (e.g. the loop's iteration count, for a
  // per-iteration average); <= 1: no division.
  int64_t avg_time_divisor = 0;
  bool log = false;            // print "<label>: <seconds>s" at Reset() and when the scope ends
  std::string label = "Time";
  std::ostream* log_stream = &std::cout;
  std::shared_ptr<TimeSource> clock;  // null: the default clock (time_source.h)
  // Called at start, at every Reset() and at the end, before the clock is
  // read. Null: SynchronizeDevice (a no-op without a CUDA device).
  std::function<void()> synchronize;
};

class TimeitResult {
 public:
  // The last completed measurement in seconds (divided by the divisor): of
  // the ended scope, or of the last Reset(). FailedPrecondition before either.
  absl::StatusOr<double> seconds() const;

 private:
  friend class Timeit;
  std::optional<double> seconds_;
};

class Timeit {
 public:
  explicit Timeit(TimeitResult* result, TimeitOptions options = {});
  ~Timeit();
  Timeit(const Timeit&) = delete;
  Timeit& operator=(const Timeit&) = delete;

  // torch_geometric's timeit.reset(): ends the running measurement as the
  // scope's end would (synchronise, record, log) and starts the next one.
  // Returns the ended measurement's seconds (divided by the divisor).
  double Reset();

 private:
  double Stop();
  void Start();

  TimeitResult* result_;
  TimeitOptions options_;
  int64_t start_ns_ = 0;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_
