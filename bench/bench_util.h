// Set-up and side-by-side timing for graphprof's benchmarks. Timing goes
// through the toolbox's Benchmark (candidates interleaved, order rotating
// every step), so machine noise hits all candidates alike; each candidate
// reports the median of its steps.
#ifndef GRAPHPROF_BENCH_BENCH_UTIL_H_
#define GRAPHPROF_BENCH_BENCH_UTIL_H_

#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "profilers/toolbox/benchmark.h"

namespace graphprof::bench {

// A benchmark candidate: a callable, with optional untimed set-up and
// tear-down around each run (e.g. enabling another profiler).
inline BenchmarkCase Candidate(std::string name, std::function<void()> run, std::function<void()> before = nullptr,
                               std::function<void()> after = nullptr) {
  BenchmarkCase c = CallableCase(std::move(name), std::move(run));
  c.before = std::move(before);
  c.after = std::move(after);
  return c;
}

// Times each candidate `rounds` times, interleaved (after `warmup` untimed
// steps). Exits with a message if a candidate fails.
inline std::vector<BenchmarkRow> TimeSideBySide(const std::vector<BenchmarkCase>& candidates, int warmup,
                                                int rounds) {
  BenchmarkOptions options;
  options.warmup = warmup;
  options.steps = rounds;
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark(candidates, options);
  if (!rows.ok()) {
    std::fprintf(stderr, "benchmark failed: %s\n", rows.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(rows);
}

// The median wall time in nanoseconds of each candidate (TimeSideBySide).
inline std::vector<double> MedianTimesNs(const std::vector<BenchmarkCase>& candidates, int warmup, int rounds) {
  std::vector<double> medians;
  for (const BenchmarkRow& row : TimeSideBySide(candidates, warmup, rounds)) medians.push_back(row.forward_ns.median);
  return medians;
}

// The median over steps of a.step - b.step: what `a` costs over `b`, with
// slow phases of the machine (which hit both in one step) cancelled out.
inline double MedianPairedDifferenceNs(const BenchmarkRow& a, const BenchmarkRow& b) {
  std::vector<int64_t> differences;
  for (size_t i = 0; i < a.forward_steps_ns.size() && i < b.forward_steps_ns.size(); ++i) {
    differences.push_back(a.forward_steps_ns[i] - b.forward_steps_ns[i]);
  }
  std::sort(differences.begin(), differences.end());
  if (differences.empty()) return 0;
  const size_t mid = differences.size() / 2;
  return differences.size() % 2 == 1 ? static_cast<double>(differences[mid])
                                     : 0.5 * static_cast<double>(differences[mid - 1] + differences[mid]);
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
