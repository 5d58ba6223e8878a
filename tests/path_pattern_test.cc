// Output names from patterns (--trace=profile-{model}-{date}.json) and new
// files that never replace anything (OutputFiles::AddNew).
#include "common/path_pattern.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "common/output_file.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::TempDir;

void Touch(const std::string& path, const std::string& contents = "old") { std::ofstream(path) << contents; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

PathPatternValues Values() {
  PathPatternValues v;
  v.model = "zoo:resnet18";
  v.start = 1740838107;  // 2025-03-01 14:08:27 UTC
  v.pid = 4242;
  return v;
}

TEST(PathPatternTest, ExpandsEveryPlaceholder) {
  const std::string dir = TempDir("path_pattern");
  EXPECT_TRUE(IsPathPattern("a-{date}.json"));
  EXPECT_FALSE(IsPathPattern("trace.json"));
  absl::StatusOr<std::string> path = ExpandPathPattern(dir + "/profile-{model}-{date}-{pid}.json", Values());
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, dir + "/profile-zoo-resnet18-20250301-140827-4242.json");
  // {n}: the first free number, from 0, wherever it is in the name.
  absl::StatusOr<std::string> first = ExpandPathPattern(dir + "/run{n}-{model}.json", Values());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, dir + "/run0-zoo-resnet18.json");
  Touch(*first);
  Touch(dir + "/run1-zoo-resnet18.json");
  EXPECT_EQ(*ExpandPathPattern(dir + "/run{n}-{model}.json", Values()), dir + "/run2-zoo-resnet18.json");
}

TEST(PathPatternTest, NeverNamesAnExistingFile) {
  const std::string dir = TempDir("path_pattern");
  const std::string pattern = dir + "/t-{date}.json";
  const std::string plain = dir + "/t-20250301-140827.json";
  EXPECT_EQ(*ExpandPathPattern(pattern, Values()), plain);
  Touch(plain);
  EXPECT_EQ(*ExpandPathPattern(pattern, Values()), dir + "/t-20250301-140827-1.json") << "same second";
  Touch(dir + "/t-20250301-140827-1.json");
  EXPECT_EQ(*ExpandPathPattern(pattern, Values()), dir + "/t-20250301-140827-2.json");
  // A dangling symlink takes its name too.
  ASSERT_EQ(symlink("/nonexistent/target", (dir + "/link-4242").c_str()), 0);
  EXPECT_EQ(*ExpandPathPattern(dir + "/link-{pid}", Values()), dir + "/link-4242-1");
}

TEST(PathPatternTest, UnknownOrUnclosedPlaceholdersAreOneLineErrors) {
  absl::StatusOr<std::string> unknown = ExpandPathPattern("profile-{modle}.json", Values());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "unknown placeholder {modle} in 'profile-{modle}.json' (use {model}, {date}, {pid}, {n})");
  EXPECT_EQ(CheckPathPattern("p-{date.json").message(),
            "'{' without '}' in 'p-{date.json' (placeholders: {model}, {date}, {pid}, {n})");
  EXPECT_EQ(CheckPathPattern("{}.json").message(), "unknown placeholder {} in '{}.json' (use {model}, {date}, {pid}, {n})");
  EXPECT_TRUE(CheckPathPattern("{model}/{n}.json").ok());
}

TEST(PathPatternTest, NumberedPathsAndFileSafeNames) {
  EXPECT_EQ(NumberedPath("dir/trace.json", 2), "dir/trace-2.json");
  EXPECT_EQ(NumberedPath("trace", 1), "trace-1");
  EXPECT_EQ(NumberedPath("a.b/trace", 3), "a.b/trace-3") << "a dot in a directory is not an extension";
  EXPECT_EQ(NumberedPath("dir/.hidden", 1), "dir/.hidden-1");
  EXPECT_EQ(NumberedPath("t.tar.gz", 1), "t.tar-1.gz");
  EXPECT_EQ(FileSafeName("zoo:resnet18"), "zoo-resnet18");
  EXPECT_EQ(FileSafeName("models/my model.pt"), "my-model");
  EXPECT_EQ(FileSafeName("graphs/g.v2.txt"), "g.v2");
  EXPECT_EQ(FileSafeName("x/{n}"), "-n-") << "braces never survive into an expanded name";
  EXPECT_EQ(FileSafeName(""), "model");
}

TEST(OutputFilesNewTest, ANewFileNeverReplacesOne) {
  const std::string dir = TempDir("path_pattern");
  const std::string target = dir + "/trace.json";
  Touch(target, "earlier trace");
  const std::string replaced = dir + "/report.txt";
  Touch(replaced, "old report");
  OutputFiles files;
  files.AddNew(target, [] { return std::string("new trace"); });
  files.Add(replaced, [] { return std::string("new report"); });
  ASSERT_TRUE(files.Commit().ok());
  EXPECT_EQ(Slurp(target), "earlier trace") << "kept";
  EXPECT_EQ(files.written_path(target), dir + "/trace-1.json");
  EXPECT_EQ(Slurp(dir + "/trace-1.json"), "new trace");
  EXPECT_EQ(Slurp(replaced), "new report") << "Add still replaces";
  EXPECT_EQ(files.written_path(replaced), replaced);

  // Free name: written as asked.
  OutputFiles fresh;
  fresh.AddNew(dir + "/other.json", [] { return std::string("x"); });
  ASSERT_TRUE(fresh.Commit().ok());
  EXPECT_EQ(fresh.written_path(dir + "/other.json"), dir + "/other.json");
  EXPECT_EQ(Slurp(dir + "/other.json"), "x");

  // A failed commit leaves no new file and touches nothing.
  OutputFiles failing;
  failing.AddNew(dir + "/never.json", [] { return std::string("y"); });
  failing.Add(dir + "/missing-dir/out.txt", [] { return std::string("z"); });
  EXPECT_FALSE(failing.Commit().ok());
  struct stat st;
  EXPECT_NE(stat((dir + "/never.json").c_str(), &st), 0);
  EXPECT_EQ(failing.written_path(dir + "/never.json"), "");
}

}  // namespace
}  // namespace graphprof
