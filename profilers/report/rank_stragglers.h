// Stragglers among the ranks of one torch.distributed program, called by a
// test over runs (docs/distributed.md, "What a straggler verdict means").
//
// A merged report is of aligned ranks (RanksAligned) when every run source
// is a rank of one world size, each rank once, all with the same number of
// runs: profile_graph's ranks meet at a barrier before every run, so run k
// of every rank is the same step, and the ranks' times can be paired run by
// run.
//
// For a row (a node, a module, a kind, the run) and rank r, in each run k:
//   d_k = ln t_rk - ln median_{s != r} t_sk
// the rank's time against the other ranks' in the same step (a slow step of
// the whole program cancels). The rank is slower on the row when the mean
// of d is above ln(1 + kRankStragglerMinExcess) by a one-sided paired t test
// (df = runs - 1); its excess is exp(mean d) - 1, and the time it adds per
// run (the excess times the others' median) must be at least
// kRankStragglerMinShare (1%) of the median run: a straggler worth calling
// holds the whole step back. Measured why (docs/distributed.md): between two
// processes of one program, small nodes differ by -60% to +160% every run
// (attribute reads, two-moded) and convolutions by up to ~25% (0.1-1% of a
// resnet18 step), significant within the runs but not a rank that lags.
// A view calls a rank a
// straggler on a row only when that test's p, times the number of (row,
// rank) tests the view made (Bonferroni), is at most kRankStragglerAlpha:
// in an A/A (ranks running the same code) the chance that any row of the
// view names a straggler is at most alpha, whatever the rows' correlation.
#ifndef GRAPHPROF_PROFILERS_REPORT_RANK_STRAGGLERS_H_
#define GRAPHPROF_PROFILERS_REPORT_RANK_STRAGGLERS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "profilers/report/report.h"

namespace graphprof {

inline constexpr double kRankStragglerAlpha = 0.05;
inline constexpr double kRankStragglerMinExcess = 0.05;
inline constexpr double kRankStragglerMinShare = 0.01;
// Fewer runs than this a rank: no test (the t test's tails need a few).
inline constexpr int kRankStragglerMinRuns = 5;

// Whether `report`'s run sources are aligned ranks (above).
bool RanksAligned(const Report& report);

struct RankTest {
  bool tested = false;  // the row was tested (counts in the view's correction)
  int source = -1;      // the run source (rank) most likely slower; -1: none adds enough
  double excess = 0;    // its exp(mean d) - 1
  double p = 1;         // one-sided, against ln(1 + kRankStragglerMinExcess)
};

// The test above for one row's per-run values (`per_run`: report.runs
// values, in run order) of a report of aligned ranks: the rank with the
// smallest p among those adding at least kRankStragglerMinShare of the run
// (source -1 and p 1 when none does). Not tested when the ranks are not
// aligned, when there are fewer than kRankStragglerMinRuns runs, or when the
// row took no time in most steps.
RankTest TestRanks(const Report& report, absl::Span<const int64_t> per_run);

// A collective's time split, for ranks meeting before each run: in each
// step the rank that reached the collective last waited for no one, so the
// least of the ranks' times is the transfer (with the operator's own work),
// and each rank's time above it is waiting for the slowest rank. The mean
// over steps of that least time (ns); -1 when the ranks are not aligned.
double StepFloorMean(const Report& report, absl::Span<const int64_t> per_run);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_RANK_STRAGGLERS_H_
