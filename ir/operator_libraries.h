// Operator libraries: shared objects that register custom operators with
// LibTorch when loaded (torchvision's compiled extension registers
// torchvision::nms, roi_align, ...; a user's own ops library does the same),
// as Python's torch.ops.load_library loads them. A model calling their
// operators loads only after them.
#ifndef GRAPHPROF_IR_OPERATOR_LIBRARIES_H_
#define GRAPHPROF_IR_OPERATOR_LIBRARIES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// What LoadOperatorLibrary did with a library it did not refuse.
struct LoadedLibrary {
  // Not loaded again: the same file (device and inode) or the same bytes
  // (size and FNV-1a-64 hash) as a library LoadOperatorLibrary loaded before.
  // A second copy of a library registers its operators again, which LibTorch
  // answers with an exception from the copy's initialisers (an abort).
  bool skipped = false;
  // For a skipped one, one line for the user: "<path>: the same library as
  // <first path>, already loaded: skipped" ("<path>: already loaded:
  // skipped" for the same path again); "" otherwise.
  std::string note;
};

// Loads an operator library into this process with dlopen(path, RTLD_NOW |
// RTLD_GLOBAL), after checks that keep a bad file from crashing it:
//   - NotFound naming a missing file; InvalidArgument for a path that is
//     empty or not a regular file;
//   - a library this function loaded before (same file or same bytes) is
//     skipped: OK with a note (above), nothing loaded;
//   - the file must be an ELF shared object this process can map
//     (CheckLoadableSharedObject, elf_check.h: a truncated file would die of
//     SIGBUS inside dlopen): InvalidArgument in one line saying what is wrong;
//   - a library the process has already (libc, libtorch: dlopen with
//     RTLD_NOLOAD finds it) is OK as it is: dlopen only counts a reference;
//   - any other is loaded first in a child process (ProbeLibraryLoad,
//     library_probe.h): one whose loading aborts, crashes or hangs there
//     (e.g. it registers operators LibTorch already has) is refused in one
//     line naming the signal or status, and is never loaded here;
//   - InvalidArgument with dlopen's own message when dlopen still fails.
// Every failure is one line naming the path, and loads nothing. One load at
// a time (a mutex); safe to call from any thread.
absl::StatusOr<LoadedLibrary> LoadOperatorLibrary(const std::string& path);

// Each path of GRAPHPROF_LOAD_LIBRARIES (separated by ':'), in order, with
// LoadOperatorLibrary; the first failure stops it (its message prefixed
// "GRAPHPROF_LOAD_LIBRARIES: "). Returns the notes of the skipped ones, so
// prefixed too; none when the variable is unset or empty.
absl::StatusOr<std::vector<std::string>> LoadOperatorLibrariesFromEnvironment();

// Where this machine has the library that provides operator namespace `ns`
// when graphprof knows it (torchvision: its _C extension of the Python
// packages found here), else "".
std::string KnownLibraryFor(absl::string_view ns);

// For a model that failed to load on "Unknown builtin op: ns::op": a hint
// naming the library that usually provides it and how to pass it ("" when
// the message is not about an unknown operator).
std::string UnknownOperatorHint(absl::string_view load_error);

// The same hint for operator `op` ("torchvision::nms") that LibTorch lacks,
// however it was found missing (a torch.export program names it): "" for
// LibTorch's own namespaces (aten, prim, ...).
std::string LibraryHintFor(absl::string_view op);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_OPERATOR_LIBRARIES_H_
