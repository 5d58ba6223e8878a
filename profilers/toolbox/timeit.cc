#include "profilers/toolbox/timeit.h"

#include "absl/strings/str_format.h"
#include "profilers/toolbox/device_sync.h"

namespace graphprof {

absl::StatusOr<double> TimeitResult::seconds() const {
  if (!seconds_.has_value()) {
    return absl::FailedPreconditionError("the timer is still running (its scope has not ended, no Reset() yet)");
  }
  return *seconds_;
}

Timeit::Timeit(TimeitResult* result, TimeitOptions options) : result_(result), options_(std::move(options)) {
  if (!options_.clock) options_.clock = DefaultTimeSource();
  if (!options_.synchronize) options_.synchronize = [] { SynchronizeDevice(); };
  if (result_ != nullptr) result_->seconds_.reset();
  Start();
}

Timeit::~Timeit() { Stop(); }

double Timeit::Reset() {
  const double seconds = Stop();
  Start();
  return seconds;
}

void Timeit::Start() {
  options_.synchronize();
  start_ns_ = options_.clock->NowNs();
}

double Timeit::Stop() {
  options_.synchronize();
  const int64_t elapsed = options_.clock->NowNs() - start_ns_;
  double seconds = static_cast<double>(elapsed) / 1e9;
  if (options_.avg_time_divisor > 1) seconds /= static_cast<double>(options_.avg_time_divisor);
  if (result_ != nullptr) result_->seconds_ = seconds;
  if (options_.log && options_.log_stream != nullptr) {
    *options_.log_stream << absl::StrFormat("%s: %.6fs", options_.label, seconds) << std::endl;
  }
  return seconds;
}

}  // namespace graphprof
