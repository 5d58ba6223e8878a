#include "profilers/report/rank_test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <utility>

namespace graphprof {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ranks of a ++ b (1-based, ties averaged): the rank sum of `a` and the tie
// term sum(t^3 - t) over groups of equal values.
struct Ranks {
  double rank_sum_a = 0;
  double tie_term = 0;
  bool ties = false;
};

Ranks RankSamples(absl::Span<const double> a, absl::Span<const double> b) {
  std::vector<std::pair<double, bool>> all;  // value, from a
  all.reserve(a.size() + b.size());
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Ranks r;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // mean of i+1..j
    for (size_t k = i; k < j; ++k) {
      if (all[k].second) r.rank_sum_a += rank;
    }
    if (t > 1) {
      r.ties = true;
      r.tie_term += t * t * t - t;
    }
    i = j;
  }
  return r;
}

// The null distribution of U for sizes (n, m), n <= m, as P(U = u), u = 0..n*m.
// Recurrence on the largest of the n + m values: it belongs to the first
// sample with probability n / (n + m), adding m to U.
std::vector<double> ExactPmf(int n, int m) {
  // row[j] = pmf for sizes (i, j); previous row (i - 1, j).
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>{1.0});
  for (int i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> row(m + 1);
    row[0] = {1.0};
    for (int j = 1; j <= m; ++j) {
      std::vector<double>& p = row[j];
      p.assign(static_cast<size_t>(i) * j + 1, 0.0);
      const double from_a = static_cast<double>(i) / (i + j);
      const double from_b = static_cast<double>(j) / (i + j);
      const std::vector<double>& a = prev[j];    // (i - 1, j), shifted by j
      const std::vector<double>& b = row[j - 1];  // (i, j - 1)
      for (size_t u = 0; u < a.size(); ++u) p[u + j] += from_a * a[u];
      for (size_t u = 0; u < b.size(); ++u) p[u] += from_b * b[u];
    }
    prev = std::move(row);
  }
  return prev[m];
}

// Cumulative distributions by (n, m), computed once per size pair.
const std::vector<double>& ExactCdfTable(int n, int m) {
  static std::mutex mu;
  static auto* tables = new std::map<std::pair<int, int>, std::vector<double>>();
  if (n > m) std::swap(n, m);
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = tables->try_emplace({n, m});
  if (inserted) {
    std::vector<double> pmf = ExactPmf(n, m);
    it->second.resize(pmf.size());
    std::partial_sum(pmf.begin(), pmf.end(), it->second.begin());
    for (double& c : it->second) c = std::min(c, 1.0);
  }
  return it->second;
}

bool UseExact(int n, int m, bool ties, RankMethod method) {
  if (static_cast<int64_t>(n) * m > kMaxExactPairs) return false;
  switch (method) {
    case RankMethod::kExact: return !ties;
    case RankMethod::kAsymptotic: return false;
    case RankMethod::kAuto: return !ties && std::min(n, m) <= 8;
  }
  return false;
}

// Standard deviation of U under the null, with the tie correction.
double SigmaU(int n, int m, double tie_term) {
  const double nn = static_cast<double>(n) + m;
  const double var = static_cast<double>(n) * m / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  return var > 0 ? std::sqrt(var) : 0;
}

// The k-th smallest (1-based) of the n * m differences b_j - a_i, for sorted
// a and b: explicit for small sizes, else by bisection on the value, counting
// the differences at most x with two pointers.
double KthDifference(const std::vector<double>& a, const std::vector<double>& b, int64_t k) {
  const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
  if (n * m <= 1'000'000) {
    std::vector<double> d;
    d.reserve(static_cast<size_t>(n * m));
    for (double x : a) {
      for (double y : b) d.push_back(y - x);
    }
    std::nth_element(d.begin(), d.begin() + (k - 1), d.end());
    return d[k - 1];
  }
  auto count_at_most = [&](double x) {
    // For each a_i, the b_j <= a_i + x; a ascending, so the bound ascends.
    int64_t count = 0, j = 0;
    for (int64_t i = 0; i < n; ++i) {
      while (j < m && b[j] - a[i] <= x) ++j;
      count += j;
    }
    return count;
  };
  double lo = b.front() - a.back(), hi = b.back() - a.front();
  for (int iter = 0; iter < 200 && lo < hi; ++iter) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (count_at_most(mid) >= k) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

}  // namespace

Shift MedianInterval(absl::Span<const double> values, double confidence) {
  Shift s;
  s.low = -kInf;
  s.high = kInf;
  const int n = static_cast<int>(values.size());
  if (n == 0) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.estimate = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  // P(Binomial(n, 1/2) <= j), accumulated term by term in logs.
  const double tail = (1 - confidence) / 2;
  double cumulative = 0;
  int k = 0;
  for (int j = 0; j < n; ++j) {
    const double log_term = std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) - n * std::log(2.0);
    cumulative += std::exp(log_term);
    if (cumulative > tail) break;
    k = j + 1;  // P(B < k) = P(B <= j) <= tail
  }
  if (k >= 1 && k <= n + 1 - k) {
    s.low = sorted[k - 1];
    s.high = sorted[n - k];
  }
  return s;
}

bool Shift::bounded() const { return std::isfinite(low) && std::isfinite(high); }

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  if (!(p > 0 && p < 1)) return p <= 0 ? -kInf : kInf;
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    if (NormalCdf(mid) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

double MannWhitneyCdf(int n, int m, double u) {
  if (n <= 0 || m <= 0) return u >= 0 ? 1 : 0;
  if (static_cast<int64_t>(n) * m > kMaxExactPairs) return -1;
  const std::vector<double>& cdf = ExactCdfTable(n, m);
  if (u < 0) return 0;
  const double index = std::floor(u);
  if (index >= static_cast<double>(cdf.size() - 1)) return 1;
  return cdf[static_cast<size_t>(index)];
}

double SmallestMannWhitneyP(int n, int m) {
  if (n <= 0 || m <= 0) return 1;
  // 1 / C(n + m, n) in logs.
  const double log_choose = std::lgamma(n + m + 1.0) - std::lgamma(n + 1.0) - std::lgamma(m + 1.0);
  return std::min(1.0, 2 * std::exp(-log_choose));
}

MannWhitney MannWhitneyU(absl::Span<const double> a, absl::Span<const double> b, RankMethod method) {
  MannWhitney result;
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n == 0 || m == 0) return result;
  const Ranks ranks = RankSamples(a, b);
  result.u = ranks.rank_sum_a - static_cast<double>(n) * (n + 1) / 2;
  const double big = std::max(result.u, static_cast<double>(n) * m - result.u);
  result.exact = UseExact(n, m, ranks.ties, method);
  if (result.exact) {
    // P(U' >= big) = 1 - P(U' <= big - 1).
    result.p = 2 * (1 - MannWhitneyCdf(n, m, big - 1));
  } else {
    const double sigma = SigmaU(n, m, ranks.tie_term);
    if (sigma <= 0) {
      result.p = 1;  // every value equal
    } else {
      const double z = (big - static_cast<double>(n) * m / 2 - 0.5) / sigma;
      result.p = 2 * NormalCdf(-z);
    }
  }
  result.p = std::clamp(result.p, 0.0, 1.0);
  return result;
}

Shift HodgesLehmann(absl::Span<const double> a, absl::Span<const double> b, double confidence, RankMethod method) {
  Shift shift;
  shift.low = -kInf;
  shift.high = kInf;
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n == 0 || m == 0) return shift;
  std::vector<double> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  const int64_t pairs = static_cast<int64_t>(n) * m;
  shift.estimate = pairs % 2 == 1 ? KthDifference(sa, sb, pairs / 2 + 1)
                                  : (KthDifference(sa, sb, pairs / 2) + KthDifference(sa, sb, pairs / 2 + 1)) / 2;
  // c: the largest count with P(U < c) <= (1 - confidence) / 2; the interval
  // is [D_(c), D_(pairs + 1 - c)] (c = 0: unbounded).
  const double tail = (1 - confidence) / 2;
  const Ranks ranks = RankSamples(a, b);
  int64_t c = 0;
  if (UseExact(n, m, ranks.ties, method)) {
    while (c < pairs / 2 && MannWhitneyCdf(n, m, static_cast<double>(c)) <= tail) ++c;
  } else {
    const double sigma = SigmaU(n, m, ranks.tie_term);
    c = static_cast<int64_t>(std::floor(static_cast<double>(pairs) / 2 + 0.5 + NormalQuantile(tail) * sigma));
    c = std::clamp<int64_t>(c, 0, pairs / 2);
  }
  if (c >= 1) {
    shift.low = KthDifference(sa, sb, c);
    shift.high = KthDifference(sa, sb, pairs + 1 - c);
  }
  return shift;
}

}  // namespace graphprof
