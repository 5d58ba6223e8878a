// A one-line progress indicator on a terminal: "profile_graph: timed run 4/10".
// Silent unless enabled (stderr is a terminal) and the work has already taken
// longer than a moment, so short runs and pipes see nothing.
#ifndef GRAPHPROF_TOOLS_PROGRESS_H_
#define GRAPHPROF_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace graphprof::cli {

class Progress {
 public:
  Progress(std::FILE* stream, bool enabled);
  ~Progress() { Finish(); }
  // After a run: "warmup run 2/3".
  void Update(const char* phase, int done, int total);
  // Within a run: "timed run 4/10: 40000/100000 nodes" (total 0: unknown).
  void Nodes(int64_t done, int64_t total);
  // While worker processes run (tools/workers.h): "process 2/5" ("process
  // 2" when the total is not known: 0), redrawn at most every moment; call
  // it as often as convenient.
  void Processes(int running, int total);
  // Clears the line if anything was shown.
  void Finish();

 private:
  void Shown(bool shown);
  // Whether a line within a run (Nodes, Processes) may be drawn now: shown
  // after kQuietFor, redrawn at most every kRedrawEvery (then noted drawn).
  bool Due();

  std::FILE* stream_;
  bool enabled_;
  bool shown_ = false;
  // The run in progress, for Nodes().
  const char* phase_ = "warmup";
  int run_ = 1;
  int runs_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// True when `stream` is a terminal.
bool IsTerminal(std::FILE* stream);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_PROGRESS_H_
