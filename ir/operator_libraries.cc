// Operator libraries (operator_libraries.h).
#include "ir/operator_libraries.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/fnv1a.h"
#include "ir/elf_check.h"
#include "ir/library_probe.h"

namespace graphprof {

namespace {

// A library LoadOperatorLibrary loaded: how a later one is known to be it.
struct Loaded {
  std::string path;
  dev_t device;
  ino_t inode;
  uint64_t size;
  uint64_t hash;  // FNV-1a-64 of the bytes
};

std::mutex& LoadMutex() {
  static std::mutex* const mutex = new std::mutex;
  return *mutex;
}

std::vector<Loaded>& LoadedLibraries() {
  static std::vector<Loaded>* const loaded = new std::vector<Loaded>;
  return *loaded;
}

// FNV-1a-64 of the file's bytes, read (not mapped: a file truncated under us
// would be SIGBUS again).
absl::StatusOr<uint64_t> HashFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open (", std::strerror(errno), ")"));
  uint64_t hash = kFnv1a64Offset;
  std::vector<char> buffer(1 << 16);
  ssize_t n = 0;
  while ((n = read(fd, buffer.data(), buffer.size())) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read (", std::strerror(error), ")"));
    }
    hash = Fnv1a64(absl::string_view(buffer.data(), static_cast<size_t>(n)), hash);
  }
  close(fd);
  return hash;
}

LoadedLibrary Skipped(const std::string& path, const std::string& first) {
  if (path == first) return LoadedLibrary{true, absl::StrCat(path, ": already loaded: skipped")};
  return LoadedLibrary{true, absl::StrCat(path, ": the same library as ", first, ", already loaded: skipped")};
}

}  // namespace

absl::StatusOr<LoadedLibrary> LoadOperatorLibrary(const std::string& path) {
  struct stat st;
  if (path.empty()) return absl::InvalidArgumentError("an operator library path is empty");
  if (stat(path.c_str(), &st) != 0) return absl::NotFoundError(absl::StrCat(path, ": no such operator library"));
  if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": not a file (an operator library is a .so)"));
  std::lock_guard<std::mutex> lock(LoadMutex());
  for (const Loaded& loaded : LoadedLibraries()) {
    if (loaded.device == st.st_dev && loaded.inode == st.st_ino) return Skipped(path, loaded.path);
  }
  if (absl::Status elf = CheckLoadableSharedObject(path); !elf.ok()) return elf;
  // Already in the process (libc, libtorch, a library another one needs):
  // dlopen only counts a reference and runs nothing.
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) != nullptr) return LoadedLibrary{};
  const absl::StatusOr<uint64_t> hash = HashFile(path);
  if (!hash.ok()) return hash.status();
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  for (const Loaded& loaded : LoadedLibraries()) {
    if (loaded.size == size && loaded.hash == *hash) return Skipped(path, loaded.path);
  }
  // Its initialisers run in a child first: an abort there is a refusal here.
  if (absl::Status probe = ProbeLibraryLoad(path); !probe.ok()) return probe;
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot load this operator library (", why != nullptr ? why : "dlopen failed", ")"));
  }
  LoadedLibraries().push_back(Loaded{path, st.st_dev, st.st_ino, size, *hash});
  return LoadedLibrary{};
}

absl::StatusOr<std::vector<std::string>> LoadOperatorLibrariesFromEnvironment() {
  std::vector<std::string> notes;
  const char* list = std::getenv("GRAPHPROF_LOAD_LIBRARIES");
  if (list == nullptr || *list == '\0') return notes;
  for (absl::string_view path : absl::StrSplit(list, ':', absl::SkipEmpty())) {
    absl::StatusOr<LoadedLibrary> loaded = LoadOperatorLibrary(std::string(path));
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat("GRAPHPROF_LOAD_LIBRARIES: ", loaded.status().message()));
    }
    if (loaded->skipped) notes.push_back(absl::StrCat("GRAPHPROF_LOAD_LIBRARIES: ", loaded->note));
  }
  return notes;
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
  return LibraryHintFor(op.substr(0, op.find_first_of(". \n")));
}

std::string LibraryHintFor(absl::string_view op) {
  const size_t colons = op.find("::");
  if (colons == absl::string_view::npos) return "";
  const absl::string_view ns = op.substr(0, colons);
  // LibTorch's own namespaces: an operator missing there is missing from
  // this LibTorch, not from a library to load.
  for (absl::string_view own : {"aten", "prim", "prims", "quantized", "_quantized", "profiler", "cuda"}) {
    if (ns == own) return "";
  }
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
