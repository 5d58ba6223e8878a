#include "profilers/toolbox/timeit.h"

#include "absl/strings/str_format.h"

namespace graphprof {

absl::StatusOr<double> TimeitResult::seconds() const {
  if (!seconds_.has_value()) {
    return absl::FailedPreconditionError("the timer is still running (its scope has not ended)");
  }
  return *seconds_;
}

Timeit::Timeit(TimeitResult* result, TimeitOptions options) : result_(result), options_(std::move(options)) {
  if (!options_.clock) options_.clock = DefaultTimeSource();
  if (result_ != nullptr) result_->seconds_.reset();
  start_ns_ = options_.clock->NowNs();
}

Timeit::~Timeit() {
  const int64_t elapsed = options_.clock->NowNs() - start_ns_;
  double seconds = static_cast<double>(elapsed) / 1e9;
  if (options_.divisor > 1) seconds /= static_cast<double>(options_.divisor);
  if (result_ != nullptr) result_->seconds_ = seconds;
  if (options_.log && options_.log_stream != nullptr) {
    *options_.log_stream << absl::StrFormat("%s: %.6fs", options_.label, seconds) << std::endl;
  }
}

}  // namespace graphprof
