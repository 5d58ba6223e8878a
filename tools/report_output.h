// What profile_graph writes for a report: the report (or a diff) rendered
// in the options' format, and every output file written whole, or none.
// Shared by profiling (profile_command.cc) and merging (merge_command.cc).
#ifndef GRAPHPROF_TOOLS_REPORT_OUTPUT_H_
#define GRAPHPROF_TOOLS_REPORT_OUTPUT_H_

#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "common/text_sink.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// Rows of a table when --top is not given.
inline constexpr int kDefaultTableRows = 20;
int TopRows(const CliOptions& options);

// The summary, the main table (--group_by, --sort, --top, --modules) and,
// grouped by node, the by-kind table.
absl::StatusOr<std::string> RenderTableReport(const Report& report, const CliOptions& options);
// The report in --format: table, CSV or JSON.
absl::StatusOr<std::string> RenderReport(const Report& report, const CliOptions& options);
// A comparison in --format.
std::string RenderDiffAs(const ReportDiff& diff, const CliOptions& options);

// The main output (--output, or stdout): rendered already, or streamed.
struct MainOutput {
  std::string text;
  std::function<void(TextSink&)> stream;  // when set, `text` is unused
};

// A report's main output: JSON streamed while the files are written (the
// biggest rendering, and a merge of many reports is large), the other
// formats rendered now.
absl::StatusOr<MainOutput> ReportOutput(const Report& report, const CliOptions& options);

// Writes every output file (--output, --html, --trace, --annotate), or none:
// all are rendered first. `diff` (may be null) goes into the HTML report.
// Returns an exit code (cli_options.h); failures are one line on `err`.
int WriteOutputs(const CliOptions& options, const Report& report, MainOutput main, std::FILE* out, std::FILE* err,
                 const ReportDiff* diff = nullptr);

// Outputs must go to distinct files, none of them an input, and be
// writable: checked before any work, so that a long run does not end in an
// unwritable path.
int CheckOutputs(const CliOptions& options, std::FILE* err);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_REPORT_OUTPUT_H_
