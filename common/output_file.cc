#include "common/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/interrupt.h"
#include "common/path_pattern.h"

namespace graphprof {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

absl::Status Error(const std::string& path, int err) {
  return absl::PermissionDeniedError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
}

// The file a path writes to: symlinks followed, even when the final target
// does not exist yet.
std::string Resolve(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 32; ++hops) {
    struct stat st;
    if (lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char target[PATH_MAX];
    const ssize_t n = readlink(current.c_str(), target, sizeof(target) - 1);
    if (n < 0) return current;
    target[n] = '\0';
    current = target[0] == '/' ? std::string(target) : absl::StrCat(DirectoryOf(current), "/", target);
  }
  return current;
}

// The temporary file's name must fit NAME_MAX (255) with its ".", ".tmp.",
// pid and counter (up to ~32 bytes) around it: a long target name keeps its
// first 180 bytes and a hash of the whole.
std::string TempStem(const std::string& base) {
  constexpr size_t kKeep = 180;
  if (base.size() <= kKeep + 20) return base;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : base) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return absl::StrCat(base.substr(0, kKeep), "-", hex);
}

absl::Status ErrnoStatus(int err) { return absl::Status(absl::ErrnoToStatusCode(err), std::strerror(err)); }

absl::Status WriteAll(int fd, absl::string_view contents) {
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno);
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Moves `from` to `to` unless `to` names something (then EEXIST), atomically.
int RenameNoReplace(const std::string& from, const std::string& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return -1;
  // A file system without RENAME_NOREPLACE: a hard link fails the same way.
  if (link(from.c_str(), to.c_str()) != 0) return -1;
  unlink(from.c_str());
  return 0;
}

// Places the written temporary file at `target` or, if that is taken, at the
// first free NumberedPath of it; returns where.
absl::StatusOr<std::string> PlaceNew(const std::string& temp, const std::string& target) {
  constexpr int kMaxTries = 100000;
  for (int n = 0; n < kMaxTries; ++n) {
    const std::string path = n == 0 ? target : NumberedPath(target, n);
    if (RenameNoReplace(temp, path) == 0) return path;
    if (errno != EEXIST) return Error(path, errno);
  }
  return absl::ResourceExhaustedError(absl::StrCat("cannot write ", target, ": no free name up to -", kMaxTries - 1));
}

// A temporary file being written for one target.
struct Temp {
  std::string target;
  std::string path;
  int slot = -1;
};

void Discard(std::vector<Temp>& temps) {
  for (Temp& t : temps) {
    unlink(t.path.c_str());  // may not exist: not all were created
    UnregisterTempFile(t.slot);
  }
  temps.clear();
}

// While alive, a write into a pipe whose reader has gone fails with EPIPE
// (reported like any failed write) instead of killing the process.
class IgnoreBrokenPipes {
 public:
  IgnoreBrokenPipes() {
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    restore_ = sigaction(SIGPIPE, &ignore, &old_) == 0;
  }
  ~IgnoreBrokenPipes() {
    if (restore_) sigaction(SIGPIPE, &old_, nullptr);
  }
  IgnoreBrokenPipes(const IgnoreBrokenPipes&) = delete;
  IgnoreBrokenPipes& operator=(const IgnoreBrokenPipes&) = delete;

 private:
  struct sigaction old_ = {};
  bool restore_ = false;
};

// A whole rendering, handed on at once.
std::function<void(TextSink&)> StreamOf(std::function<std::string()> render) {
  return [render = std::move(render)](TextSink& sink) { sink.Append(render()); };
}

// Writes a stream into an open file.
absl::Status StreamTo(int fd, const std::function<void(TextSink&)>& stream) {
  TextSink sink([fd](absl::string_view bytes) { return WriteAll(fd, bytes); });
  stream(sink);
  return sink.Finish();
}

}  // namespace

void OutputFiles::Add(std::string path, std::string contents) {
  auto shared = std::make_shared<std::string>(std::move(contents));
  Add(std::move(path), [shared](TextSink& sink) { sink.Append(*shared); });
}

void OutputFiles::Add(std::string path, std::function<std::string()> render) {
  Add(std::move(path), StreamOf(std::move(render)));
}

void OutputFiles::Add(std::string path, std::function<void(TextSink&)> stream) {
  outputs_.push_back(Output{std::move(path), std::move(stream), false, ""});
}

void OutputFiles::AddNew(std::string path, std::function<std::string()> render) {
  AddNew(std::move(path), StreamOf(std::move(render)));
}

void OutputFiles::AddNew(std::string path, std::function<void(TextSink&)> stream) {
  outputs_.push_back(Output{std::move(path), std::move(stream), true, ""});
}

std::string OutputFiles::written_path(const std::string& path) const {
  for (const Output& output : outputs_) {
    if (output.path == path) return output.written;
  }
  return "";
}

absl::Status OutputFiles::Commit() {
  // Temporary files are registered for removal on a terminating signal; the
  // handlers are the program's to install (the CLI does, Python does not).
  const IgnoreBrokenPipes ignore_broken_pipes;
  // Resolve every target first; devices and pipes are written in place.
  std::vector<Temp> temps;
  std::vector<Output*> to_temp, in_place;
  std::vector<bool> replaces;
  std::vector<mode_t> modes;
  // New files first: placing one is the step that may find its name taken.
  std::vector<Output*> ordered;
  for (Output& output : outputs_) {
    if (output.is_new) ordered.push_back(&output);
  }
  for (Output& output : outputs_) {
    if (!output.is_new) ordered.push_back(&output);
  }
  for (Output* o : ordered) {
    Output& output = *o;
    output.written.clear();
    if (absl::Status writable = CheckWritable(output.path); !writable.ok()) return writable;
    // A new file's name is taken by whatever is there, a symlink included.
    const std::string target = output.is_new ? output.path : Resolve(output.path);
    struct stat st;
    const bool exists = !output.is_new && stat(target.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      in_place.push_back(&output);
      continue;
    }
    Temp temp;
    temp.target = target;
    static std::atomic<int> counter{0};
    temp.path = absl::StrCat(DirectoryOf(target), "/.", TempStem(BaseOf(target)), ".tmp.", getpid(), ".", counter++);
    temps.push_back(temp);
    to_temp.push_back(&output);
    replaces.push_back(exists);
    modes.push_back(exists ? st.st_mode & 07777 : 0);
  }
  // Render and write the temporary files, two at a time (renderings are
  // independent and the machine may have a second core).
  std::vector<absl::Status> results(temps.size());
  std::mutex slots_mutex;
  auto write_one = [&](size_t i) {
    Temp& temp = temps[i];
    const int fd = open(temp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      results[i] = Error(to_temp[i]->path, errno);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(slots_mutex);
      temp.slot = RegisterTempFile(temp.path.c_str());
    }
    absl::Status written = StreamTo(fd, to_temp[i]->stream);
    if (written.ok() && replaces[i] && fchmod(fd, modes[i]) != 0) written = ErrnoStatus(errno);  // keep the mode
    if (close(fd) != 0 && written.ok()) written = ErrnoStatus(errno);
    if (!written.ok()) {
      results[i] = absl::PermissionDeniedError(absl::StrCat("cannot write ", to_temp[i]->path, ": ", written.message()));
    }
  };
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < temps.size(); i = next++) write_one(i);
  };
  std::vector<std::thread> workers;
  for (size_t w = 1; w < std::min<size_t>(2, temps.size()); ++w) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  for (const absl::Status& result : results) {
    if (!result.ok()) {
      Discard(temps);
      return result;
    }
  }
  // Devices and pipes cannot be written aside and renamed: they are written
  // now, before any target is replaced, so that their failure (a full
  // device, a pipe whose reader left) still leaves every target as it was.
  for (Output* output : in_place) {
    output->written = output->path;
    absl::Status written;
    const int fd = open(output->path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
      written = ErrnoStatus(errno);
    } else {
      written = StreamTo(fd, output->stream);
      if (close(fd) != 0 && written.ok()) written = ErrnoStatus(errno);
    }
    if (!written.ok()) {
      Discard(temps);
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", output->path, ": ", written.message()));
    }
  }
  // Everything is written: now replace the targets.
  for (size_t i = 0; i < temps.size(); ++i) {
    absl::StatusOr<std::string> placed = temps[i].target;
    if (to_temp[i]->is_new) {
      placed = PlaceNew(temps[i].path, temps[i].target);
    } else if (rename(temps[i].path.c_str(), temps[i].target.c_str()) != 0) {
      placed = Error(temps[i].target, errno);
    }
    if (!placed.ok()) {
      std::vector<Temp> rest(temps.begin() + static_cast<long>(i), temps.end());
      Discard(rest);
      for (size_t j = 0; j < i; ++j) UnregisterTempFile(temps[j].slot);
      return placed.status();
    }
    to_temp[i]->written = *std::move(placed);
    UnregisterTempFile(temps[i].slot);
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  OutputFiles files;
  files.Add(path, std::string(contents));
  return files.Commit();
}

absl::Status CheckWritable(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  const std::string target = Resolve(path);
  struct stat st;
  if (stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error(path, EISDIR);
    if (!S_ISREG(st.st_mode)) return access(target.c_str(), W_OK) == 0 ? absl::OkStatus() : Error(path, errno);
  }
  const std::string dir = DirectoryOf(target);
  if (stat(dir.c_str(), &st) != 0) return Error(path, errno);
  if (!S_ISDIR(st.st_mode)) return Error(path, ENOTDIR);
  if (access(dir.c_str(), W_OK | X_OK) != 0) return Error(path, errno);
  return absl::OkStatus();
}

bool SameFile(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  struct stat sa, sb;
  const bool ea = stat(a.c_str(), &sa) == 0;
  const bool eb = stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  auto where = [](const std::string& path) {
    const std::string target = Resolve(path);
    char dir[PATH_MAX];
    if (realpath(DirectoryOf(target).c_str(), dir) == nullptr) return target;
    return absl::StrCat(dir, "/", BaseOf(target));
  };
  return where(a) == where(b);
}

}  // namespace graphprof
