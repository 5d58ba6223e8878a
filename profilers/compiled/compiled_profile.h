// Profiling a compiled program run whole (an AOTInductor package): the
// timed loop of NativeRT's ModelRunner (warm-up runs, then timed runs, each
// on a fresh copy of the inputs), with the calls inside each run timed by
// the scopes they record (scope_recorder.h) and cut into rows by a
// CompiledPlan. The Report is the one every rendering, diff and gate reads:
// one top-level row per generated-kernel call or stretch of extern calls,
// per-run series and the run's time; the wrapper's own time is what the rows
// do not cover (1 - Report::coverage(): the share of the run inside named
// calls), not a row.
//
// Of ProfileOptions it takes warmup, runs, adaptive (max_time_s, and the
// run time's median interval against width, or the caller's stop rule) and
// progress; observers (device time per node) and training steps are
// refused in one line (the nodes of a compiled program do not run one by
// one); `memory` adds a note that memory per node is not measured; `trace`
// keeps each row's stretches of each run as trace events (up to
// max_trace_events).
#ifndef GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_
#define GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_

#include <torch/script.h>

#include <vector>

#include "absl/status/statusor.h"
#include "profilers/compiled/compiled_plan.h"
#include "profilers/profiler.h"
#include "profilers/report/report.h"

namespace graphprof {

// A compiled program as graphprof runs it.
class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;
  // One run on `inputs` (a fresh copy, the program's to change): its
  // output as the program's graph returns it (the one output, or a tuple).
  virtual absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue>& inputs) = 0;
  // How its runs are cut into rows.
  virtual const CompiledPlan& plan() const = 0;
};

// `output` (optional) receives the last timed run's output.
absl::StatusOr<Report> ProfileCompiled(CompiledProgram& program, const std::vector<c10::IValue>& inputs,
                                       const ProfileOptions& options, c10::IValue* output = nullptr);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_
