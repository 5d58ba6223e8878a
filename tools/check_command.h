// `profile_graph check`: a regression gate for model teams' CI.
//
//   profile_graph check --baseline=base.json current.json
//   profile_graph check --baseline=base.json --model=m.pt --inputs=x.pt --runs=30 --workers=3
//
// Diffs the current report (given, or profiled now with the usual flags)
// against the baseline with the diff's verdicts (profilers/report/verdict.h)
// and decides, for the rows --fail_on selects (total, module, node;
// comma-separated; default total):
//   exit 4  FAILED        a selected row is `slower`
//   exit 5  INCONCLUSIVE  no selected row could be tested (too fast to time,
//                         absent): the gate cannot tell
//   exit 0  PASSED        selected rows were tested and none is slower
// It first refuses, exit 1, what cannot be compared: a baseline of another
// graph or other passes (--allow_graph_change accepts it), of other inputs
// (--allow_input_change), of training steps against forward runs (never),
// and too few timed runs on either side for the test to reach --alpha (the
// message says how many). Accepted differences are stated in the verdict.
// Both forms (a saved current report, or profiling now) go through RunGate,
// so the same data gets the same verdict. The verdict (text or --format=json)
// goes to stdout or --output, atomically, with --html the current report and
// the diff; 2 for usage errors, 3 when the current profile's output differs
// from native execution.
#ifndef GRAPHPROF_TOOLS_CHECK_COMMAND_H_
#define GRAPHPROF_TOOLS_CHECK_COMMAND_H_

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "profilers/report/report.h"
#include "profilers/report/gate.h"
#include "profilers/report/report_diff.h"
#include "tools/cli_options.h"
#include "tools/sequential_gate.h"

namespace graphprof::cli {

// --fail_on's names are known, check's own flags are used only by check,
// and no flag given to check would be ignored.
absl::Status ValidateCheck(const CliOptions& options);

// Writes the gate's rendered verdict (and the diff, for --html); returns an
// exit code.
using MainOutputWriter = std::function<int(std::string text, const ReportDiff& diff)>;

// The gate over two reports (profilers/report/gate.h): its verdict rendered
// in --format and written through `write`. Returns 0, 4, 5, or 1 when the
// reports cannot be compared.
// `progress`: what the check did (printed as the `took` line, JSON's looks,
// processes, stop_reason, seconds: the seconds are taken now) and the share
// of --alpha its verdict is taken at (tools/sequential_gate.h).
int RunGate(const CliOptions& options, const Report& base, const Report& current, const MainOutputWriter& write,
            std::FILE* err, const CheckProgress& progress);

// The gate's options from the flags (--fail_on, --allow_*, --min_effect,
// --alpha, --diff_all).
GateOptions GateOptionsOf(const CliOptions& options);

// A check's progress when its current report was not profiled in looks (a
// saved report, fixed --runs, workers): one look, the report's processes, `why`.
CheckProgress ProgressOfReport(const Report& current, std::string why);

// check with a saved current report (options.check_current), options
// validated (ValidateCommon): no LibTorch, so the front runs it.
int RunCheckOfFiles(const CliOptions& options, std::FILE* out, std::FILE* err);

// The saved report a profile is compared with: check's --baseline, else
// --compare; empty where there is none.
const std::string& BaseReportPath(const CliOptions& options);

// The saved report a profile will be compared with (--compare, or check's
// --baseline with a current profile made now), read by the front before it
// starts profile_graph_full: one that is not a report graphprof could have
// written is refused (exit 1, the message profile_graph_full gives) without
// LibTorch's start-up (0.7 s, about 2 s under ASan), after CheckOutputs as
// there (an output that would overwrite it is exit 2 first); usage errors
// only profile_graph_full finds (a --sort key, a pass list) then come after
// it. Returns kExitOk where there is no such file or it reads;
// profile_graph_full reads it again to compare.
int RefuseUnreadableBaseReport(const CliOptions& options, std::FILE* err);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_CHECK_COMMAND_H_
