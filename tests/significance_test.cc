// The statistics behind the diff's verdicts, against reference values
// computed independently (tests/stats/make_reference.py: scipy 1.10 and brute
// force; `/usr/bin/python3 tests/stats/make_reference.py` prints them), and
// their behaviour over many seeded trials: interval coverage, the false-
// positive rate of A/A comparisons and the power on a known effect.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "profilers/report/rank_test.h"
#include "profilers/report/t_test.h"
#include "profilers/report/verdict.h"

namespace graphprof {
namespace {

using V = std::vector<double>;

// --- Mann-Whitney U (reference: scipy.stats.mannwhitneyu, two-sided, auto). ---

TEST(MannWhitneyTest, ExactWithoutTies) {
  const MannWhitney r = MannWhitneyU(V{1, 2, 3, 4, 5}, V{6, 7, 8, 9, 10, 11});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 0.004329004329004329, 1e-12);
}

TEST(MannWhitneyTest, ExactSmallSamples) {
  MannWhitney r = MannWhitneyU(V{3.1, 1.2, 5.5}, V{2.2, 4.4, 6.6, 7.7});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_NEAR(r.p, 0.4, 1e-12);
  r = MannWhitneyU(V{1.5, 3.5, 5.5, 7.5, 9.5, 2.25, 8.75}, V{2, 4, 6, 8});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 15);
  EXPECT_NEAR(r.p, 0.9272727272727272, 1e-12);
}

TEST(MannWhitneyTest, AsymptoticWithTies) {
  const MannWhitney r =
      MannWhitneyU(V{1, 2, 2, 3, 3, 3, 4, 5, 6, 7}, V{2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 26.5);
  EXPECT_NEAR(r.p, 0.04682250687805345, 1e-12);
}

const V kNormalA = {96.348, 103.26, 100.977, 78.596, 75.947, 107.947, 105.231, 81.151,
                    92.233, 99.888, 90.198, 128.02, 102.117, 106.522, 100.644};
const V kNormalB = {102.239, 106.497, 104.053, 112.584, 102.452, 112.413,
                    114.114, 115.528, 100.202, 111.274, 114.639, 97.884};

TEST(MannWhitneyTest, AsymptoticAndExactOnLargerSamples) {
  MannWhitney r = MannWhitneyU(kNormalA, kNormalB);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 40);
  EXPECT_NEAR(r.p, 0.015719980210024593, 1e-12);
  r = MannWhitneyU(kNormalA, kNormalB, RankMethod::kExact);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p, 0.013871487690305835, 1e-12);
}

TEST(MannWhitneyTest, DegenerateSamples) {
  EXPECT_EQ(MannWhitneyU(V{}, V{1, 2}).p, 1);
  EXPECT_EQ(MannWhitneyU(V{5, 5, 5}, V{5, 5, 5, 5}).p, 1);  // all tied
}

// Exact null distribution: enumeration of every rank assignment.
TEST(MannWhitneyTest, ExactCdfMatchesEnumeration) {
  const V n3m4 = {0.02857142857142857, 0.05714285714285714, 0.11428571428571428, 0.2, 0.3142857142857143,
                  0.42857142857142855, 0.5714285714285714, 0.6857142857142857, 0.8, 0.8857142857142857,
                  0.9428571428571428, 0.9714285714285714, 1.0};
  for (size_t u = 0; u < n3m4.size(); ++u) {
    EXPECT_NEAR(MannWhitneyCdf(3, 4, u), n3m4[u], 1e-12) << u;
    EXPECT_NEAR(MannWhitneyCdf(4, 3, u), n3m4[u], 1e-12) << u;  // symmetric in the sizes
  }
  const V n5m5 = {0.003968253968253968, 0.007936507936507936, 0.015873015873015872, 0.027777777777777776,
                  0.047619047619047616, 0.07539682539682539, 0.1111111111111111, 0.15476190476190477,
                  0.21031746031746032, 0.27380952380952384, 0.34523809523809523, 0.42063492063492064, 0.5,
                  0.5793650793650794, 0.6547619047619048, 0.7261904761904762, 0.7896825396825397,
                  0.8452380952380952, 0.8888888888888888, 0.9246031746031746, 0.9523809523809523,
                  0.9722222222222222, 0.9841269841269841, 0.9920634920634921, 0.996031746031746, 1.0};
  for (size_t u = 0; u < n5m5.size(); ++u) EXPECT_NEAR(MannWhitneyCdf(5, 5, u), n5m5[u], 1e-12) << u;
  EXPECT_NEAR(SmallestMannWhitneyP(5, 5), 2 * n5m5[0], 1e-12);
  EXPECT_NEAR(SmallestMannWhitneyP(3, 3), 0.1, 1e-12);  // 3 runs a side can never reach 0.05
}

// --- Hodges-Lehmann (reference: brute force over pairs and enumeration). ---

TEST(HodgesLehmannTest, EstimateAndExactInterval) {
  Shift s = HodgesLehmann(V{1, 2, 3, 4, 5}, V{6, 7, 8, 9, 10, 11});
  EXPECT_DOUBLE_EQ(s.estimate, 5.5);
  EXPECT_DOUBLE_EQ(s.low, 3.0);
  EXPECT_DOUBLE_EQ(s.high, 8.0);
  s = HodgesLehmann(V{1.5, 3.5, 5.5, 7.5, 9.5, 2.25, 8.75}, V{2, 4, 6, 8});
  EXPECT_DOUBLE_EQ(s.estimate, -0.5);
  EXPECT_DOUBLE_EQ(s.low, -5.5);
  EXPECT_DOUBLE_EQ(s.high, 4.5);
  // 3 and 4 values cannot reach 95%: unbounded.
  s = HodgesLehmann(V{3.1, 1.2, 5.5}, V{2.2, 4.4, 6.6, 7.7});
  EXPECT_NEAR(s.estimate, 1.75, 1e-12);
  EXPECT_FALSE(s.bounded());
}

// The large-sample path (value bisection) agrees with the explicit one.
TEST(HodgesLehmannTest, LargeSamplesAgreeWithSmallPath) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 1);
  V a, b;
  for (int i = 0; i < 1200; ++i) a.push_back(noise(rng));
  for (int i = 0; i < 1000; ++i) b.push_back(noise(rng) + 0.25);
  const Shift s = HodgesLehmann(a, b);
  EXPECT_NEAR(s.estimate, 0.25, 0.1);
  EXPECT_LT(s.low, s.estimate);
  EXPECT_GT(s.high, s.estimate);
  EXPECT_LT(s.high - s.low, 0.25);
}

// --- Benjamini-Hochberg (reference: the 15 p-values of BH 1995, numpy). ---

TEST(BenjaminiHochbergTest, PaperExample) {
  const V p = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
               0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
  const V want = {0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645,
                  0.0765, 0.48600000000000004, 0.5811818181818182, 0.714875, 0.7532307692307694,
                  0.8132142857142857, 1.0};
  V shuffled = p;
  std::swap(shuffled[0], shuffled[14]);
  std::swap(shuffled[3], shuffled[9]);
  const V q = BenjaminiHochberg(shuffled);
  V expected = want;
  std::swap(expected[0], expected[14]);
  std::swap(expected[3], expected[9]);
  int rejected = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    EXPECT_NEAR(q[i], expected[i], 1e-12) << i;
    rejected += q[i] < 0.05;
  }
  EXPECT_EQ(rejected, 4);  // as in the paper
}

TEST(BenjaminiHochbergTest, NaNTakesNoPart) {
  const V q = BenjaminiHochberg(V{0.01, std::nan(""), 0.04});
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_TRUE(std::isnan(q[1]));
  EXPECT_NEAR(q[2], 0.04, 1e-12);
}

// --- Student's t and Welch (reference: scipy.stats.t, ttest_ind). ---

TEST(StudentTTest, CdfAndQuantile) {
  EXPECT_NEAR(StudentTCdf(2.0, 3.5), 0.9369307387120432, 1e-12);
  EXPECT_NEAR(StudentTCdf(-1.3, 7.0), 0.11738391769618858, 1e-12);
  EXPECT_NEAR(StudentTCdf(0.4, 1.0), 0.6211189415908434, 1e-12);
  EXPECT_NEAR(StudentTCdf(4.5, 2.2), 0.980783555961845, 1e-12);
  EXPECT_NEAR(StudentTCdf(-10.0, 30.0) / 2.2876257041148048e-11, 1, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 4.0), 2.7764451051977987, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 2.3), 3.8071632082582774, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.025, 10.0), -2.2281388519649385, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.999, 1.5), 52.184430008992784, 1e-7);
}

TEST(StudentTTest, Welch) {
  const Welch w = WelchTTest(V{10.1, 9.7, 10.4, 10.0}, V{10.9, 11.3, 10.6});
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.difference / w.se, 3.54914250996686, 1e-10);
  EXPECT_NEAR(w.p, 0.025084245389593963, 1e-10);
  EXPECT_NEAR(w.df, 3.8769002884540424, 1e-10);
  EXPECT_NEAR(w.low, 0.18357405190465725, 1e-9);
  EXPECT_NEAR(w.high, 1.5830926147620157, 1e-9);
  EXPECT_FALSE(WelchTTest(V{1}, V{2, 3}).valid);
  const Welch constant = WelchTTest(V{2, 2}, V{2, 2, 2});
  EXPECT_EQ(constant.p, 1);
  EXPECT_EQ(constant.low, 0);
  EXPECT_EQ(constant.high, 0);
}

TEST(StudentTTest, PairedIsAOneSampleTestOfTheDifferences) {
  // scipy.stats.ttest_1samp([0.5, 0.7, 0.4, 0.65], 0) and its t interval.
  const Welch w = PairedTTest(V{0.5, 0.7, 0.4, 0.65});
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.p, 0.0038350925474836275, 1e-10);
  EXPECT_NEAR(w.low, 0.3434056557587115, 1e-9);
  EXPECT_NEAR(w.high, 0.7815943442412885, 1e-9);
  EXPECT_EQ(w.df, 3);
  EXPECT_FALSE(PairedTTest(V{1}).valid);
}

TEST(StudentTTest, CovariateMatchesLeastSquares) {
  // numpy.linalg.lstsq of y on [1, x, side] over both samples, the side's
  // coefficient with its standard error from the residuals (6 df) and
  // scipy.stats.t's p and 95% interval.
  const V ax{0.01, -0.02, 0.03, 0.00, 0.05}, ay{17.63, 17.62, 17.64, 17.63, 17.645};
  const V bx{0.10, 0.12, 0.08, 0.15}, by{17.70, 17.69, 17.69, 17.71};
  const Welch w = CovariateTTest(ax, ay, bx, by);
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.difference, 0.03518766756032132, 1e-10);
  EXPECT_NEAR(w.se, 0.007620158403326498, 1e-10);
  EXPECT_EQ(w.df, 6);
  EXPECT_NEAR(w.p, 0.0036240480167767115, 1e-9);
  EXPECT_NEAR(w.low, 0.01654181167355222, 1e-9);
  EXPECT_NEAR(w.high, 0.05383352344709043, 1e-9);
  // Without the covariate the sides differ by 0.0645: most of it is the
  // sides' speeds (slope 0.30 per unit of x).
  EXPECT_NEAR(WelchTTest(ay, by).difference, 0.0645, 1e-9);
  // Too few values, too few degrees of freedom, x without spread within the samples.
  EXPECT_FALSE(CovariateTTest(V{1}, V{1}, V{1, 2}, V{1, 2}).valid);
  EXPECT_FALSE(CovariateTTest(V{0, 1}, V{1, 2}, V{0, 1}, V{2, 3}).valid);  // 1 df
  EXPECT_FALSE(CovariateTTest(V{0, 0, 0}, V{1, 2, 3}, V{1, 1, 1}, V{2, 3, 4}).valid);
}

// Coverage of the covariate's interval when each sample's processes ran at
// a speed of their own that the quantity scales with (slope 0.3): the 95%
// interval of d covers the true difference in about 95% of trials, where
// Welch's, blind to the speeds, is biased by the slope times the gap.
TEST(CoverageTest, CovariateIntervalCoversWhenSidesRanAtOtherSpeeds) {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal(0, 1);
  const double truth = 0.02;
  int covered = 0, welch_covered = 0;
  constexpr int kTrials = 2000;
  for (int t = 0; t < kTrials; ++t) {
    V ax, ay, bx, by;
    for (int i = 0; i < 5; ++i) {
      ax.push_back(0.05 * normal(rng));
      ay.push_back(0.3 * ax.back() + 0.01 * normal(rng));
    }
    for (int i = 0; i < 4; ++i) {
      bx.push_back(0.15 + 0.05 * normal(rng));
      by.push_back(truth + 0.3 * bx.back() + 0.01 * normal(rng));
    }
    const Welch w = CovariateTTest(ax, ay, bx, by);
    ASSERT_TRUE(w.valid);
    covered += w.low <= truth && truth <= w.high;
    const Welch plain = WelchTTest(ay, by);
    welch_covered += plain.low <= truth && truth <= plain.high;
  }
  std::printf("covariate interval covers %d of %d, Welch's %d\n", covered, kTrials, welch_covered);
  EXPECT_GE(covered, kTrials * 0.93);
  EXPECT_LE(covered, kTrials * 0.97);
  EXPECT_LT(welch_covered, kTrials * 0.80);
}

// Order statistics at the binomial's critical values: with 10 values,
// P(B(10, 1/2) <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so the 95%
// interval is [x_(2), x_(9)]; with 5 values it cannot reach 95%.
TEST(MedianIntervalTest, OrderStatistics) {
  const Shift ten = MedianInterval(V{10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_DOUBLE_EQ(ten.estimate, 5.5);
  EXPECT_DOUBLE_EQ(ten.low, 2);
  EXPECT_DOUBLE_EQ(ten.high, 9);
  EXPECT_FALSE(MedianInterval(V{1, 2, 3, 4, 5}).bounded());
  EXPECT_TRUE(MedianInterval(V{1, 2, 3, 4, 5, 6}).bounded());  // 1/64 * 2 = 0.031 <= 0.05
}

// The same processes on both sides, each with its own level: pairing
// cancels the process effects, so the interval is tighter than Welch's
// and still covers the true change.
TEST(CoverageTest, PairedProcessesAreTighterAndCover) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> level(0, 0.08), noise(0, 0.02);
  int covered = 0;
  double paired_width = 0, unpaired_width = 0;
  constexpr int kTrials = 1000;
  for (int trial = 0; trial < kTrials; ++trial) {
    V a, b;
    std::vector<RunRange> processes;
    for (int p = 0; p < 4; ++p) {
      const double effect = std::exp(level(rng));
      processes.push_back(RunRange{static_cast<int>(a.size()), static_cast<int>(a.size()) + 10});
      for (int r = 0; r < 10; ++r) {
        a.push_back(1e5 * effect * std::exp(noise(rng)));
        b.push_back(1.05e5 * effect * std::exp(noise(rng)));
      }
    }
    const RowComparison paired = CompareRow(RowSample{a, processes, true}, RowSample{b, processes, true},
                                            NoiseModel::kPairedProcesses, 0, VerdictOptions{});
    const RowComparison unpaired = CompareRow(RowSample{a, processes, true}, RowSample{b, processes, true},
                                              NoiseModel::kProcesses, 0, VerdictOptions{});
    covered += paired.change_low <= 0.05 && 0.05 <= paired.change_high;
    paired_width += paired.change_high - paired.change_low;
    unpaired_width += unpaired.change_high - unpaired.change_low;
  }
  EXPECT_GE(covered, 930);
  EXPECT_LE(covered, 980);
  EXPECT_LT(paired_width, unpaired_width / 2);
}

// --- The verdict table. ---

TEST(VerdictTest, Table) {
  const VerdictOptions o;  // t = 2%, alpha = 0.05
  // A 65% slowdown with a 10%-wide interval, significant: slower.
  EXPECT_EQ(DecideVerdict(0.65, 0.60, 0.70, 0.001, o), Verdict::kSlower);
  EXPECT_EQ(DecideVerdict(-0.10, -0.12, -0.08, 0.01, o), Verdict::kFaster);
  // An interval within [-1%, +1%]: same, significant or not.
  EXPECT_EQ(DecideVerdict(0.0, -0.01, 0.01, 0.9, o), Verdict::kSame);
  // Significant, but the estimate within +-t: same.
  EXPECT_EQ(DecideVerdict(0.015, 0.012, 0.018, 0.001, o), Verdict::kSame);
  // Not significant and the interval reaches past +-t: inconclusive.
  EXPECT_EQ(DecideVerdict(0.05, -0.03, 0.12, 0.2, o), Verdict::kInconclusive);
  // Beyond +t but q >= alpha: inconclusive.
  EXPECT_EQ(DecideVerdict(0.30, 0.01, 0.6, 0.06, o), Verdict::kInconclusive);
}

RowComparison Compare(const V& base, const V& current, double floor_ns = 0) {
  RowComparison r = CompareRow(RowSample{base, {}, true}, RowSample{current, {}, true}, NoiseModel::kRuns,
                               floor_ns, VerdictOptions{});
  RowComparison* rows[] = {&r};
  DecideVerdicts(rows, VerdictOptions{});
  return r;
}

TEST(VerdictTest, RowsTooFastOrWithTooFewRuns) {
  RowComparison r = Compare(V{10, 11, 12, 10, 11, 12, 10, 11}, V{20, 21, 22, 20, 21, 22, 20, 21}, /*floor_ns=*/60);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.reason, "too fast to time");
  EXPECT_FALSE(r.tested);
  r = Compare(V{1000, 1010, 990}, V{2000, 2010, 1990});
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.reason, "too few runs");
  r = Compare(V{1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003},
              V{2000, 2010, 1990, 2005, 1995, 2002, 1998, 2001, 1999, 2003});
  EXPECT_EQ(r.verdict, Verdict::kSlower);
  EXPECT_NEAR(r.change, 1.0, 0.02);
  EXPECT_LT(r.change_low, r.change);
  EXPECT_GT(r.change_high, r.change);
  EXPECT_EQ(FormatChange(r).substr(0, 6), "+100.0");
}

TEST(VerdictTest, AbsentRowsCompareWithZero) {
  const V runs = {1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003};
  RowComparison removed =
      CompareRow(RowSample{runs, {}, true}, RowSample{{}, {}, false}, NoiseModel::kRuns, 0, VerdictOptions{});
  RowComparison added =
      CompareRow(RowSample{{}, {}, false}, RowSample{runs, {}, true}, NoiseModel::kRuns, 0, VerdictOptions{});
  RowComparison* rows[] = {&removed, &added};
  DecideVerdicts(rows, VerdictOptions{});
  EXPECT_EQ(removed.change, -1);
  EXPECT_EQ(removed.verdict, Verdict::kFaster);
  EXPECT_EQ(FormatChange(removed), "-100% faster");
  EXPECT_TRUE(std::isinf(added.change));
  EXPECT_EQ(added.verdict, Verdict::kSlower);
  EXPECT_EQ(FormatChange(added), "new slower");
}

// --- Behaviour over seeded trials. ---

// Log-normal run times around `median` with relative spread `sigma`.
V Runs(std::mt19937_64& rng, int n, double median, double sigma) {
  std::normal_distribution<double> noise(0, sigma);
  V v;
  for (int i = 0; i < n; ++i) v.push_back(median * std::exp(noise(rng)));
  return v;
}

// The change's interval holds the true ratio in about 95% of trials.
TEST(CoverageTest, RunsIntervalCoversTheTrueChange) {
  std::mt19937_64 rng(1);
  for (int runs : {10, 30}) {
    int covered = 0;
    constexpr int kTrials = 2000;
    for (int trial = 0; trial < kTrials; ++trial) {
      const RowComparison r = Compare(Runs(rng, runs, 1e5, 0.05), Runs(rng, runs, 1.1e5, 0.05));
      covered += r.change_low <= 0.1 && 0.1 <= r.change_high;
    }
    const double coverage = static_cast<double>(covered) / kTrials;
    EXPECT_GE(coverage, 0.93) << runs << " runs";
    EXPECT_LE(coverage, 0.975) << runs << " runs";
  }
}

// Processes as the unit: each process has its own level (between-process
// spread), runs vary around it. The interval from per-process medians
// covers the true change; the runs-only interval does not.
struct Hierarchical {
  V values;
  std::vector<RunRange> processes;
};
Hierarchical Processes(std::mt19937_64& rng, int processes, int runs, double median, double between,
                       double within) {
  std::normal_distribution<double> level(0, between);
  Hierarchical h;
  for (int p = 0; p < processes; ++p) {
    const V r = Runs(rng, runs, median * std::exp(level(rng)), within);
    h.processes.push_back(RunRange{static_cast<int>(h.values.size()), static_cast<int>(h.values.size() + r.size())});
    h.values.insert(h.values.end(), r.begin(), r.end());
  }
  return h;
}

TEST(CoverageTest, ProcessIntervalCoversTheTrueChange) {
  std::mt19937_64 rng(2);
  int covered = 0, runs_only_covered = 0;
  constexpr int kTrials = 2000;
  for (int trial = 0; trial < kTrials; ++trial) {
    const Hierarchical a = Processes(rng, 3, 10, 1e5, 0.08, 0.03);
    const Hierarchical b = Processes(rng, 3, 10, 1.05e5, 0.08, 0.03);
    const RowComparison r = CompareRow(RowSample{a.values, a.processes, true}, RowSample{b.values, b.processes, true},
                                       NoiseModel::kProcesses, 0, VerdictOptions{});
    covered += r.change_low <= 0.05 && 0.05 <= r.change_high;
    const RowComparison w = CompareRow(RowSample{a.values, {}, true}, RowSample{b.values, {}, true},
                                       NoiseModel::kRuns, 0, VerdictOptions{});
    runs_only_covered += w.change_low <= 0.05 && 0.05 <= w.change_high;
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.98);
  // Within-process noise alone under-covers badly here (why --workers exists).
  EXPECT_LT(static_cast<double>(runs_only_covered) / kTrials, 0.8);
}

// A/A: the same distribution on both sides, 300 rows a comparison, 100
// comparisons: the share of rows called faster or slower stays below alpha
// (with BH under the global null, far below), and the rows are mostly "same"
// or inconclusive.
TEST(FalsePositiveTest, AaComparisonsOverManyRows) {
  for (NoiseModel model : {NoiseModel::kRuns, NoiseModel::kProcesses}) {
    std::mt19937_64 rng(3);
    int64_t rows_seen = 0, called = 0;
    for (int comparison = 0; comparison < 100; ++comparison) {
      std::vector<Hierarchical> a, b;
      std::vector<RowComparison> results;
      for (int row = 0; row < 300; ++row) {
        const double median = 1e3 * (1 + row % 17);
        const double between = model == NoiseModel::kProcesses ? 0.05 : 0;
        a.push_back(Processes(rng, 3, 10, median, between, 0.05));
        b.push_back(Processes(rng, 3, 10, median, between, 0.05));
      }
      for (int row = 0; row < 300; ++row) {
        results.push_back(CompareRow(RowSample{a[row].values, a[row].processes, true},
                                     RowSample{b[row].values, b[row].processes, true}, model, 0, VerdictOptions{}));
      }
      std::vector<RowComparison*> rows;
      for (RowComparison& r : results) rows.push_back(&r);
      DecideVerdicts(rows, VerdictOptions{});
      for (const RowComparison& r : results) {
        ++rows_seen;
        called += r.verdict == Verdict::kFaster || r.verdict == Verdict::kSlower;
      }
    }
    EXPECT_LE(static_cast<double>(called) / rows_seen, 0.05) << NoiseModelName(model);
    EXPECT_LE(called, rows_seen / 1000) << NoiseModelName(model);
  }
}

// A known effect: one row of 200 is 30% slower (5% run noise, 10 runs a
// side): in at least 95% of seeded repetitions it is called slower with
// about the right magnitude and no other row is called faster or slower;
// over all repetitions, false calls stay far below alpha of the null rows
// (BH controls the share of false discoveries among discoveries).
TEST(PowerTest, OneSlowedRowAmongMany) {
  std::mt19937_64 rng(4);
  int clean = 0, found = 0, false_calls = 0;
  constexpr int kRepetitions = 100, kRows = 200, kSlowed = 17;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    std::vector<RowComparison> results;
    std::vector<V> keep;
    for (int row = 0; row < kRows; ++row) {
      keep.push_back(Runs(rng, 10, 1e4, 0.05));
      keep.push_back(Runs(rng, 10, row == kSlowed ? 1.3e4 : 1e4, 0.05));
    }
    for (int row = 0; row < kRows; ++row) {
      results.push_back(CompareRow(RowSample{keep[2 * row], {}, true}, RowSample{keep[2 * row + 1], {}, true},
                                   NoiseModel::kRuns, 0, VerdictOptions{}));
    }
    std::vector<RowComparison*> rows;
    for (RowComparison& r : results) rows.push_back(&r);
    DecideVerdicts(rows, VerdictOptions{});
    const bool hit = results[kSlowed].verdict == Verdict::kSlower && std::fabs(results[kSlowed].change - 0.3) < 0.1;
    int others = 0;
    for (int row = 0; row < kRows; ++row) {
      if (row != kSlowed) others += results[row].verdict == Verdict::kFaster || results[row].verdict == Verdict::kSlower;
    }
    found += hit;
    false_calls += others;
    clean += hit && others == 0;
  }
  EXPECT_GE(found, 95);
  EXPECT_GE(clean, 95);
  EXPECT_LE(false_calls, kRepetitions * (kRows - 1) / 1000);
}

}  // namespace
}  // namespace graphprof
