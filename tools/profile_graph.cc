// profile_graph: profile a TorchScript graph node by node.
//
//   ./bazelw run //tools:profile_graph                     # zoo resnet18, hotspot report
//   ./bazelw run //tools:profile_graph -- --model=m.pt --input=1x3x224x224:float32 --memory
//   profile_graph merge rank*.json --output=merged.json
//
// README.md and docs/cli.md describe every flag; --help lists them.
//
// This program is the front, without LibTorch: it parses the command line,
// answers --help, merges and checks saved reports, refuses the usage errors
// the options show by themselves and a --compare or --baseline file that is
// not a report (loading LibTorch takes 0.5-1 s, more than reading a
// report), and for everything else replaces itself
// (execv, same arguments) by profile_graph_full, which must be beside it.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/big_stack.h"
#include "tools/check_command.h"
#include "tools/cli_options.h"
#include "tools/command_line.h"

namespace {

namespace cli = graphprof::cli;

// profile_graph_full in this program's directory (symbolic links followed:
// under `bazel run` and in tests this program is reached through one), or
// empty when that directory cannot be known (no /proc): never a guess such
// as the working directory.
std::string FullProgram() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self));
  if (n <= 0 || n >= static_cast<ssize_t>(sizeof(self))) return "";
  const std::string path(self, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return absl::StrCat(path.substr(0, slash), "/profile_graph_full");
}

int Main(int argc, char** argv) {
  cli::CliOptions options;
  if (std::optional<int> code = cli::RunCommandsWithoutLibTorch(argc, argv, options)) return *code;
  if (!options.list_zoo && !options.list_passes) {  // the listings ignore the other flags
    if (int code = cli::RefuseUnreadableBaseReport(options, stderr); code != cli::kExitOk) return code;
  }
  const std::string full = FullProgram();
  if (full.empty()) {
    return cli::Fail(stderr, cli::kExitFailure,
                     "cannot find this program's directory (/proc/self/exe), where profile_graph_full must be");
  }
  execv(full.c_str(), argv);
  return cli::Fail(stderr, cli::kExitFailure,
                   absl::StrCat("cannot start ", full, " (", std::strerror(errno),
                                "): profiling needs profile_graph_full installed beside profile_graph"));
}

}  // namespace

int main(int argc, char** argv) {
  // The same stack as profile_graph_full's: deeply nested reports (module
  // paths, --html's module tree) recurse.
  return graphprof::RunWithStack(graphprof::kBigStackBytes, [&] { return Main(argc, argv); });
}
