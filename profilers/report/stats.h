// Summary statistics over a series of per-run values (nanoseconds, bytes...).
#ifndef GRAPHPROF_PROFILERS_REPORT_STATS_H_
#define GRAPHPROF_PROFILERS_REPORT_STATS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace graphprof {

struct Summary {
  int64_t count = 0;  // number of values
  double mean = 0;
  double std = 0;     // sample standard deviation (n - 1); 0 for one value
  double min = 0;
  double median = 0;
  double p90 = 0;     // 90th percentile, linear interpolation (numpy's default)
  double max = 0;
  double total = 0;   // sum
};

Summary Summarize(absl::Span<const int64_t> values);

// The mean of `values`, added up in order; 0 for none.
double Mean(absl::Span<const double> values);
double Mean(absl::Span<const int64_t> values);

// into[r] += values[r] for every run r; `into` grows to fit.
template <typename T>
void AddPerRun(std::vector<T>& into, absl::Span<const int64_t> values) {
  if (into.size() < values.size()) into.resize(values.size(), 0);
  for (size_t r = 0; r < values.size(); ++r) into[r] += static_cast<T>(values[r]);
}

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> v);

// The p-th percentile (0..100) of `sorted` (ascending), linearly interpolated.
double Percentile(absl::Span<const int64_t> sorted, double p);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_STATS_H_
