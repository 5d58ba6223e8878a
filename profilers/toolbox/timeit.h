// Timeit: a scoped timer (torch_geometric.profile.timeit in C++).
//
//   graphprof::TimeitOptions options;
//   options.divisor = 100;             // report per iteration
//   options.log = true;
//   graphprof::TimeitResult t;
//   {
//     graphprof::Timeit timer(&t, options);
//     for (int i = 0; i < 100; ++i) Step();
//   }                                  // logs "Time: 0.000123s"
//   double per_step = *t.seconds();    // available once the scope has ended
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "profilers/time_source.h"

namespace graphprof {

struct TimeitOptions {
  // Divide the duration by this (e.g. the iteration count); <= 1: no division.
  int64_t divisor = 0;
  bool log = false;            // print "<label>: <seconds>s" when the scope ends
  std::string label = "Time";
  std::ostream* log_stream = &std::cout;
  std::shared_ptr<TimeSource> clock;  // null: SteadyClock
};

class TimeitResult {
 public:
  // The measured seconds (divided by the divisor), or FailedPrecondition while
  // the timer's scope has not ended yet.
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

 private:
  TimeitResult* result_;
  TimeitOptions options_;
  int64_t start_ns_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_TIMEIT_H_
