// Operator libraries (operator_libraries.h).
#include "ir/operator_libraries.h"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/elf_check.h"

namespace graphprof {

absl::Status LoadOperatorLibrary(const std::string& path) {
  struct stat st;
  if (path.empty()) return absl::InvalidArgumentError("an operator library path is empty");
  if (stat(path.c_str(), &st) != 0) return absl::NotFoundError(absl::StrCat(path, ": no such operator library"));
  if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": not a file (an operator library is a .so)"));
  if (absl::Status elf = CheckLoadableSharedObject(path); !elf.ok()) return elf;
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot load this operator library (", why != nullptr ? why : "dlopen failed", ")"));
  }
  return absl::OkStatus();
}

absl::Status LoadOperatorLibrariesFromEnvironment() {
  const char* list = std::getenv("GRAPHPROF_LOAD_LIBRARIES");
  if (list == nullptr || *list == '\0') return absl::OkStatus();
  for (absl::string_view path : absl::StrSplit(list, ':', absl::SkipEmpty())) {
    if (absl::Status loaded = LoadOperatorLibrary(std::string(path)); !loaded.ok()) {
      return absl::Status(loaded.code(), absl::StrCat("GRAPHPROF_LOAD_LIBRARIES: ", loaded.message()));
    }
  }
  return absl::OkStatus();
}

std::string KnownLibraryFor(absl::string_view ns) {
  if (ns != "torchvision") return "";
  // torchvision's compiled extension, in the Python packages of this machine.
  for (const char* pattern : {"/usr/lib/python3/dist-packages/torchvision/_C*.so",
                              "/usr/local/lib/python3*/dist-packages/torchvision/_C*.so",
                              "/usr/local/lib/python3*/site-packages/torchvision/_C*.so",
                              "/usr/lib/python3*/site-packages/torchvision/_C*.so"}) {
    glob_t found{};
    if (glob(pattern, 0, nullptr, &found) == 0 && found.gl_pathc > 0) {
      std::string path = found.gl_pathv[0];
      globfree(&found);
      return path;
    }
    globfree(&found);
  }
  return "";
}

std::string UnknownOperatorHint(absl::string_view load_error) {
  constexpr absl::string_view kUnknown = "Unknown builtin op: ";
  const size_t at = load_error.find(kUnknown);
  if (at == absl::string_view::npos) return "";
  absl::string_view op = load_error.substr(at + kUnknown.size());
  op = op.substr(0, op.find_first_of(". \n"));
  const size_t colons = op.find("::");
  if (colons == absl::string_view::npos) return "";
  const absl::string_view ns = op.substr(0, colons);
  const std::string library = KnownLibraryFor(ns);
  if (ns == "torchvision") {
    return library.empty()
               ? absl::StrCat(op, " is torchvision's: load its compiled extension (torchvision/_C*.so) with --load_library=PATH")
               : absl::StrCat(op, " is torchvision's: pass --load_library=", library);
  }
  return absl::StrCat(op, " is in an operator library of its own: pass the .so that registers ", ns,
                      ":: operators with --load_library=PATH");
}

}  // namespace graphprof
