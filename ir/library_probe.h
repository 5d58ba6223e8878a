// A trial load of a shared library in a child process. Loading a library
// runs its static initialisers in the loading process, and one that aborts
// (an operator library registering an operator LibTorch already has throws
// c10::Error from its initialiser: std::terminate) or crashes takes the whole
// process with it. ProbeLibraryLoad loads it in a forked child first, so that
// the caller refuses it in one line instead.
#ifndef GRAPHPROF_IR_LIBRARY_PROBE_H_
#define GRAPHPROF_IR_LIBRARY_PROBE_H_

#include <chrono>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// The time ProbeLibraryLoad gives a library by default: 30 s; 120 s in a
// build with AddressSanitizer or ThreadSanitizer, where forking the process
// copies the page tables of the sanitizer's huge shadow mappings (CI's ASan
// step, stop 66: the trial load of torchvision's _C by detection_models_test
// took over 30 s under ctest -j2; the same test passed alone).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GRAPHPROF_PROBE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GRAPHPROF_PROBE_SANITIZED 1
#endif
#endif
#ifdef GRAPHPROF_PROBE_SANITIZED
inline constexpr std::chrono::milliseconds kLibraryProbeTimeout{120000};
#else
inline constexpr std::chrono::milliseconds kLibraryProbeTimeout{30000};
#endif

// Forks a child that dlopens `path` with RTLD_NOW | RTLD_LOCAL, its stdout
// and stderr captured by a pipe (nothing of it reaches the caller's
// terminal), and _exits. OK when the child loaded it and exited normally;
// loads nothing in the calling process. Otherwise InvalidArgument in one line
// naming the path:
//   "<path>: cannot load this library (<dlerror>)" when dlopen failed;
//   "<path>: cannot be loaded safely: loading it in a trial process died of
//   SIGABRT (Aborted): <reason>" when the child died of a signal, exited with
//   another status, or did not finish within `timeout` (then it is killed).
// <reason> is the message of an uncaught exception ("what(): ...") or the
// first line of the child's output mentioning "registered" or "already"
// (LibTorch's duplicate-registration messages), at most ~200 characters;
// left out when the output has neither. Internal when no pipe or child
// process can be made.
//
// Call it before the process starts threads of its own, or while they hold
// no lock: the child is a copy of the calling thread only, and a lock
// another thread held at the fork stays held in it (AddressSanitizer's
// allocator is not fork-safe: a thread allocating at that moment leaves the
// child's first allocation waiting until the timeout). profile_graph loads
// its libraries and opens its sources before its first thread of its own
// (LibTorch's pools may exist, idle, when --ab loads copies of a package:
// sources/compiled/ then skips the trial for a library whose bytes passed
// one in this process).
absl::Status ProbeLibraryLoad(const std::string& path, std::chrono::milliseconds timeout = kLibraryProbeTimeout);

// The reason ProbeLibraryLoad quotes from a child's `output` ("" for none):
// one line, without control characters, truncated to ~200 characters.
std::string ProbeFailureReason(absl::string_view output);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_LIBRARY_PROBE_H_
