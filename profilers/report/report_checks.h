// Whether a report is one graphprof could have written: the one validation
// of a report, applied where a report is read (the JSON reader, so every
// command and Python) and by what combines reports (merge, diff) on their
// inputs. Everything downstream may rely on what it guarantees.
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_

#include "absl/status/status.h"
#include "profilers/report/report.h"

namespace graphprof {

// Top-level nodes may together exceed their run by this fraction plus
// kCoverageSlackNs before a report is refused (clocks read apart).
inline constexpr double kCoverageSlack = 0.01;
inline constexpr double kCoverageSlackNs = 1000;

// The range of a plausible roofline ceiling, in GFLOP/s or GB/s: a
// microcontroller's to beyond any accelerator's.
inline constexpr double kMinCeiling = 1e-3;
inline constexpr double kMaxCeiling = 1e8;
bool PlausibleCeiling(double value);

// OK, or InvalidArgument with one sentence naming the first violation of:
// - runs >= 1 and at least one node; metrics start with "time";
// - node ids are their indices, parents come before their children, depths
//   are their parent's + 1 (0 at top level);
// - every per-run series has `runs` values (time on every node; other
//   metrics' series, run totals and unattributed values: none or `runs`);
//   calls, times, counts, run totals, kernel times, gradient bytes: >= 0;
//   quantities of work finite and >= 0, of memory integers of magnitude
//   2^53 at most (a double holds them exactly); timer costs finite and >= 0;
// - run times not all 0, and in every run the top-level nodes' times add up
//   to at most the run time (within kCoverageSlack);
// - ceilings plausible or unknown (-1); memory peak and timeline nodes exist;
//   merged runs' sources in order, in range and disjoint;
// - the magnitudes of each quantity add up to at most 2^60, so no sum a
//   renderer makes can overflow int64.
absl::Status ValidateReport(const Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_CHECKS_H_
