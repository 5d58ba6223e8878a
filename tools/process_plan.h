// How many processes a profile is timed in when the command line does not
// say (no --workers), and how its runs spread over them. Two processes of
// one command differ by more than their runs do (docs/statistics.md,
// "Between processes"); a comparison can only tell a change from a process
// when each side measured several.
//
// - A report saved as JSON (--format=json --output=FILE; not --ab,
//   --compare, --compare_model or check): what `check` and --compare read
//   later, from another process. It is timed in kDefaultProcesses worker
//   processes (tools/workers.h), one after another, --runs spread over them
//   (rounded up), or in as many as give each kLeastRunsPerProcess runs
//   (--runs=3: in this process); with --runs=auto each ends its runs by
//   itself within 1/K of --max_time.
// - check profiling the current side against a baseline of K >= 2
//   processes: processes too. With a fixed --runs, K of them, the runs
//   spread alike. With --runs=auto, one process after another, each timing
//   the baseline's runs per process, and the gate looks (sequential_gate.h)
//   after the processes kProcessLooks names, until it stops, the next
//   process would end past --max_time (start-up included), or
//   kMostCheckProcesses have run.
// - None where the profile observes one process (--trace, --nvtx,
//   --nvtx_iters, --cuda_profile; --html for a saved report, whose page
//   shows one process's timeline) or --workers was given (--workers=0: in
//   this process; --workers=K: K processes, each with the flags as given).
#ifndef GRAPHPROF_TOOLS_PROCESS_PLAN_H_
#define GRAPHPROF_TOOLS_PROCESS_PLAN_H_

#include <optional>
#include <string>

#include "profilers/report/report.h"
#include "tools/cli_options.h"
#include "tools/sequential_gate.h"
#include "tools/workers.h"

namespace graphprof::cli {

inline constexpr int kDefaultProcesses = 5;
inline constexpr int kLeastRunsPerProcess = 2;

struct ProcessChoice {
  WorkerPlan plan;
  std::string note;  // for the report: how it was spread, and how to choose otherwise
  bool sequential = false;  // plan.look is the gate's (check --runs=auto)
};

// The processes the profile `options` describes is timed in, by the rules
// above; nullopt: in this process, or as --workers says. `gate` (check
// --runs=auto against a baseline of several processes: the caller's, alive
// while the plan runs) looks after each process.
std::optional<ProcessChoice> ChooseProcesses(const CliOptions& options, const std::optional<Report>& base,
                                             SequentialGate* gate);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_PROCESS_PLAN_H_
