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
  // One step with coefficient `k`: d and c updated, their product returned.
  auto step = [&](double k) {
    d = 1 + k * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + k / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    return d * c;
  };
  for (int m = 1; m <= 1000; ++m) {
    // Even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    f *= step(m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)));
    // Odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    const double delta = step(-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)));
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

namespace {

// A t test's conclusion from its difference, standard error and degrees of
// freedom: the two-sided p and the confidence interval. No spread (a zero
// or NaN standard error): p is 1 for no difference, else 0, and the
// interval is the difference itself.
Welch Conclude(double difference, double se, double df, double confidence) {
  Welch w;
  w.valid = true;
  w.difference = difference;
  w.se = se;
  w.df = df;
  if (!(se > 0)) {
    w.p = difference == 0 ? 1 : 0;
    w.low = w.high = difference;
    return w;
  }
  w.p = std::clamp(2 * StudentTCdf(-std::fabs(difference / se), df), 0.0, 1.0);
  const double q = StudentTQuantile(1 - (1 - confidence) / 2, df);
  w.low = difference - q * se;
  w.high = difference + q * se;
  return w;
}

}  // namespace

Welch WelchTTest(absl::Span<const double> a, absl::Span<const double> b, double confidence) {
  if (a.size() < 2 || b.size() < 2) return Welch{};
  const double ma = Mean(a), mb = Mean(b);
  const double va = Variance(a, ma) / static_cast<double>(a.size());
  const double vb = Variance(b, mb) / static_cast<double>(b.size());
  const double se = std::sqrt(va + vb);
  const double na = static_cast<double>(a.size() - 1), nb = static_cast<double>(b.size() - 1);
  // Welch-Satterthwaite; without spread, the pooled count.
  const double df = se > 0 ? (va + vb) * (va + vb) / (va * va / na + vb * vb / nb) : na + nb;
  return Conclude(mb - ma, se, df, confidence);
}

Welch PairedTTest(absl::Span<const double> differences, double confidence) {
  if (differences.size() < 2) return Welch{};
  const double mean = Mean(differences);
  const double n = static_cast<double>(differences.size());
  return Conclude(mean, std::sqrt(Variance(differences, mean) / n), n - 1, confidence);
}

Welch CovariateTTest(absl::Span<const double> a_x, absl::Span<const double> a_y, absl::Span<const double> b_x,
                     absl::Span<const double> b_y, double confidence) {
  if (a_x.size() != a_y.size() || b_x.size() != b_y.size() || a_x.size() < 2 || b_x.size() < 2) return Welch{};
  const double n = static_cast<double>(a_x.size() + b_x.size());
  const double df = n - 3;
  if (df < 2) return Welch{};
  const double ax = Mean(a_x), ay = Mean(a_y), bx = Mean(b_x), by = Mean(b_y);
  double sxx = 0, sxy = 0, syy = 0;  // within the samples
  for (size_t i = 0; i < a_x.size(); ++i) {
    sxx += (a_x[i] - ax) * (a_x[i] - ax);
    sxy += (a_x[i] - ax) * (a_y[i] - ay);
    syy += (a_y[i] - ay) * (a_y[i] - ay);
  }
  for (size_t i = 0; i < b_x.size(); ++i) {
    sxx += (b_x[i] - bx) * (b_x[i] - bx);
    sxy += (b_x[i] - bx) * (b_y[i] - by);
    syy += (b_y[i] - by) * (b_y[i] - by);
  }
  const double scale = std::max({1.0, std::fabs(ax), std::fabs(bx)});
  if (!(sxx > 1e-24 * scale * scale)) return Welch{};
  const double slope = sxy / sxx;
  const double d = (by - ay) - slope * (bx - ax);
  const double residual = std::max(0.0, syy - slope * sxy) / df;
  const double gap = bx - ax;
  const double se = std::sqrt(residual * (1.0 / static_cast<double>(a_x.size()) +
                                          1.0 / static_cast<double>(b_x.size()) + gap * gap / sxx));
  return Conclude(d, se, df, confidence);
}

}  // namespace graphprof
