// Operator libraries (ir/operator_libraries.h): loading fails in one line
// that names the file, and a file that would crash or abort the process
// (truncated, for another machine, an initialiser that aborts, a second copy
// of a library already loaded) is refused or skipped before it can; the
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
#include <vector>

#include "absl/strings/match.h"
#include "ir/elf_check.h"
#include "ir/library_probe.h"

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
  ExpectOneLine(LoadOperatorLibrary("/nonexistent/libmissing_ops.so").status(), absl::StatusCode::kNotFound,
                "/nonexistent/libmissing_ops.so", "no such operator library");
}

TEST(OperatorLibrariesTest, AFileThatIsNotALibraryIsRefusedInOneLine) {
  const std::string path = TempFile("not_a_library.so", "this is text, not an ELF shared object\n");
  ExpectOneLine(LoadOperatorLibrary(path).status(), absl::StatusCode::kInvalidArgument, path, "not an ELF file");
}

TEST(OperatorLibrariesTest, ATruncatedLibraryIsRefusedBeforeTheLoaderMapsIt) {
  // dlopen maps the segments past the end of the file: SIGBUS, no message.
  ASSERT_NE(RealLibrary(), "");
  const std::string path = EditedCopy("truncated.so", [](std::string& bytes) { bytes.resize(4096); });
  ExpectOneLine(LoadOperatorLibrary(path).status(), absl::StatusCode::kInvalidArgument, path,
                "truncated (a PT_LOAD segment ends at byte ");
  EXPECT_TRUE(absl::StrContains(LoadOperatorLibrary(path).status().message(), "of a 4096-byte file)"));
  EXPECT_FALSE(Mapped(path));

  const std::string header_only = EditedCopy("header_only.so", [](std::string& bytes) { bytes.resize(40); });
  ExpectOneLine(LoadOperatorLibrary(header_only).status(), absl::StatusCode::kInvalidArgument, header_only,
                "truncated (the ELF header needs");
}

TEST(OperatorLibrariesTest, ALibraryWhoseSectionHeadersAreCutOffIsRefused) {
  // GNU ld writes the section header table last.
  ASSERT_NE(RealLibrary(), "");
  const std::string path =
      EditedCopy("no_section_headers.so", [](std::string& bytes) { bytes.resize(bytes.size() - 16); });
  ExpectOneLine(LoadOperatorLibrary(path).status(), absl::StatusCode::kInvalidArgument, path,
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
  ExpectOneLine(LoadOperatorLibrary(path).status(), absl::StatusCode::kInvalidArgument, path,
                "an ELF object for another machine (" + ElfMachineName(other) + "; this process is " +
                    ElfMachineName(HostElfMachine()) + ")");
}

TEST(OperatorLibrariesTest, AnElfFileThatIsNotASharedLibraryIsRefusedByItsType) {
  // (A PIE executable is ET_DYN too, and dlopen refuses it itself.)
  ASSERT_NE(RealLibrary(), "");
  const std::string executable = EditedCopy("executable.so", [](std::string& bytes) { bytes[16] = ET_EXEC; });
  ExpectOneLine(LoadOperatorLibrary(executable).status(), absl::StatusCode::kInvalidArgument, executable,
                "not a shared library (ELF type EXEC)");
  const std::string object = EditedCopy("object.o", [](std::string& bytes) { bytes[16] = ET_REL; });
  ExpectOneLine(LoadOperatorLibrary(object).status(), absl::StatusCode::kInvalidArgument, object,
                "not a shared library (ELF type REL");
}

TEST(OperatorLibrariesTest, ALibraryWhoseInitialiserAbortsIsRefusedAndTheProcessSurvives) {
  const std::string path = "tests/libabort_on_load.so";
  ASSERT_TRUE(std::ifstream(path).good()) << path << " (the test's data)";
  ExpectOneLine(LoadOperatorLibrary(path).status(), absl::StatusCode::kInvalidArgument, path,
                "cannot be loaded safely: loading it in a trial process died of SIGABRT");
  EXPECT_FALSE(Mapped("libabort_on_load.so"));
}

TEST(OperatorLibrariesTest, TheProbeQuotesTheExceptionOrTheRegistrationMessage) {
  // LibTorch's output when a second copy of torchvision's _C loads.
  EXPECT_EQ(ProbeFailureReason("W1206 OperatorEntry.cpp:150] Warning: Overriding a previously registered kernel\n"
                               "  operator: torchvision::nms\n"
                               "terminate called after throwing an instance of 'c10::Error'\n"
                               "  what():  Tried to register an operator (torchvision::nms) with the same name\n"
                               "Exception raised from registerDef\n"),
            "Tried to register an operator (torchvision::nms) with the same name");
  EXPECT_EQ(ProbeFailureReason("loading\nmy_ops::gelu is already\tdefined\r\nbye\n"),
            "my_ops::gelu is already defined");
  EXPECT_EQ(ProbeFailureReason("Segmentation fault\n"), "");
  const std::string reason = ProbeFailureReason("what(): " + std::string(1000, 'x'));
  EXPECT_EQ(reason, std::string(200, 'x') + "...");
}

TEST(OperatorLibrariesTest, ALibraryLoadedBeforeIsSkippedWithANote) {
  // Any harmless library will do: nvml_test's stand-in for libnvidia-ml.
  const std::string path = "tests/libfake_nvml.so";
  ASSERT_TRUE(std::ifstream(path).good()) << path << " (the test's data)";
  absl::StatusOr<LoadedLibrary> first = LoadOperatorLibrary(path);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->skipped);
  EXPECT_EQ(first->note, "");
  EXPECT_TRUE(Mapped("libfake_nvml.so"));

  absl::StatusOr<LoadedLibrary> again = LoadOperatorLibrary(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->skipped);
  EXPECT_EQ(again->note, path + ": already loaded: skipped");

  // The same bytes at another path: not loaded a second time.
  const std::string copy = TempFile("fake_nvml_copy.so", ReadAll(path));
  absl::StatusOr<LoadedLibrary> second = LoadOperatorLibrary(copy);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->skipped);
  EXPECT_EQ(second->note, copy + ": the same library as " + path + ", already loaded: skipped");
  EXPECT_FALSE(Mapped(copy));

  // The environment list says so too.
  const std::string another = TempFile("fake_nvml_another.so", ReadAll(path));
  setenv("GRAPHPROF_LOAD_LIBRARIES", (path + ":" + another).c_str(), 1);
  absl::StatusOr<std::vector<std::string>> notes = LoadOperatorLibrariesFromEnvironment();
  unsetenv("GRAPHPROF_LOAD_LIBRARIES");
  ASSERT_TRUE(notes.ok()) << notes.status();
  const std::string prefix = "GRAPHPROF_LOAD_LIBRARIES: ";
  EXPECT_EQ(*notes, (std::vector<std::string>{
                        prefix + path + ": already loaded: skipped",
                        prefix + another + ": the same library as " + path + ", already loaded: skipped"}));
  EXPECT_FALSE(Mapped(another));
}

TEST(OperatorLibrariesTest, TorchvisionLoadedTwiceFromACopyIsSkipped) {
  // The same extension from two paths: the copy's initialisers register
  // torchvision's operators again, and LibTorch's exception aborts.
  const std::string torchvision = KnownLibraryFor("torchvision");
  if (torchvision.empty()) GTEST_SKIP() << "torchvision's _C extension is not on this machine";
  absl::StatusOr<LoadedLibrary> first = LoadOperatorLibrary(torchvision);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->skipped);

  absl::StatusOr<LoadedLibrary> again = LoadOperatorLibrary(torchvision);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->skipped);
  EXPECT_EQ(again->note, torchvision + ": already loaded: skipped");

  const std::string copy = TempFile("torchvision_copy.so", ReadAll(torchvision));
  absl::StatusOr<LoadedLibrary> second = LoadOperatorLibrary(copy);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->skipped);
  EXPECT_EQ(second->note, copy + ": the same library as " + torchvision + ", already loaded: skipped");
  EXPECT_FALSE(Mapped(copy));

  // Other bytes (another build of it, say): the trial load aborts, and says
  // why. With LibTorch 1.13 the child dies of SIGABRT and LibTorch's
  // exception is quoted; with Debian 13's 2.6 a signal handler of a library
  // torchvision loads (UCX's) turns the abort into exit status 1, and the
  // line quoted is LibTorch's "Overriding a previously registered kernel".
  const std::string other = TempFile("torchvision_other.so", ReadAll(torchvision) + "x");
  const absl::Status refused = LoadOperatorLibrary(other).status();
  ExpectOneLine(refused, absl::StatusCode::kInvalidArgument, other, "cannot be loaded safely");
  EXPECT_TRUE(absl::StrContains(refused.message(), "died of SIGABRT") ||
              absl::StrContains(refused.message(), "exited with status"))
      << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "Tried to register an operator (torchvision::") ||
              absl::StrContains(refused.message(), "registered"))
      << refused;
  EXPECT_FALSE(Mapped(other));
}

TEST(OperatorLibrariesTest, AlreadyLoadedLibrariesLoadAgainHarmlessly) {
  // libc is in every process: dlopen only counts a reference.
  absl::StatusOr<LoadedLibrary> loaded = LoadOperatorLibrary("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->skipped);
}

TEST(OperatorLibrariesTest, TheEnvironmentListStopsAtTheFirstFailureAndNamesIt) {
  unsetenv("GRAPHPROF_LOAD_LIBRARIES");
  EXPECT_TRUE(LoadOperatorLibrariesFromEnvironment().ok());
  setenv("GRAPHPROF_LOAD_LIBRARIES", "", 1);
  EXPECT_TRUE(LoadOperatorLibrariesFromEnvironment().ok());
  setenv("GRAPHPROF_LOAD_LIBRARIES", "/nonexistent/first.so:/nonexistent/second.so", 1);
  absl::Status status = LoadOperatorLibrariesFromEnvironment().status();
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
  // By operator name (a torch.export program names the operator it calls).
  EXPECT_EQ(LibraryHintFor("torchvision::nms"), torchvision);
  EXPECT_EQ(LibraryHintFor("aten::scaled_dot_product_attention"), "") << "LibTorch's own: no library to load";
  EXPECT_EQ(UnknownOperatorHint("Unknown builtin op: nonamespace"), "");
  EXPECT_EQ(KnownLibraryFor("my_ops"), "");
}

}  // namespace
}  // namespace graphprof
