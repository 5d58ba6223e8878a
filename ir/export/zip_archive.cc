// ZipArchive (zip_archive.h): the end-of-central-directory record (zip64's
// too), the central directory, and each entry's local header for where its
// data starts (PyTorchStreamWriter pads local headers to align data).
#include "ir/export/zip_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/read_file.h"

namespace graphprof {
namespace {

class FileSource : public ByteSource {
 public:
  FileSource(int fd, uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}
  ~FileSource() override { close(fd_); }
  uint64_t size() const override { return size_; }
  absl::Status Read(uint64_t offset, uint64_t n, char* out) const override {
    while (n > 0) {
      const ssize_t got = pread(fd_, out, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return absl::DataLossError(absl::StrCat(path_, ": short read at byte ", offset,
                                                got < 0 ? absl::StrCat(" (", std::strerror(errno), ")") : ""));
      }
      out += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<uint64_t>(got);
    }
    return absl::OkStatus();
  }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
};

class SlicedSource : public ByteSource {
 public:
  SlicedSource(std::shared_ptr<const ByteSource> source, uint64_t offset, uint64_t size)
      : source_(std::move(source)), offset_(offset), size_(size) {}
  uint64_t size() const override { return size_; }
  absl::Status Read(uint64_t offset, uint64_t n, char* out) const override {
    if (offset > size_ || n > size_ - offset) return absl::OutOfRangeError("read past the slice");
    return source_->Read(offset_ + offset, n, out);
  }

 private:
  std::shared_ptr<const ByteSource> source_;
  uint64_t offset_;
  uint64_t size_;
};

class BytesSource : public ByteSource {
 public:
  explicit BytesSource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status Read(uint64_t offset, uint64_t n, char* out) const override {
    if (offset > bytes_.size() || n > bytes_.size() - offset) return absl::OutOfRangeError("read past the bytes");
    std::memcpy(out, bytes_.data() + offset, n);
    return absl::OkStatus();
  }

 private:
  std::string bytes_;
};

uint64_t Little(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("not a readable zip archive: ", what));
}

constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kEnd64LocatorSignature = 0x07064b50;
constexpr uint32_t kEnd64Signature = 0x06064b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;

// Reads [offset, offset + n) of the archive's range, checked to lie in it.
absl::StatusOr<std::string> ReadRange(const ByteSource& source, uint64_t begin, uint64_t length, uint64_t offset,
                                      uint64_t n, absl::string_view what) {
  if (offset > length || n > length - offset) return Bad(absl::StrCat(what, " lies past the archive's end"));
  std::string out(n, '\0');
  if (absl::Status read = source.Read(begin + offset, n, out.data()); !read.ok()) return read;
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ByteSource>> OpenFileSource(const std::string& path) {
  absl::StatusOr<int64_t> size = RegularFileSize(path);
  if (!size.ok()) return size.status();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  return std::shared_ptr<const ByteSource>(std::make_shared<FileSource>(fd, static_cast<uint64_t>(*size), path));
}

std::shared_ptr<const ByteSource> SliceSource(std::shared_ptr<const ByteSource> source, uint64_t offset,
                                              uint64_t size) {
  return std::make_shared<SlicedSource>(std::move(source), offset, size);
}

std::shared_ptr<const ByteSource> MemorySource(std::string bytes) {
  return std::make_shared<BytesSource>(std::move(bytes));
}

absl::StatusOr<ZipArchive> ZipArchive::Open(std::shared_ptr<const ByteSource> source, uint64_t begin,
                                            uint64_t length) {
  if (begin > source->size() || length > source->size() - begin) return Bad("its range lies past the file's end");
  // The end record: 22 bytes and a comment of up to 65535, at the end.
  constexpr uint64_t kEnd = 22;
  if (length < kEnd) return Bad("too short for an end-of-central-directory record (truncated?)");
  const uint64_t tail_size = std::min<uint64_t>(length, kEnd + 65535);
  absl::StatusOr<std::string> tail = ReadRange(*source, begin, length, length - tail_size, tail_size, "the end record");
  if (!tail.ok()) return tail.status();
  uint64_t end_at = 0;
  bool found = false;
  for (uint64_t i = tail_size - kEnd + 1; i-- > 0;) {
    const char* p = tail->data() + i;
    if (Little(p, 4) == kEndSignature && Little(p + 20, 2) == tail_size - kEnd - i) {
      end_at = length - tail_size + i;
      found = true;
      break;
    }
  }
  if (!found) return Bad("no end-of-central-directory record (truncated, or not a zip)");
  const char* end = tail->data() + (end_at - (length - tail_size));
  uint64_t count = Little(end + 10, 2);
  uint64_t directory_size = Little(end + 12, 4);
  uint64_t directory_at = Little(end + 16, 4);
  if (Little(end + 4, 2) != 0 || Little(end + 6, 2) != 0) return Bad("a multi-disk archive");
  if (count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_at == 0xFFFFFFFF) {
    // Zip64: the locator just before the end record names the zip64 end record.
    if (end_at < 20) return Bad("a zip64 archive without its locator");
    absl::StatusOr<std::string> locator = ReadRange(*source, begin, length, end_at - 20, 20, "the zip64 locator");
    if (!locator.ok()) return locator.status();
    if (Little(locator->data(), 4) != kEnd64LocatorSignature) return Bad("a zip64 archive without its locator");
    const uint64_t end64_at = Little(locator->data() + 8, 8);
    absl::StatusOr<std::string> end64 = ReadRange(*source, begin, length, end64_at, 56, "the zip64 end record");
    if (!end64.ok()) return end64.status();
    if (Little(end64->data(), 4) != kEnd64Signature) return Bad("the zip64 end record is damaged");
    count = Little(end64->data() + 32, 8);
    directory_size = Little(end64->data() + 40, 8);
    directory_at = Little(end64->data() + 48, 8);
  }
  if (count > kMaxZipEntries) return Bad(absl::StrCat("it claims ", count, " entries"));
  absl::StatusOr<std::string> directory =
      ReadRange(*source, begin, length, directory_at, directory_size, "the central directory");
  if (!directory.ok()) return directory.status();
  ZipArchive archive;
  archive.source_ = source;
  archive.entries_.reserve(static_cast<size_t>(count));
  uint64_t at = 0;
  for (uint64_t k = 0; k < count; ++k) {
    if (directory->size() - at < 46 || Little(directory->data() + at, 4) != kCentralSignature) {
      return Bad(absl::StrCat("central directory entry ", k, " is damaged"));
    }
    const char* e = directory->data() + at;
    const uint64_t flags = Little(e + 8, 2), method = Little(e + 10, 2);
    uint64_t compressed = Little(e + 20, 4), size = Little(e + 24, 4), local = Little(e + 42, 4);
    const uint64_t name_length = Little(e + 28, 2), extra_length = Little(e + 30, 2), comment_length = Little(e + 32, 2);
    if (directory->size() - at - 46 < name_length + extra_length + comment_length) {
      return Bad(absl::StrCat("central directory entry ", k, " is damaged"));
    }
    std::string name(e + 46, name_length);
    // Zip64 sizes and offset, in the order they are present.
    const char* extra = e + 46 + name_length;
    for (uint64_t x = 0; x + 4 <= extra_length;) {
      const uint64_t id = Little(extra + x, 2), n = Little(extra + x + 2, 2);
      if (x + 4 + n > extra_length) break;
      if (id == 1) {
        const char* z = extra + x + 4;
        uint64_t used = 0;
        for (uint64_t* field : {&size, &compressed, &local}) {
          if (*field != 0xFFFFFFFF) continue;
          if (used + 8 > n) return Bad(absl::StrCat("entry ", name, " has a damaged zip64 field"));
          *field = Little(z + used, 8);
          used += 8;
        }
      }
      x += 4 + n;
    }
    if (flags & 1) return Bad(absl::StrCat("entry ", name, " is encrypted"));
    if (method != 0) {
      return Bad(absl::StrCat("entry ", name, " is compressed (method ", method,
                              "): torch.export writes stored entries, and graphprof reads only those"));
    }
    if (compressed != size) {
      return Bad(absl::StrCat("entry ", name, " is stored (not compressed) yet says it takes ", compressed,
                              " bytes for ", size, " bytes of data: its sizes are damaged"));
    }
    if (local > length) {
      return Bad(absl::StrCat("entry ", name, " starts at byte ", local, ", past the archive's end (", length,
                              " bytes): its offset is damaged"));
    }
    // Where the data starts: after the local header, whose extra field may
    // differ from the central one's (alignment padding).
    absl::StatusOr<std::string> header = ReadRange(*source, begin, length, local, 30, absl::StrCat("entry ", name));
    if (!header.ok()) return header.status();
    if (Little(header->data(), 4) != kLocalSignature) return Bad(absl::StrCat("entry ", name, "'s header is damaged"));
    const uint64_t data_at = local + 30 + Little(header->data() + 26, 2) + Little(header->data() + 28, 2);
    if (data_at > length) {
      return Bad(absl::StrCat("entry ", name, "'s data would start at byte ", data_at, ", past the archive's end (",
                              length, " bytes): damaged"));
    }
    if (size > length - data_at) {
      return Bad(absl::StrCat("entry ", name, " claims ", size, " bytes past the archive's end (truncated?)"));
    }
    archive.entries_.push_back(Entry{std::move(name), begin + data_at, size});
    at += 46 + name_length + extra_length + comment_length;
  }
  // One top-level directory for all (torch.save's "archive/"): names without it.
  if (!archive.entries_.empty()) {
    const std::string& first = archive.entries_.front().name;
    const size_t slash = first.find('/');
    if (slash != std::string::npos && slash > 0) {
      const std::string prefix = first.substr(0, slash + 1);
      const bool shared = std::all_of(archive.entries_.begin(), archive.entries_.end(),
                                      [&](const Entry& e) { return e.name.compare(0, prefix.size(), prefix) == 0; });
      if (shared) {
        archive.prefix_ = prefix.substr(0, slash);
        for (Entry& e : archive.entries_) e.name.erase(0, prefix.size());
      }
    }
  }
  std::sort(archive.entries_.begin(), archive.entries_.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  for (size_t i = 1; i < archive.entries_.size(); ++i) {
    if (archive.entries_[i].name == archive.entries_[i - 1].name) {
      return Bad(absl::StrCat("entry ", archive.entries_[i].name, " is there twice"));
    }
  }
  return archive;
}

const ZipArchive::Entry* ZipArchive::Find(absl::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, absl::string_view n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

absl::StatusOr<std::string> ZipArchive::ReadEntry(absl::string_view name, uint64_t max_bytes) const {
  const Entry* entry = Find(name);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat("the archive has no ", name));
  if (entry->size > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is ", entry->size, " bytes, more than the ", max_bytes,
                                                   " graphprof reads for it"));
  }
  std::string out(entry->size, '\0');
  if (absl::Status read = source_->Read(entry->offset, entry->size, out.data()); !read.ok()) return read;
  return out;
}

absl::StatusOr<ZipArchive> ZipArchive::OpenNested(absl::string_view name) const {
  const Entry* entry = Find(name);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat("the archive has no ", name));
  absl::StatusOr<ZipArchive> nested = Open(source_, entry->offset, entry->size);
  if (!nested.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", nested.status().message()));
  return nested;
}

}  // namespace graphprof
