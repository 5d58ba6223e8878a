// Output files are written whole, together, or not at all.
#include "common/output_file.h"

#include <gtest/gtest.h>
#include <cstring>
#include <sys/resource.h>
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
#include "absl/strings/str_cat.h"
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

// Every signal that ends the CLI: the temporaries go, one line says why, and
// the signal still ends the process (its exit status is the signal's).
TEST(OutputFilesTest, EveryEndingSignalRemovesRegisteredTemporaries) {
  const std::string dir = testing::TempDir("output_files_interrupt");
  const std::pair<int, const char*> signals[] = {
      {SIGINT, "interrupted (SIGINT)"}, {SIGTERM, "stopped by SIGTERM"}, {SIGHUP, "stopped by SIGHUP"},
      {SIGALRM, "stopped by SIGALRM"},  {SIGUSR1, "stopped by SIGUSR1"}, {SIGUSR2, "stopped by SIGUSR2"},
      {SIGPIPE, "stopped by SIGPIPE"}};
  for (const auto& [signal, message] : signals) {
    const std::string temp = absl::StrCat(dir, "/.report.json.tmp.", signal);
    const std::string err = absl::StrCat(dir, "/stderr.", signal);
    pid_t child = fork();
    if (child == 0) {
      freopen(err.c_str(), "w", stderr);
      InstallInterruptHandlers();
      { std::ofstream(temp) << "partial"; }
      RegisterTempFile(temp.c_str());
      raise(signal);
      _exit(0);  // not reached: the signal ends the process after the cleanup
    }
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << strsignal(signal) << ": still ends the process";
    EXPECT_FALSE(Exists(temp)) << strsignal(signal) << ": the temporary file is gone";
    EXPECT_EQ(Slurp(err), absl::StrCat("profile_graph: ", message, signal == SIGHUP ? " (the terminal went away)" :
                                       signal == SIGPIPE ? " (the reader of a pipe went away)" : "", "\n"));
  }
}

char g_marker[4096];

// A worker process (SetChildProcess) gets the signal that ends its parent.
TEST(OutputFilesTest, TheRunningWorkerGetsTheSignal) {
  const std::string dir = testing::TempDir("output_files_child");
  const std::string marker = dir + "/worker_got_sigterm";
  std::snprintf(g_marker, sizeof(g_marker), "%s", marker.c_str());
  pid_t parent = fork();
  if (parent == 0) {
    pid_t worker = fork();
    if (worker == 0) {
      signal(SIGTERM, [](int) {
        // async-signal-safe: create the marker, then end.
        close(open(g_marker, O_CREAT | O_WRONLY, 0600));
        _exit(0);
      });
      for (;;) pause();
    }
    InstallInterruptHandlers();
    SetChildProcess(worker);
    usleep(100 * 1000);  // the worker installs its handler
    raise(SIGTERM);
    _exit(0);
  }
  int status = 0;
  waitpid(parent, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  for (int i = 0; i < 50 && !Exists(marker); ++i) usleep(100 * 1000);
  EXPECT_TRUE(Exists(marker)) << "the worker was signalled";
}

// SIGXFSZ is ignored: a file-size limit (ulimit -f) is a failed write with
// a message, not a killed process.
TEST(OutputFilesTest, AFileSizeLimitIsAFailedWrite) {
  const std::string dir = testing::TempDir("output_files_fsize");
  const std::string target = dir + "/big.json";
  const std::string err = dir + "/stderr";
  pid_t child = fork();
  if (child == 0) {
    InstallInterruptHandlers();
    struct rlimit limit = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    OutputFiles files;
    files.Add(target, std::string(1 << 20, 'x'));
    const absl::Status status = files.Commit();
    FILE* out = fopen(err.c_str(), "w");
    fputs(std::string(status.message()).c_str(), out);
    fclose(out);
    _exit(status.ok() ? 0 : 3);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "not killed by SIGXFSZ";
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_TRUE(absl::StrContains(Slurp(err), "File too large")) << Slurp(err);
  EXPECT_FALSE(Exists(target));
  EXPECT_EQ(CountFiles(dir), 1) << "only the message file: no temporary left";
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
  struct sigaction before = {};
  sigaction(SIGPIPE, nullptr, &before);
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
  EXPECT_EQ(now.sa_handler, before.sa_handler) << "SIGPIPE is ignored only while committing";
  EXPECT_NE(now.sa_handler, SIG_IGN);
}

}  // namespace
}  // namespace graphprof
