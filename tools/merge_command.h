// `profile_graph merge A.json B.json ...`: one report of all their runs,
// with the spread across reports (options: format, group_by, sort, top,
// output, html). Every failure is one line on `err` and an exit code
// (cli_options.h); output files are written whole or not at all.
#ifndef GRAPHPROF_TOOLS_MERGE_COMMAND_H_
#define GRAPHPROF_TOOLS_MERGE_COMMAND_H_

#include <cstdio>

#include "tools/cli_options.h"

namespace graphprof::cli {

int RunMerge(const CliOptions& options, std::FILE* out, std::FILE* err);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_MERGE_COMMAND_H_
