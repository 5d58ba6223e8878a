// A trial load in a child process (library_probe.h).
//
// fork() in a process with threads (LibTorch's pools, the clock's calibration
// thread) copies only the calling thread; a lock another thread held at that
// moment stays held in the child. That is safe enough here: the child only
// dlopens and _exits (glibc's fork leaves malloc and stdio usable in the
// child), and should a library's initialiser wait on such a lock, the child
// is killed at the timeout and the library refused, the parent unharmed.
#include "ir/library_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace graphprof {
namespace {

// The child's exit status when dlopen failed (after writing kDlerrorMark and
// dlerror()'s message to its stderr).
constexpr int kDlopenFailed = 3;
constexpr absl::string_view kDlerrorMark = "graphprof-probe-dlerror: ";
// The most of the child's output kept (the rest is read and dropped).
constexpr size_t kMaxOutput = 64 * 1024;
constexpr size_t kMaxReason = 200;

void WriteAll(int fd, absl::string_view text) {
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

// The child: load, say why not, exit. Never returns.
[[noreturn]] void LoadInChild(const std::string& path, int output) {
  dup2(output, STDOUT_FILENO);
  dup2(output, STDERR_FILENO);
  // A crash is reported as its signal, whatever handlers the parent set.
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, SIG_DFL);
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) _exit(0);
  const char* why = dlerror();
  WriteAll(STDERR_FILENO, absl::StrCat("\n", kDlerrorMark, why != nullptr ? why : "dlopen failed", "\n"));
  _exit(kDlopenFailed);
}

// Reads what the pipe holds now into `output` (up to kMaxOutput); `eof` when
// the writers are gone.
void Drain(int fd, std::string* output, bool* eof) {
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) *eof = true;
    if (n <= 0) return;
    output->append(buffer, std::min(static_cast<size_t>(n), kMaxOutput - std::min(kMaxOutput, output->size())));
  }
}

std::string SignalName(int sig) {
  const char* name = nullptr;
  switch (sig) {
    case SIGABRT: name = "SIGABRT"; break;
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGTERM: name = "SIGTERM"; break;
    case SIGTRAP: name = "SIGTRAP"; break;
    case SIGSYS: name = "SIGSYS"; break;
    case SIGPIPE: name = "SIGPIPE"; break;
    default: break;
  }
  const char* description = strsignal(sig);
  return absl::StrCat(name != nullptr ? name : absl::StrCat("signal ", sig),
                      description != nullptr ? absl::StrCat(" (", description, ")") : "");
}

// Waits for `child` while collecting its output from `fd`: true with its
// wait status in `status`, false with errno when waitpid failed. Kills it
// after `timeout` (`timed_out`).
bool WaitCollecting(pid_t child, int fd, std::chrono::milliseconds timeout, std::string* output, int* status,
                    bool* timed_out) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool eof = false;
  while (true) {
    const pid_t done = waitpid(child, status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(child, SIGKILL);
      while (waitpid(child, status, 0) < 0 && errno == EINTR) {
      }
      *timed_out = true;
      break;
    }
    // Output or 50 ms, whichever comes first (after EOF, only the wait).
    pollfd readable{fd, POLLIN, 0};
    poll(eof ? nullptr : &readable, eof ? 0 : 1, 50);
    if (!eof) Drain(fd, output, &eof);
  }
  Drain(fd, output, &eof);
  return true;
}

std::string Describe(int status, bool timed_out, std::chrono::milliseconds timeout) {
  if (timed_out) return absl::StrCat("did not finish in ", timeout.count() / 1000.0, " s (stopped)");
  if (WIFSIGNALED(status)) return absl::StrCat("died of ", SignalName(WTERMSIG(status)));
  return absl::StrCat("exited with status ", WEXITSTATUS(status));
}

}  // namespace

std::string ProbeFailureReason(absl::string_view output) {
  absl::string_view found;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (const size_t what = line.find("what():"); what != absl::string_view::npos) {
      found = line.substr(what + 7);
      break;
    }
    if (found.empty() && (absl::StrContains(line, "registered") || absl::StrContains(line, "already"))) found = line;
  }
  std::string reason;
  for (char c : found) {
    const bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (control || c == ' ') {
      if (!reason.empty() && reason.back() != ' ') reason += ' ';
    } else {
      reason += c;
    }
  }
  while (!reason.empty() && reason.back() == ' ') reason.pop_back();
  if (reason.size() > kMaxReason) {
    size_t cut = kMaxReason;
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    reason = absl::StrCat(reason.substr(0, cut), "...");
  }
  return reason;
}

absl::Status ProbeLibraryLoad(const std::string& path, std::chrono::milliseconds timeout) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat(path, ": cannot try loading it (pipe: ", std::strerror(errno), ")"));
  }
  // The child inherits the stdio buffers: a library that calls exit() there
  // would write what the parent had pending into the pipe (and lose it here).
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) LoadInChild(path, pipe_fds[1]);
  const int fork_error = errno;
  close(pipe_fds[1]);
  if (child < 0) {
    close(pipe_fds[0]);
    return absl::InternalError(absl::StrCat(path, ": cannot try loading it (fork: ", std::strerror(fork_error), ")"));
  }
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  std::string output;
  int status = 0;
  bool timed_out = false;
  const bool waited = WaitCollecting(child, pipe_fds[0], timeout, &output, &status, &timed_out);
  const int wait_error = errno;
  close(pipe_fds[0]);
  if (!waited) {
    return absl::InternalError(absl::StrCat(path, ": cannot tell how loading it in a trial process ended (waitpid: ",
                                            std::strerror(wait_error), ")"));
  }
  if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == kDlopenFailed) {
    const absl::string_view text = output;
    if (const size_t mark = text.rfind(kDlerrorMark); mark != absl::string_view::npos) {
      absl::string_view why = text.substr(mark + kDlerrorMark.size());
      why = absl::StripTrailingAsciiWhitespace(why.substr(0, why.find('\n')));
      return absl::InvalidArgumentError(absl::StrCat(path, ": cannot load this library (", why, ")"));
    }
  }
  const std::string reason = ProbeFailureReason(output);
  return absl::InvalidArgumentError(absl::StrCat(path, ": cannot be loaded safely: loading it in a trial process ",
                                                 Describe(status, timed_out, timeout),
                                                 reason.empty() ? "" : absl::StrCat(": ", reason)));
}

}  // namespace graphprof
