// Operator libraries (ir/operator_libraries.h): loading fails in one line
// that names the file, and a file that would crash the process
// (truncated, for another machine) is refused before dlopen sees it; the
// environment list loads in order and stops at the first that fails; a model
// that failed on an unknown operator gets a hint naming the library and the
// flag. Loading a real library and running the operators it registers:
// tests/real/real_cli_test.cc (torchvision).
#include "ir/operator_libraries.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "ir/elf_check.h"

namespace graphprof {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string TempFile(const std::string& name, const std::string& contents) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
  return path;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Whether this process has `path` mapped (dlopen'ed).
bool Mapped(const std::string& path) { return absl::StrContains(ReadAll("/proc/self/maps"), path); }

// A real shared library of this machine to make bad copies of: torchvision's
// _C where it is installed, else the first .so this process has mapped
// (libstdc++, libc) of at least 64 KiB.
std::string RealLibrary() {
  if (std::string torchvision = KnownLibraryFor("torchvision"); !torchvision.empty()) return torchvision;
  std::istringstream maps(ReadAll("/proc/self/maps"));
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos || !absl::StrContains(line, ".so")) continue;
    const std::string path = line.substr(slash);
    if (ReadAll(path).size() >= 64 * 1024) return path;
  }
  return "";
}

// A copy of RealLibrary() named `name` whose bytes `edit` changes.
template <typename Edit>
std::string EditedCopy(const std::string& name, Edit edit) {
  std::string bytes = ReadAll(RealLibrary());
  edit(bytes);
  return TempFile(name, bytes);
}

void ExpectOneLine(const absl::Status& status, absl::StatusCode code, const std::string& path,
                   const std::string& what) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), path)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), what)) << status;
  EXPECT_FALSE(absl::StrContains(status.message(), "\n")) << status;
}

TEST(OperatorLibrariesTest, AMissingFileIsNotFoundByName) {
  ExpectOneLine(LoadOperatorLibrary("/nonexistent/libmissing_ops.so"), absl::StatusCode::kNotFound,
                "/nonexistent/libmissing_ops.so", "no such operator library");
}

TEST(OperatorLibrariesTest, AFileThatIsNotALibraryIsRefusedInOneLine) {
  const std::string path = TempFile("not_a_library.so", "this is text, not an ELF shared object\n");
  ExpectOneLine(LoadOperatorLibrary(path), absl::StatusCode::kInvalidArgument, path, "not an ELF file");
}

TEST(OperatorLibrariesTest, ATruncatedLibraryIsRefusedBeforeTheLoaderMapsIt) {
  // dlopen maps the segments past the end of the file: SIGBUS, no message.
  ASSERT_NE(RealLibrary(), "");
  const std::string path = EditedCopy("truncated.so", [](std::string& bytes) { bytes.resize(4096); });
  ExpectOneLine(LoadOperatorLibrary(path), absl::StatusCode::kInvalidArgument, path,
                "truncated (a PT_LOAD segment ends at byte ");
  EXPECT_TRUE(absl::StrContains(LoadOperatorLibrary(path).message(), "of a 4096-byte file)"));
  EXPECT_FALSE(Mapped(path));

  const std::string header_only = EditedCopy("header_only.so", [](std::string& bytes) { bytes.resize(40); });
  ExpectOneLine(LoadOperatorLibrary(header_only), absl::StatusCode::kInvalidArgument, header_only,
                "truncated (the ELF header needs");
}

TEST(OperatorLibrariesTest, ALibraryWhoseSectionHeadersAreCutOffIsRefused) {
  // GNU ld writes the section header table last.
  ASSERT_NE(RealLibrary(), "");
  const std::string path =
      EditedCopy("no_section_headers.so", [](std::string& bytes) { bytes.resize(bytes.size() - 16); });
  ExpectOneLine(LoadOperatorLibrary(path), absl::StatusCode::kInvalidArgument, path,
                "truncated (the section header table ends at byte ");
  EXPECT_FALSE(Mapped(path));
}

TEST(OperatorLibrariesTest, AnElfObjectForAnotherMachineIsRefusedInOneLine) {
  ASSERT_NE(RealLibrary(), "");
  const uint16_t other = HostElfMachine() == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  const std::string path = EditedCopy("other_machine.so", [other](std::string& bytes) {
    bytes[18] = static_cast<char>(other & 0xff);  // e_machine, little-endian (as this test's host)
    bytes[19] = static_cast<char>(other >> 8);
  });
  ExpectOneLine(LoadOperatorLibrary(path), absl::StatusCode::kInvalidArgument, path,
                "an ELF object for another machine (" + ElfMachineName(other) + "; this process is " +
                    ElfMachineName(HostElfMachine()) + ")");
}

TEST(OperatorLibrariesTest, AnElfFileThatIsNotASharedLibraryIsRefusedByItsType) {
  // (A PIE executable is ET_DYN too, and dlopen refuses it itself.)
  ASSERT_NE(RealLibrary(), "");
  const std::string executable = EditedCopy("executable.so", [](std::string& bytes) { bytes[16] = ET_EXEC; });
  ExpectOneLine(LoadOperatorLibrary(executable), absl::StatusCode::kInvalidArgument, executable,
                "not a shared library (ELF type EXEC)");
  const std::string object = EditedCopy("object.o", [](std::string& bytes) { bytes[16] = ET_REL; });
  ExpectOneLine(LoadOperatorLibrary(object), absl::StatusCode::kInvalidArgument, object,
                "not a shared library (ELF type REL");
}

TEST(OperatorLibrariesTest, AlreadyLoadedLibrariesLoadAgainHarmlessly) {
  // libc is in every process: dlopen only counts a reference.
  absl::Status status = LoadOperatorLibrary("/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_TRUE(status.ok()) << status;
}

TEST(OperatorLibrariesTest, TheEnvironmentListStopsAtTheFirstFailureAndNamesIt) {
  unsetenv("GRAPHPROF_LOAD_LIBRARIES");
  EXPECT_TRUE(LoadOperatorLibrariesFromEnvironment().ok());
  setenv("GRAPHPROF_LOAD_LIBRARIES", "", 1);
  EXPECT_TRUE(LoadOperatorLibrariesFromEnvironment().ok());
  setenv("GRAPHPROF_LOAD_LIBRARIES", "/nonexistent/first.so:/nonexistent/second.so", 1);
  absl::Status status = LoadOperatorLibrariesFromEnvironment();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "first.so")) << status;
  EXPECT_FALSE(absl::StrContains(status.message(), "second.so")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "GRAPHPROF_LOAD_LIBRARIES")) << status;
  unsetenv("GRAPHPROF_LOAD_LIBRARIES");
}

TEST(OperatorLibrariesTest, UnknownOperatorsGetAHintNamingTheFlag) {
  // LibTorch's message, as torch::jit::load throws it.
  const std::string torchvision = UnknownOperatorHint(
      "Unknown builtin op: torchvision::nms.\nCould not find any similar ops to torchvision::nms. This op may not "
      "exist or may not be currently supported in TorchScript.");
  EXPECT_TRUE(absl::StartsWith(torchvision, "torchvision::nms is torchvision's")) << torchvision;
  EXPECT_TRUE(absl::StrContains(torchvision, "--load_library=")) << torchvision;
  const std::string library = KnownLibraryFor("torchvision");
  if (!library.empty()) {
    EXPECT_TRUE(absl::StrContains(torchvision, library)) << torchvision;
  }

  const std::string own = UnknownOperatorHint("Unknown builtin op: my_ops::fused_gelu.\nCould not find ...");
  EXPECT_TRUE(absl::StrContains(own, "my_ops::")) << own;
  EXPECT_TRUE(absl::StrContains(own, "--load_library=PATH")) << own;

  EXPECT_EQ(UnknownOperatorHint("PytorchStreamReader failed locating file constants.pkl"), "");
  EXPECT_EQ(UnknownOperatorHint("Unknown builtin op: nonamespace"), "");
  EXPECT_EQ(KnownLibraryFor("my_ops"), "");
}

}  // namespace
}  // namespace graphprof
