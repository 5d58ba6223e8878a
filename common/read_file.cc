#include "common/read_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphprof {
namespace {

absl::Status OpenError(const std::string& path, int err) {
  std::string what = absl::StrCat(path, ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(what);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(what);
  return absl::InvalidArgumentError(what);
}

std::string Gib(int64_t bytes) { return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1 << 30)); }

// Reads a regular file whole, once, into `out` (a std::string or std::vector<char>).
template <typename Buffer>
absl::Status ReadInto(const std::string& path, Buffer& out, size_t spare = 0) {
  absl::StatusOr<int64_t> size = RegularFileSize(path);
  if (!size.ok()) return size.status();
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return OpenError(path, errno);
  // The spare bytes are allocated and initialised (zeros, or an earlier
  // file's bytes), so a parser that reads them reads defined memory.
  if (spare > 0) out.resize(static_cast<size_t>(*size) + spare);
  out.resize(static_cast<size_t>(*size));
  const size_t got = out.empty() ? 0 : std::fread(out.data(), 1, out.size(), file);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  if (got != out.size()) {
    return absl::DataLossError(absl::StrCat(path, ": short read: got ", got, " of ", out.size(),
                                            " bytes (was the file being written?)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> RegularFileSize(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return OpenError(path, errno);
  if (S_ISDIR(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is not a regular file (a device, pipe or socket)"));
  }
  if (st.st_size > kMaxInputFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is ", Gib(st.st_size), ", more than the ",
                                                   Gib(kMaxInputFileBytes), " graphprof reads"));
  }
  return static_cast<int64_t>(st.st_size);
}

absl::Status ReadFileInto(const std::string& path, std::string& out, size_t spare) { return ReadInto(path, out, spare); }
absl::Status ReadFileInto(const std::string& path, std::vector<char>& out) { return ReadInto(path, out); }

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::string contents;
  if (absl::Status read = ReadInto(path, contents); !read.ok()) return read;
  return contents;
}

}  // namespace graphprof
