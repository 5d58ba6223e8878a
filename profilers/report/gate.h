// The regression gate (`profile_graph check`, graphprof.check): whether a
// current report is slower than a baseline, for the rows a team selects,
// with the diff's verdicts (verdict.h) — and never a verdict on what cannot
// be compared.
//
// RunGate refuses, FailedPrecondition with one sentence:
//   - training steps against forward runs (their times measure different things);
//   - a report of another graph (SameGraph, merge.h) or of other passes,
//     unless GateOptions::allow_graph_change (the model changed on purpose);
//   - other inputs (Report::inputs, where both know them), unless
//     allow_input_change;
//   - too few timed runs on a side for the run's row to be tested at
//     alpha (the message says how many are needed).
// What it accepted on purpose is listed in GateResult::accepted. Then, over
// the rows GateOptions::fail_on selects ("total", "module", "node"):
//   failed        a selected row is `slower` ("total" selects the run time
//                 and, between processes, the machine-speed row: a change
//                 that slows every node alike, tested with several
//                 processes a side)
//   inconclusive  no selected row could be tested (too fast to time, absent)
//   passed        otherwise: rows were tested and none is slower
#ifndef GRAPHPROF_PROFILERS_REPORT_GATE_H_
#define GRAPHPROF_PROFILERS_REPORT_GATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/verdict.h"

namespace graphprof {

struct GateOptions {
  std::vector<std::string> fail_on = {"total"};  // "total", "module", "node"
  bool allow_graph_change = false;
  bool allow_input_change = false;
  DiffOptions diff;
};

// One selected row that is slower.
struct GateRow {
  std::string what;  // "total", "module", "node"
  std::string name;
  double base_ns = 0;
  double current_ns = 0;
  RowComparison stats;
};

enum class GateOutcome { kPassed, kFailed, kInconclusive };
const char* GateOutcomeName(GateOutcome outcome);  // "passed", "failed", "inconclusive"

struct GateResult {
  GateOutcome outcome = GateOutcome::kPassed;
  std::vector<GateRow> offenders;     // the selected rows that are slower
  int selected = 0;                   // rows fail_on selects
  int tested = 0;                     // of them, rows with a test
  int undecided = 0;                  // of those, rows whose verdict is inconclusive
  std::vector<std::string> accepted;  // differences allowed by GateOptions, one line each
  ReportDiff diff;
};

// The fewest timed runs a side (equal sides) with which a row can be tested
// at these options (Mann-Whitney's smallest p below alpha, and a bounded
// Hodges-Lehmann interval).
int MinimumRunsPerSide(const VerdictOptions& options);

// The gate (see above). InvalidArgument for an unknown fail_on name.
absl::StatusOr<GateResult> RunGate(const Report& base, const Report& current, const GateOptions& options);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_GATE_H_
