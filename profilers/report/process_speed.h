// What differs between two processes of one model besides the change under
// test, for a comparison of reports made by different processes: the
// machine's speed (taken out of every row) and the processes' own node and
// kind differences (put into the intervals when nothing else measures them).
// docs/statistics.md ("Between processes") gives the measurements behind it.
//
// Speed. The machine runs faster or slower from one minute to the next
// (measured on a 2-core VM: up to ~1.9x, within a process too), and every
// node of a run moves with it. A run's log speed is the mean, over the
// reference nodes holding the middle half of the base's time (a weighted
// midmean), of log(node's time in that run / its median time in the base).
// Reference nodes (SpeedNode) are matched on both sides and timed above the
// floor. A changed node moves the speed only when the changed nodes hold
// about a quarter of the base's time; a node that cost nothing in the base
// weighs nothing. Rows are then compared on each run's times divided by its
// speed (AtEqualSpeed); the speed itself is compared apart: a change that
// slows every node alike cannot be told from a slower machine by one process
// a side.
//
// Process effects. At equal speed two processes still differ node by node,
// heavy-tailed and in stages (measured, ten processes of mobilenet_v2: the
// batch norms 0.54x-1.30x their median; the early blocks 2-6x faster in one
// process than in the others; most convolutions within 3%). One process a
// side cannot measure that for a node, module or kind: the diff does not
// test those rows. The run total is tested with an allowance, a standard
// deviation on the log scale added to its interval's:
//   c_i         node i's change at equal speed (the sides' medians of log
//               time; clamped to +-log 10: beyond that it is the code's,
//               not the process's) as a share of the base time:
//               w_i (exp(d_i) - 1)
//   allowance   the sum over stages of |the sum of the stage's c_i|, stages
//               being runs of consecutive nodes (execution order) holding
//               about 1 / kStages of the base time each: within a stage the
//               signed changes add (their run-to-run noise cancels), and the
//               stages add whatever their signs (what a process does to
//               one stage it may do to the next: measured, a 3-5x effect
//               across two blocks; adding stages in quadrature called 2 of
//               45 real A/A pairs faster)
// A new cost (time where the base had next to none) is seen in full; a
// change of a node that already held time is indistinguishable from what
// processes do to it, and widens the interval as such. Several processes a
// side (NoiseModel::kProcesses) measure the variation instead and need no
// allowance.
#ifndef GRAPHPROF_PROFILERS_REPORT_PROCESS_SPEED_H_
#define GRAPHPROF_PROFILERS_REPORT_PROCESS_SPEED_H_

#include <vector>

#include "absl/types/span.h"

namespace graphprof {

// A node timed on both sides: its per-run times (ns) and where it runs.
struct SpeedNode {
  absl::Span<const double> base;
  absl::Span<const double> current;
  int order = 0;  // position in execution order (the base's node index)
};

class ProcessSpeed {
 public:
  // Fewer reference nodes than this: no speed is estimated (valid() false).
  static constexpr int kMinReferenceNodes = 5;
  // The total's allowance adds changes up within this many stages.
  static constexpr int kStages = 16;

  // `nodes`: the reference nodes, each with as many runs as its side has.
  explicit ProcessSpeed(absl::Span<const SpeedNode> nodes);

  bool valid() const { return valid_; }
  int reference_nodes() const { return reference_nodes_; }
  // Per run, the log speed of each side (0: the base's median speed).
  const std::vector<double>& base_log_speed() const { return base_log_; }
  const std::vector<double>& current_log_speed() const { return current_log_; }

  // values[r] / exp(log_speed[r]) per run (values without a speed unchanged).
  static std::vector<double> AtEqualSpeed(absl::Span<const double> values, absl::Span<const double> log_speed);

  // The run total's allowance (above); 0 when not valid.
  double total_allowance() const { return total_allowance_; }

 private:
  bool valid_ = false;
  std::vector<double> base_log_, current_log_;
  int reference_nodes_ = 0;
  double total_allowance_ = 0;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_PROCESS_SPEED_H_
