// An AOTInductor package (torch._inductor.aoti_compile_and_package, PyTorch
// 2.6), read without LibTorch: what a compiled-program source checks and
// takes from it before it loads the model. Paths as named constants, as
// NativeRT's archive spec names them:
//
//   <top>/data/aotinductor/<model>/<hash>.cpp            the wrapper and its generated kernels, as source
//   <top>/data/aotinductor/<model>/<hash>.so             the compiled model (resolves aoti_torch_* at load)
//   <top>/data/aotinductor/<model>/<hash>_metadata.json  {"AOTI_DEVICE_KEY": "cpu", ...}
//   <top>/graphprof/program.pt2                          graphprof.compile_aoti's: the program, with reference outputs
//
// Hostile packages are refused with one InvalidArgument line naming the
// package and what is wrong: not a zip (or truncated), no compiled model,
// several, no library or no wrapper source for it, metadata that is not a
// JSON object of strings, a device other than the CPU. (The library's ELF
// headers are checked where it is extracted, before dlopen: ir/elf_check.h.)
#ifndef GRAPHPROF_IR_COMPILED_AOTI_PACKAGE_H_
#define GRAPHPROF_IR_COMPILED_AOTI_PACKAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/export/zip_archive.h"

namespace graphprof {

inline constexpr char kAotiModelsFolder[] = "data/aotinductor/";
inline constexpr char kAotiWrapperSuffix[] = ".cpp";
inline constexpr char kAotiLibrarySuffix[] = ".so";
inline constexpr char kAotiMetadataSuffix[] = "_metadata.json";
inline constexpr char kAotiDeviceKey[] = "AOTI_DEVICE_KEY";
// graphprof.compile_aoti's program (python/graphprof/_compiled.py: PROGRAM_ENTRY).
inline constexpr char kAotiProgramEntry[] = "graphprof/program.pt2";
// The most bytes of wrapper source read (a resnet50's is ~1 MB).
inline constexpr uint64_t kMaxWrapperBytes = 64ull << 20;

struct AotiPackage {
  std::string path;                // as given
  std::string model;               // "model": the folder under data/aotinductor/
  std::string folder;              // "data/aotinductor/model/" (the archive's top-level folder removed)
  std::string wrapper;             // its .cpp entry
  std::string library;             // its .so entry
  std::vector<std::string> files;  // every entry of the model's folder (the loader extracts them all)
  std::map<std::string, std::string> metadata;  // the metadata JSON's string values
  std::string device = "cpu";      // metadata's AOTI_DEVICE_KEY ("cpu" when absent)
  bool has_program = false;        // kAotiProgramEntry is present
  ZipArchive archive;
};

// Whether `path` is a zip archive holding a data/aotinductor/ folder (cheap:
// the central directory only; false for anything unreadable).
bool IsAotiPackageFile(const std::string& path);

// The package at `path`, checked as the header says.
absl::StatusOr<AotiPackage> ReadAotiPackage(const std::string& path);
// The same from bytes (tests, fuzzing); `path` names it in errors.
absl::StatusOr<AotiPackage> ReadAotiPackage(std::shared_ptr<const ByteSource> source, const std::string& path);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_COMPILED_AOTI_PACKAGE_H_
