#include "profilers/report/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace graphprof {

double Percentile(absl::Span<const int64_t> sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(rank));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return static_cast<double>(sorted[lower]) +
         fraction * static_cast<double>(sorted[upper] - sorted[lower]);
}

template <typename T>
double MeanOf(absl::Span<const T> values) {
  double sum = 0;
  for (T v : values) sum += static_cast<double>(v);
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

double Mean(absl::Span<const double> values) { return MeanOf(values); }
double Mean(absl::Span<const int64_t> values) { return MeanOf(values); }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

Summary Summarize(absl::Span<const int64_t> values) {
  Summary s;
  s.count = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  std::vector<int64_t> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  for (int64_t v : sorted) s.total += static_cast<double>(v);
  s.mean = s.total / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0;
    for (int64_t v : sorted) squares += (static_cast<double>(v) - s.mean) * (static_cast<double>(v) - s.mean);
    s.std = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  s.min = static_cast<double>(sorted.front());
  s.max = static_cast<double>(sorted.back());
  s.median = Percentile(sorted, 50);
  s.p90 = Percentile(sorted, 90);
  return s;
}

}  // namespace graphprof
