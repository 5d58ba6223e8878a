// Output files are written whole, together, or not at all.
#include "common/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

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

// A device that fails every write (/dev/full: ENOSPC) is written in place,
// before any regular target is replaced: its failure leaves them as they were.
TEST(OutputFilesTest, AFailingDeviceLeavesTheRegularTargetsUntouched) {
  struct stat st;
  if (stat("/dev/full", &st) != 0 || access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  const std::string dir = testing::TempDir("output_files_full_device");
  const std::string a = dir + "/a.txt";
  { std::ofstream(a) << "old a"; }
  OutputFiles files;
  files.Add(a, "new a");
  files.Add("/dev/full", [](TextSink& sink) { sink.Append("anything"); });
  const absl::Status status = files.Commit();
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "cannot write /dev/full")) << status;
  EXPECT_EQ(Slurp(a), "old a") << "the regular target is not replaced";
  EXPECT_EQ(CountFiles(dir), 1) << "no temporary file left";
}

// A FIFO whose reader leaves mid-write: a one-line failure (EPIPE), not a
// SIGPIPE that kills the process.
TEST(OutputFilesTest, AFifoWhoseReaderLeavesIsAFailedWrite) {
  const std::string dir = testing::TempDir("output_files_fifo");
  const std::string fifo = dir + "/out.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // present before the writer opens
  ASSERT_GE(reader, 0);
  absl::Status status;
  std::thread commit([&] {
    OutputFiles files;
    // Far more than a pipe holds: the writer blocks until the reader leaves.
    files.Add(fifo, [](TextSink& sink) {
      for (int i = 0; i < 64; ++i) {
        sink.Append(std::string(64 << 10, 'x'));
        sink.Chunk();
      }
    });
    status = files.Commit();
  });
  // Leave once the pipe is full (the writer is in write()).
  int pending = 0;
  for (int i = 0; i < 2000 && pending < (64 << 10); ++i) {
    ioctl(reader, FIONREAD, &pending);
    usleep(1000);
  }
  close(reader);
  commit.join();
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "Broken pipe")) << status;
  struct sigaction now = {};
  sigaction(SIGPIPE, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL) << "SIGPIPE is ignored only while committing";
}

}  // namespace
}  // namespace graphprof
