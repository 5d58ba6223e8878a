#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status Error(const std::string& path, int err) {
  return absl::PermissionDeniedError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
}

}  // namespace

absl::Status CheckWritable(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Error(path, EISDIR);
  const std::string dir = DirectoryOf(path);
  if (stat(dir.c_str(), &st) != 0) return Error(path, errno);
  if (!S_ISDIR(st.st_mode)) return Error(path, ENOTDIR);
  if (access(dir.c_str(), W_OK | X_OK) != 0) return Error(path, errno);
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  absl::Status writable = CheckWritable(path);
  if (!writable.ok()) return writable;
  std::string temp = absl::StrCat(path, ".tmp.XXXXXX");
  const int fd = mkstemp(temp.data());
  if (fd < 0) return Error(path, errno);
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      unlink(temp.c_str());
      return Error(path, err);
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; give the file the usual permissions.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  if (close(fd) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return Error(path, err);
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return Error(path, err);
  }
  return absl::OkStatus();
}

}  // namespace graphprof
