#include "common/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
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

void OnSignal(int signal) {
  for (Slot& slot : g_slots) {
    if (slot.used.load(std::memory_order_acquire)) unlink(slot.path);
  }
  if (g_progress_shown.load(std::memory_order_relaxed)) {
    static const char kClear[] = "\r\033[K";
    (void)!write(STDERR_FILENO, kClear, sizeof(kClear) - 1);
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = SIG_DFL;
  sigaction(signal, &action, nullptr);
  raise(signal);
}

}  // namespace

void InstallInterruptHandlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

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
