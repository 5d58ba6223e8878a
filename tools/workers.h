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
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/report/report.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// The file names a worker writes into --worker_dir.
inline constexpr char kWorkerReport[] = "report.json";  // a plain profile
inline constexpr char kWorkerA[] = "a.json";            // --ab: A
inline constexpr char kWorkerB[] = "b.json";            // --ab: B

// `argv` (argv[0] first) for a worker: the flags that name outputs or shape
// renderings (--workers, --output, --trace, --html, --annotate, --format,
// --compare, --progress, --group_by, --sort, --top, --modules) removed, in
// both their --flag=value and --flag value forms, then --worker_dir=DIR
// --noprogress added.
std::vector<std::string> WorkerArguments(const std::vector<std::string>& argv, const std::string& dir);

struct WorkerReports {
  Report report;              // merged over the workers (A with --ab)
  std::optional<Report> b;    // --ab: B, merged likewise
  bool mismatch = false;      // some worker's output (or gradients) differed: exit 3
};

// Runs options.workers workers of `executable` (default /proc/self/exe) and
// merges what they wrote. Fails when a worker cannot start, is killed, or
// exits with a code other than 0 or 3 (kExitMismatch), naming the worker
// and its last stderr line.
absl::StatusOr<WorkerReports> RunWorkers(const CliOptions& options, std::FILE* err,
                                         const std::string& executable = "/proc/self/exe");

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_WORKERS_H_
