// Reading the zip archives torch.export writes (.pt2), without LibTorch.
//
// Both layouts store their entries uncompressed: torch.export.save of
// PyTorch 2.6-2.7 writes a zipfile (ZIP_STORED) of
// serialized_exported_program.json, serialized_state_dict.pt, ...; the PT2
// archive of 2.8+ (docs/source/export/pt2_archive.md in PyTorch) is written
// by PyTorchStreamWriter, whose entries sit under one top-level directory.
// The .pt entries inside are torch.save archives, zips themselves, stored
// whole in the outer one: ZipArchive opens a range of a source, so an inner
// archive is read in place.
//
// Everything is read from a ByteSource on demand (a file through pread, or
// bytes in memory for tests and fuzzing): a weight's bytes go straight from
// the file into the tensor that holds them, once.
//
// Hostile archives: every offset and size is checked against the range it
// must lie in; a compressed, encrypted or zip64 entry, a name twice, or
// more than kMaxZipEntries entries is refused; errors are InvalidArgument
// with one sentence naming the archive's problem.
#ifndef GRAPHPROF_IR_EXPORT_ZIP_ARCHIVE_H_
#define GRAPHPROF_IR_EXPORT_ZIP_ARCHIVE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// Random access to bytes.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly `n` bytes at `offset` (offset + n <= size()) into `out`.
  virtual absl::Status Read(uint64_t offset, uint64_t n, char* out) const = 0;
};

// A regular file, read with pread (NotFound / PermissionDenied naming it).
absl::StatusOr<std::shared_ptr<const ByteSource>> OpenFileSource(const std::string& path);
// Bytes in memory (copied).
std::shared_ptr<const ByteSource> MemorySource(std::string bytes);
// Bytes [offset, offset + size) of `source` (within it: the caller's
// check), read in place: an archive stored whole inside another.
std::shared_ptr<const ByteSource> SliceSource(std::shared_ptr<const ByteSource> source, uint64_t offset,
                                              uint64_t size);

inline constexpr size_t kMaxZipEntries = 1 << 20;

class ZipArchive {
 public:
  struct Entry {
    std::string name;     // as stored, the common top-level directory removed
    uint64_t offset = 0;  // of its data, within the source
    uint64_t size = 0;
  };

  // The archive in source bytes [begin, begin + length).
  static absl::StatusOr<ZipArchive> Open(std::shared_ptr<const ByteSource> source, uint64_t begin, uint64_t length);
  static absl::StatusOr<ZipArchive> Open(std::shared_ptr<const ByteSource> source) {
    const uint64_t size = source->size();
    return Open(std::move(source), 0, size);
  }

  const std::vector<Entry>& entries() const { return entries_; }
  // The top-level directory every entry was under ("archive" for torch.save
  // and PyTorchStreamWriter archives); "" when they were not all under one.
  const std::string& prefix() const { return prefix_; }
  // The entry named `name` (the prefix removed), or null.
  const Entry* Find(absl::string_view name) const;
  // Its bytes; NotFound naming it when absent, InvalidArgument when larger
  // than `max_bytes`.
  absl::StatusOr<std::string> ReadEntry(absl::string_view name, uint64_t max_bytes) const;
  // The archive inside entry `name` (a stored .pt).
  absl::StatusOr<ZipArchive> OpenNested(absl::string_view name) const;
  const std::shared_ptr<const ByteSource>& source() const { return source_; }

 private:
  std::shared_ptr<const ByteSource> source_;
  std::vector<Entry> entries_;  // sorted by name
  std::string prefix_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_IR_EXPORT_ZIP_ARCHIVE_H_
