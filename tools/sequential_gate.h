// check --runs=auto's sequential test: the current side is profiled in one
// process and, at every look (ProfileOptions::Adaptive::stop: after 10 timed
// runs, then every 5), the gate runs on the runs so far at a level of that
// look's own: look k spends the fraction 1 / (k (k + 1)) of alpha (and of
// 1 - confidence, the intervals' level). The fractions of all looks sum to
// 1, so whichever look it stops at, the chance that any look called a row of
// an unchanged model slower or faster is at most alpha (a union bound over
// looks: valid whatever the looks' dependence, and for the rows' false
// discovery proportion at the look it stops at for the same reason). The
// verdict given is the one at the look it stopped at (or, when the budget or
// the most runs ended it between looks, a last look's, at the next
// fraction).
//
// It stops when every row --fail_on selects that has a test has a verdict
// (slower, faster or same), or when none can get one: every undecided row's
// interval is held open by the allowance for what processes differ by (one
// process a side, verdict.h) while the part from this process's runs, all
// more runs can narrow, is already under a third of it. docs/statistics.md,
// "Sequential checks", has the rule, its simulation and its cost.
#ifndef GRAPHPROF_TOOLS_SEQUENTIAL_GATE_H_
#define GRAPHPROF_TOOLS_SEQUENTIAL_GATE_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "profilers/report/gate.h"
#include "profilers/report/report.h"

namespace graphprof::cli {

// The share of alpha look `look` (1, 2, ...) spends: 1 / (look (look + 1)).
double LookFraction(int look);

// The current side timed in processes (tools/process_plan.h): the gate
// looks after these many (each look spends a share of alpha: fewer looks,
// less spent on each), and at most kMostCheckProcesses run.
inline constexpr int kProcessLooks[] = {3, 4, 6, 8, 11, 15, 20};
inline constexpr int kMostCheckProcesses = 24;
bool IsProcessLook(int processes);

// `options` with alpha and 1 - confidence scaled by `fraction`.
GateOptions AtFraction(GateOptions options, double fraction);

// What check did, for its text and JSON (looks, processes, stop_reason,
// seconds) and the level of its verdict.
struct CheckProgress {
  int looks = 1;              // gate evaluations, the verdict's included
  int processes = 1;          // processes the current side was timed in
  std::string stop_reason;    // why profiling (or the check) ended
  double seconds = 0;         // from the command's start to the verdict: RunGate sets it
  double alpha_fraction = 1;  // the verdict's share of alpha (LookFraction of its look)
};

class SequentialGate {
 public:
  SequentialGate(GateOptions options, const Report& base);

  // One look (ProfileOptions::Adaptive::stop): why to stop now, or nullopt.
  std::optional<std::string> Look(const Report& so_far);

  // The current side is timed in processes, at most `most` of them
  // (tools/process_plan.h), against a baseline of several: a look also
  // stops when the only undecided rows are the run total and the machine's
  // speed and neither could get a verdict even with `most` processes (its
  // interval, narrowed as the current side's share of its variance would
  // narrow, still straddling a bound of --min_effect: the baseline's
  // processes bound it).
  void TimedInProcesses(int most) { most_processes_ = most; }

  // After profiling: the looks so far and the fraction the verdict is taken
  // at (the stopping look's; else one more look's). `why` is the profile's
  // own reason when the rule did not stop it.
  CheckProgress Progress(const std::string& why) const;

 private:
  // The undecided rows (TimedInProcesses) no more processes could decide,
  // named ("the run time", "the machine's speed"), when they are all the
  // undecided rows; else empty.
  std::vector<std::string> OutOfReach(const GateResult& gate) const;

  GateOptions options_;
  const Report& base_;
  int looks_ = 0;
  int most_processes_ = 0;
  bool stopped_ = false;
  std::string reason_;
};

// The seconds since this program started (a static's initialisation).
double SecondsSinceStart();

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_SEQUENTIAL_GATE_H_
