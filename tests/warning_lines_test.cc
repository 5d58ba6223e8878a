// Warnings as one line each (common/warning_lines.h): LibTorch's and a
// model's own (warnings.warn, aten::warn) reach stderr folded onto one line
// with their control characters escaped, as the report's notes are.
#include "common/warning_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;

TEST(WarningLinesTest, FoldsLinesAndEscapesControlCharacters) {
  EXPECT_EQ(FoldedLine("  first line\n\n  second\tline \r\nthird  "), "first line second\\tline third");
  EXPECT_EQ(FoldedLine("red \x1b[31mtext"), "red \\x1b[31mtext");
  EXPECT_EQ(FoldedLine(""), "");
}

TEST(WarningLinesTest, TheCliPrintsAModelsWarningAsOneEscapedLine) {
  // warnings.warn("line one\nline two " + chr(27) + "[31mred") in forward
  // (tests/fixtures/make_fixtures.py).
  const Result r = RunTool({"--model=" + testing::FixturePath("warns.pt"), "--input=3:float32", "--warmup=1",
                            "--runs=2"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> warnings;
  for (absl::string_view line : absl::StrSplit(r.err, '\n', absl::SkipEmpty())) {
    if (absl::StrContains(line, "warning:")) warnings.emplace_back(line);
  }
  ASSERT_EQ(warnings.size(), 1u) << r.err;
  EXPECT_TRUE(absl::StartsWith(warnings[0], "profile_graph: warning: line one line two \\x1b[31mred")) << warnings[0];
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "a raw ESC reached stderr";
}

}  // namespace
}  // namespace graphprof
