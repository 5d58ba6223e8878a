// Verdicts: is one row of a comparison (a node, module, kind, or the whole
// run) faster, slower or the same in the current report, or can the runs
// not tell? docs/statistics.md explains the choices; in short:
//
//   change     relative change of the row's time, current / base - 1: the
//              Hodges-Lehmann estimate on log times (the median ratio of all
//              base/current run pairs) with its rank-based interval, or,
//              when both sides come from several processes, the difference
//              of the mean log per-process medians with Welch's interval
//              (paired by process when each process ran both sides)
//   p          two-sided: Mann-Whitney U over runs, or Welch's (paired: a
//              one-sample) t over per-process medians (the same model as
//              the interval)
//   q          Benjamini-Hochberg over the rows of one table
//   verdict    with t = min_effect and alpha:
//                slower / faster   q < alpha and change beyond +t / -t
//                same              the interval within [-t, +t], or q < alpha
//                                  and change within [-t, +t]
//                inconclusive      anything else; also rows too fast to time
//                                  (both medians below a few timer costs)
//                                  and sizes that can never reach p < alpha
//
// A row absent on one side (a node the pass added or removed) compares
// against zero time: removed is a change of -100%, added of +inf.
#ifndef GRAPHPROF_PROFILERS_REPORT_VERDICT_H_
#define GRAPHPROF_PROFILERS_REPORT_VERDICT_H_

#include <string>
#include <vector>

#include "absl/types/span.h"

namespace graphprof {

enum class Verdict { kFaster, kSlower, kSame, kInconclusive };
inline constexpr int kNumVerdicts = 4;
const char* VerdictName(Verdict verdict);  // "faster", "slower", "same", "inconclusive"

struct VerdictOptions {
  double min_effect = 0.02;  // t: changes within +-t are "the same"
  double alpha = 0.05;       // on Benjamini-Hochberg q-values
  double confidence = 0.95;  // of the change's interval
};

// What the runs of a comparison are samples of.
enum class NoiseModel {
  kRuns,       // runs of one process each side: within-process noise only
  kProcesses,  // several processes a side (merged worker reports): processes are the unit
  // The same processes on both sides, each running both (--ab --workers):
  // per-process differences of the medians, a one-sample t test over them.
  kPairedProcesses,
  // One process a side, different processes: runs are compared at equal
  // speed (process_speed.h) and each row's interval takes an allowance for
  // what processes differ by beyond speed.
  kRunsBetweenProcesses,
};
// "runs", "processes", "paired processes", "runs between processes"
const char* NoiseModelName(NoiseModel model);

// A process's runs within one side's per-run values: [begin, end).
struct RunRange {
  int begin = 0;
  int end = 0;
};

// One side of one row.
struct RowSample {
  absl::Span<const double> values;     // per run, nanoseconds; empty when absent
  absl::Span<const RunRange> processes;  // kProcesses: each process's runs
  bool present = true;                 // false: the row does not exist on this side
  // kProcesses (unpaired): each run's log machine speed (process_speed.h),
  // the values being at equal speed; empty when none. With it on both
  // sides, the process medians are compared with the process's median
  // speed as a covariate (CovariateTTest): a node that scales with the
  // machine more or less than the reference nodes do is then not called
  // changed because one side's processes ran at another speed.
  absl::Span<const double> log_speed;
};

struct RowComparison {
  double base_median = 0;
  double current_median = 0;
  double base_mean = 0;
  double current_mean = 0;
  // Relative change with its interval; +inf for a row only the current side
  // has. NaN when there is nothing to compare.
  double change = 0;
  double change_low = 0;
  double change_high = 0;
  double p = 1;
  double q = 1;  // set by DecideVerdicts
  Verdict verdict = Verdict::kInconclusive;
  // Why a row is inconclusive without a test ("too fast to time", "too few
  // runs"), else empty.
  std::string reason;
  bool tested = false;  // has a p-value that takes part in the q-values
  // kRunsBetweenProcesses: the allowance for what processes differ by (a
  // standard deviation of the log change) in the interval; 0 otherwise.
  double allowance = 0;
  // kProcesses / kPairedProcesses: the standard error of the log change
  // (the t test's); 0 otherwise.
  double se = 0;
};

// Compares one row. `floor_ns`: a row whose medians are both below it is too
// fast to time (a few timer costs per execution). `allowance`
// (kRunsBetweenProcesses): a standard deviation on the log scale added in
// quadrature to the Hodges-Lehmann interval's (its width / 2z); the
// interval is then normal and p = 2 (1 - Phi(|log change| / sd)).
RowComparison CompareRow(const RowSample& base, const RowSample& current, NoiseModel model, double floor_ns,
                         const VerdictOptions& options, double allowance = 0);

// Benjamini-Hochberg q-values of `p` (NaN entries take no part and stay NaN).
std::vector<double> BenjaminiHochberg(absl::Span<const double> p);

// Sets q (over the tested rows of one table) and the verdict of each row.
void DecideVerdicts(absl::Span<RowComparison* const> rows, const VerdictOptions& options);

// The verdict of one row from its change, interval and q (the table above).
Verdict DecideVerdict(double change, double low, double high, double q, const VerdictOptions& options);

// "-12.3% [-14.1, -10.2] slower"; "new" / "-100%" for absent rows.
std::string FormatChange(const RowComparison& row);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_VERDICT_H_
