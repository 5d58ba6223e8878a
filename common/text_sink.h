// Text made piece by piece and handed on in chunks, so that a big rendering
// (a 100 MB JSON report, a Chrome trace) never sits whole in memory.
//
// A renderer appends to buffer() and calls Chunk() between elements; once
// the buffer holds a chunk's worth, Chunk() hands it to the destination and
// empties it (keeping its capacity, so a steady rendering allocates nothing
// more). Without a destination the sink keeps everything: Take() returns the
// whole text, which is how the string-returning renderers are built.
//
//   TextSink sink([fd](absl::string_view bytes) { return WriteAll(fd, bytes); });
//   StreamChromeTrace(report, sink);
//   absl::Status written = sink.Finish();
//
// The first failure of the destination is kept; what comes after it is
// dropped, and Finish() returns that failure.
#ifndef GRAPHPROF_COMMON_TEXT_SINK_H_
#define GRAPHPROF_COMMON_TEXT_SINK_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace graphprof {

class TextSink {
 public:
  using Destination = std::function<absl::Status(absl::string_view)>;
  static constexpr size_t kDefaultChunkBytes = size_t{1} << 20;

  // Keeps everything (Take() returns it).
  TextSink() = default;
  explicit TextSink(Destination destination, size_t chunk_bytes = kDefaultChunkBytes);
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  // Where the text goes next: append to it.
  std::string* buffer() { return &buffer_; }
  // Text of a chunk or more goes on directly, without a copy.
  void Append(absl::string_view text);
  // Hands the buffer on if it holds at least a chunk (cheap otherwise).
  void Chunk() {
    if (destination_ && buffer_.size() >= chunk_bytes_) Flush();
  }
  // Hands on what is left; the destination's first failure, if any.
  absl::Status Finish();
  // Without a destination: the whole text.
  std::string Take() { return std::move(buffer_); }

 private:
  void Flush();

  Destination destination_;
  size_t chunk_bytes_ = kDefaultChunkBytes;
  std::string buffer_;
  absl::Status status_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_TEXT_SINK_H_
