// --trace=PATTERN: a trace file name with placeholders (common/path_pattern.h:
// {model}, {date}, {pid}, {n}), expanded once when profile_graph starts, so
// repeated experiments keep every trace. The file is then written as a new
// file (OutputFiles::AddNew): it never replaces one, not even one that
// appeared while profiling, and profile_graph says on stderr where it went.
#ifndef GRAPHPROF_TOOLS_TRACE_PATTERN_H_
#define GRAPHPROF_TOOLS_TRACE_PATTERN_H_

#include <ctime>
#include <string>

#include "absl/status/status.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// {model}: the zoo model's name, or the --model / --ir file's name without
// directory and extension.
std::string ModelNameForFiles(const CliOptions& options);

// When options.trace is a pattern: replaces it with its expansion for a run
// started at `start` by process `pid`, and sets options.trace_is_new.
// InvalidArgument for a bad pattern ("--trace: unknown placeholder ...").
absl::Status ResolveTracePattern(CliOptions& options, std::time_t start, long pid);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_TRACE_PATTERN_H_
