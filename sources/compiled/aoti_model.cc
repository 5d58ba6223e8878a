#include "sources/compiled/aoti_model.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/fnv1a.h"
#include "common/status_util.h"
#include "common/torch_compat.h"
#include "ir/elf_check.h"
#include "ir/library_probe.h"

#if GRAPHPROF_TORCH_AT_LEAST(2, 6)
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#define GRAPHPROF_AOTI 1
#endif

namespace graphprof {
namespace {

absl::Status Refuse(const AotiPackage& package, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(package.path, ": ", why));
}

#ifdef GRAPHPROF_AOTI

// A directory of its own, removed with everything in it when it goes.
class ScratchDir {
 public:
  static absl::StatusOr<ScratchDir> Make() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/graphprof-aoti-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot make a temporary directory (", pattern, "): ",
                                              std::strerror(errno)));
    }
    ScratchDir dir;
    dir.path_ = pattern;
    return dir;
  }
  ScratchDir() = default;
  ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)), files_(std::move(other.files_)) {
    other.path_.clear();
  }
  ~ScratchDir() {
    if (path_.empty()) return;
    for (const std::string& file : files_) unlink(file.c_str());
    rmdir(path_.c_str());
  }
  // Writes `bytes` as `name` (no directories) inside it.
  absl::StatusOr<std::string> Write(const std::string& name, const std::string& bytes) {
    const std::string file = absl::StrCat(path_, "/", name);
    files_.push_back(file);
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", file));
    return file;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

class RunnerModel final : public AotiModel {
 public:
  explicit RunnerModel(std::unique_ptr<torch::inductor::AOTIModelContainerRunnerCpu> runner)
      : runner_(std::move(runner)) {}

  absl::StatusOr<std::vector<at::Tensor>> Run(const std::vector<at::Tensor>& inputs) override {
    try {
      return runner_->run(inputs);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("the compiled model failed: ", ExceptionMessage(e)));
    }
  }

 private:
  std::unique_ptr<torch::inductor::AOTIModelContainerRunnerCpu> runner_;
};

// Libraries whose trial load passed in this process, by size and FNV-1a-64
// of their bytes: a package loaded again (--ab's copies) is not tried again
// in a forked child once this process runs threads of its own
// (library_probe.h: forking then is safe only while no other thread holds
// a lock).
class ProbedLibraries {
 public:
  static bool Passed(const std::string& bytes) {
    std::lock_guard<std::mutex> lock(Mutex());
    return Set().count(Key(bytes)) > 0;
  }
  static void Add(const std::string& bytes) {
    std::lock_guard<std::mutex> lock(Mutex());
    Set().insert(Key(bytes));
  }

 private:
  static std::pair<size_t, uint64_t> Key(const std::string& bytes) { return {bytes.size(), Fnv1a64(bytes)}; }
  static std::mutex& Mutex() {
    static std::mutex mutex;
    return mutex;
  }
  static std::set<std::pair<size_t, uint64_t>>& Set() {
    static std::set<std::pair<size_t, uint64_t>> passed;
    return passed;
  }
};

#endif  // GRAPHPROF_AOTI

}  // namespace

bool AotiModelsSupported() {
#ifdef GRAPHPROF_AOTI
  return true;
#else
  return false;
#endif
}

absl::StatusOr<std::unique_ptr<AotiModel>> LoadAotiModel(const AotiPackage& package) {
#ifndef GRAPHPROF_AOTI
  return Refuse(package, absl::StrCat("an AOTInductor package needs graphprof built with LibTorch 2.6 or later "
                                      "(this one has LibTorch ",
                                      TORCH_VERSION, "): use the CMake build on LibTorch 2.6 (docs/compiled.md)"));
#else
  absl::StatusOr<ScratchDir> dir = ScratchDir::Make();
  if (!dir.ok()) return dir.status();
  std::string library, library_bytes;
  for (const std::string& entry : package.files) {
    const std::string name = entry.substr(package.folder.size());
    if (name.empty() || name.back() == '/') continue;  // a folder's own entry
    if (name.find('/') != std::string::npos) {
      return Refuse(package, absl::StrCat("compiled model '", package.model, "' has a file in a subfolder (", entry,
                                          "); graphprof reads packages whose model files lie in one folder"));
    }
    absl::StatusOr<std::string> bytes = package.archive.ReadEntry(entry, uint64_t{16} << 30);
    if (!bytes.ok()) return Refuse(package, bytes.status().message());
    absl::StatusOr<std::string> file = dir->Write(name, *bytes);
    if (!file.ok()) return file.status();
    if (entry == package.library) library = *file, library_bytes = *std::move(bytes);
  }
  const std::string inside = absl::StrCat("its compiled library ", package.library);
  if (absl::Status elf = CheckLoadableSharedObject(library); !elf.ok()) {
    return Refuse(package, absl::StrCat(inside, ": ", elf.message().substr(library.size() + 2)));
  }
  if (!ProbedLibraries::Passed(library_bytes)) {
    if (absl::Status probe = ProbeLibraryLoad(library); !probe.ok()) {
      return Refuse(package, absl::StrCat(inside, ": ", probe.message().substr(library.size() + 2)));
    }
    ProbedLibraries::Add(library_bytes);
  }
  try {
    auto runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCpu>(library, 1);
    return std::unique_ptr<AotiModel>(new RunnerModel(std::move(runner)));
  } catch (const std::exception& e) {
    return Refuse(package, absl::StrCat("cannot load ", inside, ": ", ExceptionMessage(e)));
  }
#endif
}

}  // namespace graphprof
