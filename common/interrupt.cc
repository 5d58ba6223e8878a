#include "common/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace graphprof {
namespace {

constexpr int kSlots = 64;
constexpr int kPathBytes = 4096;

struct Slot {
  std::atomic<bool> used{false};
  char path[kPathBytes];
};

Slot g_slots[kSlots];
std::atomic<bool> g_progress_shown{false};
std::atomic<bool> g_installed{false};
std::atomic<int> g_child{0};

constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGUSR1, SIGUSR2, SIGPIPE};

const char* Message(int signal) {
  switch (signal) {
    case SIGINT: return "profile_graph: interrupted (SIGINT)\n";
    case SIGTERM: return "profile_graph: stopped by SIGTERM\n";
    case SIGHUP: return "profile_graph: stopped by SIGHUP (the terminal went away)\n";
    case SIGALRM: return "profile_graph: stopped by SIGALRM\n";
    case SIGUSR1: return "profile_graph: stopped by SIGUSR1\n";
    case SIGUSR2: return "profile_graph: stopped by SIGUSR2\n";
    case SIGPIPE: return "profile_graph: stopped by SIGPIPE (the reader of a pipe went away)\n";
  }
  return "profile_graph: stopped by a signal\n";
}

void OnSignal(int signal) {
  const int saved_errno = errno;
  if (const int child = g_child.load(std::memory_order_acquire); child > 0) kill(child, signal);
  for (Slot& slot : g_slots) {
    if (slot.used.load(std::memory_order_acquire)) unlink(slot.path);
  }
  if (g_progress_shown.load(std::memory_order_relaxed)) {
    static const char kClear[] = "\r\033[K";
    (void)!write(STDERR_FILENO, kClear, sizeof(kClear) - 1);
  }
  const char* message = Message(signal);
  (void)!write(STDERR_FILENO, message, std::strlen(message));
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = SIG_DFL;
  sigaction(signal, &action, nullptr);
  errno = saved_errno;
  raise(signal);
}

}  // namespace

void InstallInterruptHandlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : kEndingSignals) sigaddset(&action.sa_mask, signal);
  for (int signal : kEndingSignals) {
    struct sigaction previous;
    // nohup's SIGHUP stays ignored. (A shell ignores SIGINT in the jobs it
    // starts in the background; an explicit kill -INT must still clean up.)
    if (signal == SIGHUP && sigaction(signal, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, nullptr);
}

void SetChildProcess(int pid) { g_child.store(pid, std::memory_order_release); }

int RegisterTempFile(const char* path) {
  if (std::strlen(path) >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.used.load(std::memory_order_acquire)) continue;
    std::strcpy(slot.path, path);
    slot.used.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void UnregisterTempFile(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false, std::memory_order_release);
}

void SetProgressLineShown(bool shown) { g_progress_shown.store(shown, std::memory_order_relaxed); }

}  // namespace graphprof
