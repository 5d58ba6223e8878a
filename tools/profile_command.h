// profile_graph's work, given validated options: load, profile, verify,
// render, write. Every failure is one line on `err` and an exit code
// (cli_options.h); output files are written whole or not at all.
#ifndef GRAPHPROF_TOOLS_PROFILE_COMMAND_H_
#define GRAPHPROF_TOOLS_PROFILE_COMMAND_H_

#include <cstdio>

#include "tools/cli_options.h"

namespace graphprof::cli {

// `out` receives the report when options.output is empty; `err` messages and
// the progress line.
int RunProfileGraph(const CliOptions& options, std::FILE* out, std::FILE* err);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_PROFILE_COMMAND_H_
