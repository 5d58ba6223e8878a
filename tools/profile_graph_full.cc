// profile_graph_full: profile_graph with LibTorch, for everything it does
// (profiling, A/B, check, merge, --workers). Users run `profile_graph`, the
// front without LibTorch (profile_graph.cc), which merges reports itself
// and starts this program, beside it, for the rest.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <optional>

#include "absl/status/status.h"
#include "common/big_stack.h"
#include "common/warning_lines.h"
#include "tools/cli_options.h"
#include "tools/command_line.h"
#include "tools/profile_command.h"
#include "tools/trace_pattern.h"

namespace {

int Main(int argc, char** argv) {
  namespace cli = graphprof::cli;
  // LibTorch's and the model's warnings: one escaped line each.
  graphprof::PrintWarningsAsLines(stderr, "profile_graph");
  cli::CliOptions o;
  if (std::optional<int> code = cli::RunCommandsWithoutLibTorch(argc, argv, o)) return *code;
  if (absl::Status trace = cli::ResolveTracePattern(o, std::time(nullptr), getpid()); !trace.ok()) {
    return cli::Fail(stderr, absl::IsInvalidArgument(trace) ? cli::kExitUsage : cli::kExitFailure, trace);
  }
  return cli::RunProfileGraph(o, stdout, stderr);
}

}  // namespace

int main(int argc, char** argv) {
  // Deep graphs make LibTorch's parser and native executor recurse deeply.
  return graphprof::RunWithStack(graphprof::kBigStackBytes, [&] { return Main(argc, argv); });
}
