// Rank statistics for two independent samples (per-run times of one row in
// two reports): the two-sided Mann-Whitney U test and the Hodges-Lehmann
// estimate of the shift between them with its rank-based confidence
// interval. Both are distribution-free, come from the same ranks (the
// interval excludes 0 about when the test rejects at 1 - confidence), and
// are exact for small samples.
//
// Conventions follow scipy.stats.mannwhitneyu (scipy 1.10, alternative=
// "two-sided", use_continuity=True): U is the statistic of the first sample,
// p = 2 * P(U' >= max(U, n*m - U)), capped at 1. kAuto is exact when one
// sample has at most 8 values and there are no ties, else the normal
// approximation with tie and continuity corrections (scipy's "auto").
// tests/stats/make_reference.py recomputes the reference values that
// tests/significance_test.cc uses.
#ifndef GRAPHPROF_PROFILERS_REPORT_RANK_TEST_H_
#define GRAPHPROF_PROFILERS_REPORT_RANK_TEST_H_

#include <vector>

#include "absl/types/span.h"

namespace graphprof {

enum class RankMethod { kAuto, kExact, kAsymptotic };

struct MannWhitney {
  double u = 0;  // of the first sample: pairs (a_i > b_j) + half the ties
  double p = 1;  // two-sided
  bool exact = false;
};

// Empty samples give p = 1.
MannWhitney MannWhitneyU(absl::Span<const double> a, absl::Span<const double> b,
                         RankMethod method = RankMethod::kAuto);

// P(U <= u) for samples of n and m values without ties (exact null
// distribution). Sizes with n * m above kMaxExactPairs are not computed
// (returns -1).
inline constexpr int kMaxExactPairs = 10000;
double MannWhitneyCdf(int n, int m, double u);

// The smallest two-sided p-value samples of n and m values can give (no
// ties): 2 / C(n + m, n), capped at 1.
double SmallestMannWhitneyP(int n, int m);

struct Shift {
  double estimate = 0;  // median of all pairwise differences b_j - a_i
  double low = 0;       // confidence interval; -inf / +inf when the sizes
  double high = 0;      // cannot reach the confidence
  bool bounded() const;
};

// Hodges-Lehmann shift of `b` relative to `a` with its distribution-free
// interval at `confidence` (order statistics of the pairwise differences at
// the Mann-Whitney critical values: exact, or the normal approximation with
// tie correction, chosen as for the test). Empty samples give a zero
// estimate and an unbounded interval.
Shift HodgesLehmann(absl::Span<const double> a, absl::Span<const double> b, double confidence = 0.95,
                    RankMethod method = RankMethod::kAuto);

// Distribution-free interval of one sample's median at `confidence`: the
// order statistics x_(k) and x_(n+1-k) with P(Binomial(n, 1/2) < k) <=
// (1 - confidence) / 2; unbounded (as Shift) when n is too small.
Shift MedianInterval(absl::Span<const double> values, double confidence = 0.95);

// Standard normal distribution.
double NormalCdf(double x);
double NormalQuantile(double p);  // 0 < p < 1

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_RANK_TEST_H_
