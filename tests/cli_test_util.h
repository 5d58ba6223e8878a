// Driving the profile_graph binary from tests: run it with arguments, get
// its exit code, stdout and stderr.
#ifndef GRAPHPROF_TESTS_CLI_TEST_UTIL_H_
#define GRAPHPROF_TESTS_CLI_TEST_UTIL_H_

#include <string>
#include <vector>

namespace graphprof::testing {

struct Result {
  int code = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

// Runs tools/profile_graph (a data dependency) with `args`.
Result RunTool(std::vector<std::string> args);
// Runs `binary` (a path in the runfiles) with `args`.
Result RunBinary(const std::string& binary, std::vector<std::string> args);

// {"--warmup=1", "--runs=2", extra...}: fast settings for a small model.
std::vector<std::string> Quick(std::vector<std::string> extra);

// Expects exit `code`, nothing on stdout and exactly one stderr line
// "profile_graph: ..." containing `text`.
void ExpectOneLineError(const Result& r, int code, const std::string& text);

std::string Slurp(const std::string& path);
bool Exists(const std::string& path);
// Writes `contents` to a file `name` in this test's temporary directory.
std::string Write(const std::string& name, const std::string& contents);

}  // namespace graphprof::testing

#endif  // GRAPHPROF_TESTS_CLI_TEST_UTIL_H_
