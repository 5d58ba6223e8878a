// Side-by-side timing for benchmarks: candidates run interleaved (A B C A B C
// ...) in one process so that machine noise hits them alike; each reports
// the median of its samples.
#ifndef GRAPHPROF_BENCH_BENCH_UTIL_H_
#define GRAPHPROF_BENCH_BENCH_UTIL_H_

#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/flags/parse.h"

namespace graphprof::bench {

struct Candidate {
  std::string name;
  std::function<void()> run;
  // Untimed, around each run (e.g. enabling another profiler).
  std::function<void()> before;
  std::function<void()> after;
};

// Median wall time in nanoseconds of each candidate over `rounds` interleaved
// rounds, after `warmup` untimed rounds. The order rotates every round.
inline std::vector<double> MedianTimesNs(const std::vector<Candidate>& candidates, int warmup,
                                         int rounds) {
  const size_t n = candidates.size();
  auto run_untimed = [](const Candidate& c) {
    if (c.before) c.before();
    c.run();
    if (c.after) c.after();
  };
  for (int w = 0; w < warmup; ++w) {
    for (const Candidate& c : candidates) run_untimed(c);
  }
  std::vector<std::vector<double>> samples(n);
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + static_cast<size_t>(r)) % n;
      const Candidate& c = candidates[i];
      if (c.before) c.before();
      const auto start = std::chrono::steady_clock::now();
      c.run();
      const auto stop = std::chrono::steady_clock::now();
      if (c.after) c.after();
      samples[i].push_back(std::chrono::duration<double, std::nano>(stop - start).count());
    }
  }
  std::vector<double> medians;
  for (std::vector<double>& s : samples) {
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

inline void WarnIfUnoptimised() {
#ifndef __OPTIMIZE__
  std::printf("warning: built without optimisation; use ./bazelw run -c opt ...\n");
#endif
}

// The common set-up of graphprof's benchmarks: flags parsed, one intra-op
// thread, gradients off for the whole process.
inline void InitBenchmark(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  WarnIfUnoptimised();
  at::set_num_threads(1);
  c10::GradMode::set_enabled(false);
}

}  // namespace graphprof::bench

#endif  // GRAPHPROF_BENCH_BENCH_UTIL_H_
