#include "tests/cli_test_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "tests/test_util.h"

extern char** environ;

namespace graphprof::testing {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Result RunTool(std::vector<std::string> args) { return RunBinary("tools/profile_graph", std::move(args)); }

Result RunBinary(const std::string& binary, std::vector<std::string> args) {
  static int counter = 0;
  const std::string dir = TempDir("cli");
  const std::string out_path = dir + "/out" + std::to_string(counter);
  const std::string err_path = dir + "/err" + std::to_string(counter++);
  args.insert(args.begin(), binary);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  Result result;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    ADD_FAILURE() << "cannot start " << binary;
    return result;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  pid_t waited;
  do {
    waited = waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);  // else a signal would read a running tool's partial output
  if (waited != pid) ADD_FAILURE() << "waitpid for " << binary << ": " << std::strerror(errno);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = Slurp(out_path);
  result.err = Slurp(err_path);
  return result;
}

// Fast settings for a small model.
std::vector<std::string> Quick(std::vector<std::string> extra) {
  std::vector<std::string> args = {"--warmup=1", "--runs=2"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

void ExpectOneLineError(const Result& r, int code, const std::string& text) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.err, "profile_graph: ")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, text)) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

std::string Write(const std::string& name, const std::string& contents) {
  const std::string path = TempDir("cli") + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

}  // namespace graphprof::testing
