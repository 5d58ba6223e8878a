// Set-up and side-by-side timing for graphprof's benchmarks. Timing goes
// through the toolbox's Benchmark (candidates interleaved, order rotating
// every step), so machine noise hits all candidates alike; each candidate
// reports the median of its steps.
#ifndef GRAPHPROF_BENCH_BENCH_UTIL_H_
#define GRAPHPROF_BENCH_BENCH_UTIL_H_

#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

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

// Median wall time in nanoseconds of each candidate over `rounds` steps,
// after `warmup` untimed steps. Exits with a message if a candidate fails.
inline std::vector<double> MedianTimesNs(const std::vector<BenchmarkCase>& candidates, int warmup, int rounds) {
  BenchmarkOptions options;
  options.warmup = warmup;
  options.steps = rounds;
  absl::StatusOr<std::vector<BenchmarkRow>> rows = Benchmark(candidates, options);
  if (!rows.ok()) {
    std::fprintf(stderr, "benchmark failed: %s\n", rows.status().ToString().c_str());
    std::exit(1);
  }
  std::vector<double> medians;
  for (const BenchmarkRow& row : *rows) medians.push_back(row.forward_ns.median);
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
