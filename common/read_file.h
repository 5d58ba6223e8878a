// Reading whole input files (models, IR text, reports, saved inputs) with
// one-line errors that name the path. No LibTorch: report readers use it.
#ifndef GRAPHPROF_COMMON_READ_FILE_H_
#define GRAPHPROF_COMMON_READ_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace graphprof {

// Files larger than this are refused before anything is read.
constexpr int64_t kMaxInputFileBytes = int64_t{64} << 30;

// The size of a regular file at `path`: NotFound / PermissionDenied naming
// it; directories, devices, pipes and files over kMaxInputFileBytes are
// refused with a sentence saying so.
absl::StatusOr<int64_t> RegularFileSize(const std::string& path);

// Reads a whole regular file once (checked as RegularFileSize does); a short
// read is DataLoss.
absl::StatusOr<std::string> ReadFile(const std::string& path);
// The same into `out`, reusing its capacity (many files read in turn),
// with at least `spare` bytes allocated beyond its end (for parsers that
// read past the text, such as simdjson).
absl::Status ReadFileInto(const std::string& path, std::string& out, size_t spare = 0);
absl::Status ReadFileInto(const std::string& path, std::vector<char>& out);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_READ_FILE_H_
