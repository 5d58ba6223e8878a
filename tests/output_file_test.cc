// Output files are written whole, together, or not at all.
#include "common/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "common/interrupt.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

int CountFiles(const std::string& dir) {
  int n = 0;
  const std::string command = "ls -A " + dir + " | wc -l";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe != nullptr && fscanf(pipe, "%d", &n) != 1) n = -1;
  if (pipe != nullptr) pclose(pipe);
  return n;
}

TEST(OutputFilesTest, AllOrNothing) {
  const std::string dir = testing::TempDir("output_files_all_or_nothing");
  const std::string a = dir + "/a.txt", b = dir + "/b.txt";
  { std::ofstream(a) << "old a"; }
  OutputFiles files;
  files.Add(a, "new a");
  files.Add(b, "new b");
  files.Add(dir + "/missing/c.txt", "c");  // cannot be written
  absl::Status status = files.Commit();
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "missing/c.txt")) << status;
  EXPECT_EQ(Slurp(a), "old a") << "no target touched";
  EXPECT_FALSE(Exists(b));
  EXPECT_EQ(CountFiles(dir), 1) << "no temporary file left";

  OutputFiles good;
  good.Add(a, "new a");
  good.Add(b, "new b");
  ASSERT_TRUE(good.Commit().ok());
  EXPECT_EQ(Slurp(a), "new a");
  EXPECT_EQ(Slurp(b), "new b");
  EXPECT_EQ(CountFiles(dir), 2);
}

TEST(OutputFilesTest, SameFileFollowsLinksAndDots) {
  const std::string dir = testing::TempDir("output_files_same");
  const std::string a = dir + "/a.txt";
  { std::ofstream(a) << "x"; }
  ASSERT_EQ(symlink(a.c_str(), (dir + "/link").c_str()), 0);
  EXPECT_TRUE(SameFile(a, dir + "/link"));
  EXPECT_TRUE(SameFile(a, dir + "/./a.txt"));
  EXPECT_TRUE(SameFile(dir + "/new.txt", dir + "/./new.txt")) << "not yet existing";
  EXPECT_FALSE(SameFile(a, dir + "/new.txt"));
  EXPECT_FALSE(SameFile(a, ""));
}

TEST(OutputFilesTest, InterruptionRemovesRegisteredTemporaries) {
  const std::string dir = testing::TempDir("output_files_interrupt");
  const std::string temp = dir + "/.report.json.tmp.1";
  pid_t child = fork();
  if (child == 0) {
    InstallInterruptHandlers();
    { std::ofstream(temp) << "partial"; }
    RegisterTempFile(temp.c_str());
    raise(SIGINT);
    _exit(0);  // not reached: SIGINT ends the process after the cleanup
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "the signal still ends the process";
  EXPECT_FALSE(Exists(temp)) << "the temporary file is gone";
}

}  // namespace
}  // namespace graphprof
