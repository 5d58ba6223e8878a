#include "tools/progress.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/interrupt.h"

namespace graphprof::cli {

constexpr auto kQuietFor = std::chrono::milliseconds(700);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

bool IsTerminal(std::FILE* stream) { return isatty(fileno(stream)) == 1; }

Progress::Progress(std::FILE* stream, bool enabled)
    : stream_(stream), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

void Progress::Update(const char* phase, int done, int total) {
  // The next run's phase: warm-up runs, then one inspection, then timed runs.
  phase_ = phase;
  run_ = done + 1;
  runs_ = total;
  if (std::string(phase) == "warmup" && done == total) {
    phase_ = "inspect";
    run_ = runs_ = 1;
  } else if (std::string(phase) == "inspect") {
    phase_ = "timed";
    run_ = 1;
    runs_ = 0;
  }
  if (!enabled_ || done == 0 || std::chrono::steady_clock::now() - start_ < kQuietFor) return;
  Shown(true);  // first: a signal after the line appears must clear it
  std::fprintf(stream_, "\rprofile_graph: %s run %d/%d\033[K", phase, done, total);
  std::fflush(stream_);
}

bool Progress::Due() {
  if (!enabled_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) return false;
  last_draw_ = now;
  return true;
}

void Progress::Nodes(int64_t done, int64_t total) {
  if (!Due()) return;
  std::string runs = runs_ > 0 ? absl::StrCat(run_, "/", runs_) : absl::StrCat(run_);
  std::string nodes = total > 0 ? absl::StrCat(done, "/", total) : absl::StrCat(done);
  Shown(true);  // first: a signal after the line appears must clear it
  std::fprintf(stream_, "\rprofile_graph: %s run %s: %s nodes\033[K", phase_, runs.c_str(), nodes.c_str());
  std::fflush(stream_);
}

void Progress::Processes(int running, int total) {
  if (!Due()) return;
  const std::string process = total > 0 ? absl::StrCat(running, "/", total) : absl::StrCat(running);
  Shown(true);  // first: a signal after the line appears must clear it
  std::fprintf(stream_, "\rprofile_graph: process %s\033[K", process.c_str());
  std::fflush(stream_);
}

void Progress::Finish() {
  if (!shown_) return;
  std::fprintf(stream_, "\r\033[K");
  std::fflush(stream_);
  Shown(false);
}

void Progress::Shown(bool shown) {
  shown_ = shown;
  SetProgressLineShown(shown);
}

}  // namespace graphprof::cli
