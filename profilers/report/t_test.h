// Student's t distribution and Welch's two-sample t test: the model for
// comparisons whose unit of variation is the process (reports merged from
// several worker processes): one summary value per process on each side.
#ifndef GRAPHPROF_PROFILERS_REPORT_T_TEST_H_
#define GRAPHPROF_PROFILERS_REPORT_T_TEST_H_

#include "absl/types/span.h"

namespace graphprof {

// Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1.
double RegularizedBeta(double x, double a, double b);

// Student's t with `df` > 0 degrees of freedom (df need not be an integer).
double StudentTCdf(double t, double df);
double StudentTQuantile(double p, double df);  // 0 < p < 1

struct Welch {
  double difference = 0;  // mean(b) - mean(a)
  double se = 0;          // its standard error
  double df = 0;          // Welch-Satterthwaite
  double p = 1;           // two-sided
  double low = 0;         // confidence interval of the difference
  double high = 0;
  bool valid = false;     // both samples have at least two values
};

// Welch's test of mean(b) - mean(a), with the interval at `confidence`.
// Two samples of constant values: p = 1 and a zero-width interval when the
// means are equal, p = 0 otherwise.
Welch WelchTTest(absl::Span<const double> a, absl::Span<const double> b, double confidence = 0.95);

// One-sample t test of mean(d) = 0 (paired differences), with the interval
// of the mean at `confidence`; df = n - 1. Same conventions as WelchTTest.
Welch PairedTTest(absl::Span<const double> differences, double confidence = 0.95);

// The difference of b's mean from a's with a covariate taken out (analysis
// of covariance): y = c + g x + d [in b], one slope g for both samples,
// fitted by least squares within each sample (g from the samples' pooled
// within-sample spread of x), d = (mean y_b - mean y_a) - g (mean x_b -
// mean x_a), its standard error from the residuals on n_a + n_b - 3 degrees
// of freedom. Invalid with fewer than 2 values a side, fewer than 2 degrees
// of freedom, or no within-sample spread of x (then g cannot be told from d).
Welch CovariateTTest(absl::Span<const double> a_x, absl::Span<const double> a_y, absl::Span<const double> b_x,
                     absl::Span<const double> b_y, double confidence = 0.95);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_T_TEST_H_
