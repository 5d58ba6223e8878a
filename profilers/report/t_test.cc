#include "profilers/report/t_test.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "profilers/report/stats.h"

namespace graphprof {
namespace {

// The continued fraction of I_x(a, b) (modified Lentz), converging for
// x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 1000; ++m) {
    // Even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + even / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    f *= d * c;
    // Odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + odd / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    f *= delta;
    if (std::fabs(delta - 1) < kEpsilon) break;
  }
  return f;
}

double Variance(absl::Span<const double> v, double mean) {
  double squares = 0;
  for (double x : v) squares += (x - mean) * (x - mean);
  return squares / static_cast<double>(v.size() - 1);
}

}  // namespace

double RegularizedBeta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // x^a (1 - x)^b / (a B(a, b)), in logs.
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(x, a, b) / a;
  // Symmetry: I_x(a, b) = 1 - I_{1-x}(b, a).
  return 1 - front * BetaContinuedFraction(1 - x, b, a) / b;
}

double StudentTCdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  const double tail = 0.5 * RegularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) {
    if (p <= 0) return -std::numeric_limits<double>::infinity();
    if (p >= 1) return std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (p == 0.5) return 0;
  // Bracket, then bisect (the CDF is monotone).
  double lo = -1, hi = 1;
  while (StudentTCdf(lo, df) > p) lo *= 2;
  while (StudentTCdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-14 * std::max(1.0, std::fabs(lo)); ++i) {
    const double mid = (lo + hi) / 2;
    if (StudentTCdf(mid, df) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

Welch WelchTTest(absl::Span<const double> a, absl::Span<const double> b, double confidence) {
  Welch w;
  if (a.size() < 2 || b.size() < 2) return w;
  w.valid = true;
  const double ma = Mean(a), mb = Mean(b);
  const double va = Variance(a, ma) / static_cast<double>(a.size());
  const double vb = Variance(b, mb) / static_cast<double>(b.size());
  w.difference = mb - ma;
  w.se = std::sqrt(va + vb);
  if (!(w.se > 0)) {
    w.p = w.difference == 0 ? 1 : 0;
    w.low = w.high = w.difference;
    w.df = static_cast<double>(a.size() + b.size() - 2);
    return w;
  }
  const double na = static_cast<double>(a.size() - 1), nb = static_cast<double>(b.size() - 1);
  w.df = (va + vb) * (va + vb) / (va * va / na + vb * vb / nb);
  const double t = w.difference / w.se;
  w.p = std::clamp(2 * StudentTCdf(-std::fabs(t), w.df), 0.0, 1.0);
  const double q = StudentTQuantile(1 - (1 - confidence) / 2, w.df);
  w.low = w.difference - q * w.se;
  w.high = w.difference + q * w.se;
  return w;
}

Welch PairedTTest(absl::Span<const double> differences, double confidence) {
  Welch w;
  if (differences.size() < 2) return w;
  w.valid = true;
  const double mean = Mean(differences);
  w.difference = mean;
  w.df = static_cast<double>(differences.size() - 1);
  w.se = std::sqrt(Variance(differences, mean) / static_cast<double>(differences.size()));
  if (!(w.se > 0)) {
    w.p = mean == 0 ? 1 : 0;
    w.low = w.high = mean;
    return w;
  }
  w.p = std::clamp(2 * StudentTCdf(-std::fabs(mean / w.se), w.df), 0.0, 1.0);
  const double q = StudentTQuantile(1 - (1 - confidence) / 2, w.df);
  w.low = mean - q * w.se;
  w.high = mean + q * w.se;
  return w;
}

}  // namespace graphprof
