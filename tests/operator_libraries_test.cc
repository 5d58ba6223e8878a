// Operator libraries (ir/operator_libraries.h): loading fails in one line
// that names the file; the environment list loads in order and stops at the
// first that fails; a model that failed on an unknown operator gets a hint
// naming the library and the flag. Loading a real library and running the
// operators it registers: tests/real/real_cli_test.cc (torchvision).
#include "ir/operator_libraries.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"

namespace graphprof {
namespace {

std::string TempFile(const std::string& name, const std::string& contents) {
  const char* dir = getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << contents;
  return path;
}

TEST(OperatorLibrariesTest, AMissingFileIsNotFoundByName) {
  absl::Status status = LoadOperatorLibrary("/nonexistent/libmissing_ops.so");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "/nonexistent/libmissing_ops.so")) << status;
  EXPECT_FALSE(absl::StrContains(status.message(), "\n")) << status;
}

TEST(OperatorLibrariesTest, AFileThatIsNotALibraryIsRefusedWithTheLoadersReason) {
  const std::string path = TempFile("not_a_library.so", "this is text, not an ELF shared object\n");
  absl::Status status = LoadOperatorLibrary(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), path)) << status;
  EXPECT_FALSE(absl::StrContains(status.message(), "\n")) << status;
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
