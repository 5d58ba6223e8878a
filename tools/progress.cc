#include "tools/progress.h"

#include <unistd.h>

namespace graphprof::cli {

constexpr auto kQuietFor = std::chrono::milliseconds(700);

bool IsTerminal(std::FILE* stream) { return isatty(fileno(stream)) == 1; }

Progress::Progress(std::FILE* stream, bool enabled)
    : stream_(stream), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

void Progress::Update(const char* phase, int done, int total) {
  if (!enabled_ || std::chrono::steady_clock::now() - start_ < kQuietFor) return;
  std::fprintf(stream_, "\rprofile_graph: %s run %d/%d\033[K", phase, done, total);
  std::fflush(stream_);
  shown_ = true;
}

void Progress::Finish() {
  if (!shown_) return;
  std::fprintf(stream_, "\r\033[K");
  std::fflush(stream_);
  shown_ = false;
}

}  // namespace graphprof::cli
