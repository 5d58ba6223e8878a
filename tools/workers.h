// --workers=K: the same profile in K fresh processes of this executable,
// one after another (never two at once: they would compete for the cores),
// merged into one report whose run_sources name the processes. Two
// processes of one command differ by more than their runs do (memory
// layout, allocator state, CPU placement, the machine's state that minute);
// with the processes in the report, diffs treat the process as the unit of
// variation (profilers/report/verdict.h).
//
// Each worker is started with posix_spawn (not fork of a process that has
// loaded LibTorch) with the parent's flags minus those that choose outputs
// and renderings, plus --worker_dir (where it writes its report(s) as JSON)
// and --noprogress. Its stderr is kept in a file: on failure the parent
// reports the worker's last line; on success its lines are printed once
// (not once per worker). A SIGINT/SIGTERM to the parent reaches the running
// worker (common/interrupt.h).
#ifndef GRAPHPROF_TOOLS_WORKERS_H_
#define GRAPHPROF_TOOLS_WORKERS_H_

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/report/merge.h"
#include "profilers/report/report.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// The file names a worker writes into --worker_dir.
inline constexpr char kWorkerReport[] = "report.json";  // a plain profile
inline constexpr char kWorkerA[] = "a.json";            // --ab: A
inline constexpr char kWorkerB[] = "b.json";            // --ab: B

// How the parent spreads a profile over workers.
struct WorkerPlan {
  int processes = 0;  // the most workers to start
  // Flags that replace the parent's of the same names in every worker, as
  // "--name=value" (the parent's --runs=30 spread as --runs=6 over five).
  std::vector<std::string> flags;
  // Flags of the parent's a worker does not get (besides those `flags` replace).
  std::vector<std::string> drop;
  // After each worker, with the merge so far (A's, with --ab: its SoFar(),
  // taken only where the look needs the report) and the workers run: a
  // reason to start no more, or nullopt. Unset: all `processes` run.
  std::function<std::optional<std::string>(const ReportMerger& merged, int workers)> look;
};

// The plan --workers=K is: K workers, the parent's flags as given.
WorkerPlan GivenWorkers(const CliOptions& options);

// `argv` (argv[0] first) for a worker: the flags that name outputs or shape
// renderings (--workers, --output, --trace, --html, --annotate, --format,
// --compare, --progress, --group_by, --sort, --top, --modules), those
// `plan` drops and those its flags replace removed, in both their
// --flag=value and --flag value forms, then the plan's flags,
// --worker_dir=DIR and --noprogress added.
std::vector<std::string> WorkerArguments(const std::vector<std::string>& argv, const std::string& dir,
                                         const WorkerPlan& plan = {});

struct WorkerReports {
  Report report;              // merged over the workers (A with --ab)
  std::optional<Report> b;    // --ab: B, merged likewise
  bool mismatch = false;      // some worker's output (or gradients) differed: exit 3
  int processes = 0;          // workers run
  std::string stop_reason;    // the plan's look's, when it stopped them; else empty
};

// Runs the plan's workers of `executable` (default /proc/self/exe), one
// after another, and merges what they wrote. Fails when a worker cannot
// start, is killed, or exits with a code other than 0 or 3 (kExitMismatch),
// naming the worker and its last stderr line.
absl::StatusOr<WorkerReports> RunWorkers(const CliOptions& options, const WorkerPlan& plan, std::FILE* err,
                                         const std::string& executable = "/proc/self/exe");

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_WORKERS_H_
