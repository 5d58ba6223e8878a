// `profile_graph check`: a regression gate for model teams' CI.
//
//   profile_graph check --baseline=base.json current.json
//   profile_graph check --baseline=base.json --model=m.pt --inputs=x.pt --runs=30 --workers=3
//
// Diffs the current report (given, or profiled now with the usual flags)
// against the baseline with the diff's verdicts (profilers/report/verdict.h)
// and fails, exit 4, when a row that --fail_on selects (total, module, node;
// comma-separated; default total) is `slower`, printing the offending rows
// in one short table. Exit 0 otherwise; 2 for usage errors, 1 for failures,
// 3 when the current profile's output differs from native execution.
#ifndef GRAPHPROF_TOOLS_CHECK_COMMAND_H_
#define GRAPHPROF_TOOLS_CHECK_COMMAND_H_

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "profilers/report/report_diff.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// --fail_on's names are known, and check's own flags are used only by check.
absl::Status ValidateCheck(const CliOptions& options);

// check with a saved current report (options.check_current).
int RunCheckOfFiles(const CliOptions& options, std::FILE* out, std::FILE* err);

// The gate over a diff (base = the baseline): prints the verdict and the
// offending rows (text, or JSON with --format=json) and returns 0 or 4.
int ReportCheck(const CliOptions& options, const ReportDiff& diff, std::FILE* out);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_CHECK_COMMAND_H_
