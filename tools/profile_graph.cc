// profile_graph: profile a TorchScript graph node by node.
//
//   ./bazelw run //tools:profile_graph                     # zoo resnet18, hotspot report
//   ./bazelw run //tools:profile_graph -- --model=m.pt --input=1x3x224x224:float32 --memory
//   profile_graph merge rank*.json --output=merged.json
//
// README.md and docs/cli.md describe every flag; --help lists them.
//
// This program is the front, without LibTorch: it parses the command line,
// answers --help and merges reports itself (loading LibTorch takes 0.5-1 s,
// more than reading a report), and for everything else replaces itself
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
#include "tools/cli_options.h"
#include "tools/command_line.h"

namespace {

namespace cli = graphprof::cli;

// profile_graph_full in this program's directory (symbolic links followed:
// under `bazel run` and in tests this program is reached through one).
std::string FullProgram() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = ".";
  if (n > 0) {
    dir.assign(self, static_cast<size_t>(n));
    const size_t slash = dir.rfind('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash);
  }
  return absl::StrCat(dir, "/profile_graph_full");
}

}  // namespace

int main(int argc, char** argv) {
  cli::CliOptions options;
  if (std::optional<int> code = cli::RunCommandsWithoutLibTorch(argc, argv, options)) return *code;
  const std::string full = FullProgram();
  execv(full.c_str(), argv);
  return cli::Fail(stderr, cli::kExitFailure,
                   absl::StrCat("cannot start ", full, " (", std::strerror(errno),
                                "): profiling needs profile_graph_full installed beside profile_graph"));
}
