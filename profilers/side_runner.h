// SideRunner: one side of an A/B stepped by before_after.h's interleaving
// (warm-up, inspection, timed runs one at a time, then its Report), whatever
// runs it: a graph through ProfileRunner (profile_runner.h), or a compiled
// program run whole (CompiledRunner, profilers/compiled/compiled_profile.h).
// Each step fails with the run it was in; after a failure, Finish must not
// be called.
#ifndef GRAPHPROF_PROFILERS_SIDE_RUNNER_H_
#define GRAPHPROF_PROFILERS_SIDE_RUNNER_H_

#include <torch/script.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profilers/report/report.h"

namespace graphprof {

class SideRunner {
 public:
  virtual ~SideRunner() = default;
  // The untimed warm-up runs.
  virtual absl::Status Warmup() = 0;
  // What is measured once before the timed runs (a graph's shapes, memory).
  virtual absl::Status Inspect() = 0;
  // One timed run; `output` (optional) receives its output.
  virtual absl::Status TimedRun(c10::IValue* output = nullptr) = 0;
  virtual int timed_runs_done() const = 0;
  virtual int timed_runs_wanted() const = 0;
  // --runs=auto: whether the intervals are narrow enough after the timed
  // runs so far (`wide`: the labels of the rows still wider).
  virtual bool Converged(double width, std::vector<std::string>* wide) const = 0;
  // The Report of the timed runs made (finalized).
  virtual absl::StatusOr<Report> Finish() = 0;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_SIDE_RUNNER_H_
