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
#include "absl/strings/string_view.h"

namespace graphprof {

// dlopen(path, RTLD_NOW | RTLD_GLOBAL): NotFound naming a missing file;
// InvalidArgument in one line naming the path and what is wrong for a file
// that is not an ELF shared object this process can map
// (CheckLoadableSharedObject, elf_check.h: a truncated one would die of
// SIGBUS inside dlopen), never handed to dlopen; InvalidArgument with
// dlopen's own message otherwise. Loading a library twice is harmless
// (dlopen counts references).
absl::Status LoadOperatorLibrary(const std::string& path);

// Each path of GRAPHPROF_LOAD_LIBRARIES (separated by ':'), in order; OK
// when it is unset or empty.
absl::Status LoadOperatorLibrariesFromEnvironment();

// Where this machine has the library that provides operator namespace `ns`
// when graphprof knows it (torchvision: its _C extension of the Python
// packages found here), else "".
std::string KnownLibraryFor(absl::string_view ns);

// For a model that failed to load on "Unknown builtin op: ns::op": a hint
// naming the library that usually provides it and how to pass it ("" when
// the message is not about an unknown operator).
std::string UnknownOperatorHint(absl::string_view load_error);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_OPERATOR_LIBRARIES_H_
