// profile_graph's command line: every flag is defined in command_line.cc
// (the README's flag table is checked against that file), and parsed here
// into CliOptions. No LibTorch: the merge front (profile_graph) and the
// profiling program (profile_graph_full) parse the same way.
#ifndef GRAPHPROF_TOOLS_COMMAND_LINE_H_
#define GRAPHPROF_TOOLS_COMMAND_LINE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

struct Invocation {
  bool help = false;  // --help, -h or --helpfull: print HelpText() and exit 0
  CliOptions options;
};

// Parses argv (flags anywhere; `merge FILE...` or `check [FILE]` first among
// the other arguments). InvalidArgument, in one sentence, for a usage error
// (exit kExitUsage). Relative paths are the user's under `bazel run` too.
// A --trace pattern is left as given (ResolveTracePattern expands it).
absl::StatusOr<Invocation> ParseCommandLine(int argc, char** argv);

// --help's text: the three forms of the command and every flag.
std::string HelpText();

// What both programs (the front and profile_graph_full) do first, none of
// it with LibTorch: parse argv into `options` (a usage error: one line on
// stderr, kExitUsage), answer --help, run `merge` (with Ctrl-C leaving no
// temporary file), refuse what ValidateCommon (cli_options.h) refuses, and
// run `check` of two saved reports.
// Returns the exit code when that was the whole command, nullopt when
// profiling is to follow with `options`.
std::optional<int> RunCommandsWithoutLibTorch(int argc, char** argv, CliOptions& options);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_COMMAND_LINE_H_
