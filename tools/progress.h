// A one-line progress indicator on a terminal: "profile_graph: timed run 4/10".
// Silent unless enabled (stderr is a terminal) and the work has already taken
// longer than a moment, so short runs and pipes see nothing.
#ifndef GRAPHPROF_TOOLS_PROGRESS_H_
#define GRAPHPROF_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstdio>

namespace graphprof::cli {

class Progress {
 public:
  Progress(std::FILE* stream, bool enabled);
  ~Progress() { Finish(); }
  void Update(const char* phase, int done, int total);
  // Clears the line if anything was shown.
  void Finish();

 private:
  std::FILE* stream_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// True when `stream` is a terminal.
bool IsTerminal(std::FILE* stream);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_PROGRESS_H_
