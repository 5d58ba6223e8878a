#include "common/text_sink.h"

#include <utility>

namespace graphprof {

TextSink::TextSink(Destination destination, size_t chunk_bytes)
    : destination_(std::move(destination)), chunk_bytes_(chunk_bytes) {
  buffer_.reserve(chunk_bytes_ + chunk_bytes_ / 4);
}

void TextSink::Append(absl::string_view text) {
  if (!destination_ || text.size() < chunk_bytes_) {
    buffer_.append(text.data(), text.size());
    return;
  }
  Flush();
  if (status_.ok()) status_ = destination_(text);
}

void TextSink::Flush() {
  if (status_.ok() && !buffer_.empty()) status_ = destination_(buffer_);
  buffer_.clear();
}

absl::Status TextSink::Finish() {
  if (destination_) Flush();
  return status_;
}

}  // namespace graphprof
