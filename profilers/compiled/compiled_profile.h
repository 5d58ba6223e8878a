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
// one); `memory` measures the run's peak in one untimed run (Inspect), not
// per row, and a note says so; `trace`
// keeps each row's stretches of each run as trace events (up to
// max_trace_events). Its clock is the steady clock (ProfileOptions::clock
// is not used). A run's time is taken around CompiledProgram::Run, which
// includes converting the inputs and outputs (microseconds).
#ifndef GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_
#define GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_

#include <torch/script.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/compiled/compiled_plan.h"
#include "profilers/compiled/scope_recorder.h"
#include "profilers/profiler.h"
#include "profilers/side_runner.h"
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

// The timed loop as steps (SideRunner: --ab and --compare_model interleave
// two sides' runs), as ProfileRunner is for graphs. Each timed run records
// its kernels' scopes (the recorder on only while the program runs, on this
// thread) and is cut into the plan's rows.
class CompiledRunner final : public SideRunner {
 public:
  // `program` and `inputs` must outlive the runner.
  static absl::StatusOr<std::unique_ptr<CompiledRunner>> Create(CompiledProgram& program,
                                                                const std::vector<c10::IValue>& inputs,
                                                                const ProfileOptions& options);
  absl::Status Warmup() override;
  // With ProfileOptions::memory: one untimed run under the memory tracker
  // (memory_tracker.h), its peak and allocations the report's memory
  // summary (no peak node: allocations are not cut into rows).
  absl::Status Inspect() override;
  absl::Status TimedRun(c10::IValue* output = nullptr) override;
  int timed_runs_done() const override { return timed_done_; }
  int timed_runs_wanted() const override { return options_.runs; }
  // The run time's median interval (a compiled program's rows are not
  // looked at: its run is what --runs=auto waits for).
  bool Converged(double width, std::vector<std::string>* wide) const override;
  absl::StatusOr<Report> Finish() override;
  // A report of the timed runs so far (finalized), timing going on after it.
  Report Snapshot() const;

 private:
  CompiledRunner(CompiledProgram& program, const std::vector<c10::IValue>& inputs, const ProfileOptions& options);
  absl::Status RunOnce(const char* phase, int k, c10::IValue* output, bool timed);

  CompiledProgram& program_;
  const std::vector<c10::IValue>& inputs_;
  ProfileOptions options_;
  ScopeRecorder recorder_;
  std::vector<int64_t> row_ns_;
  std::vector<CompiledPlan::Span> spans_;
  Report report_;
  int timed_done_ = 0;
  int runs_started_ = 0;  // every run, for ProfileOptions::before_run
  int64_t first_start_ = 0;
};

// `output` (optional) receives the last timed run's output.
absl::StatusOr<Report> ProfileCompiled(CompiledProgram& program, const std::vector<c10::IValue>& inputs,
                                       const ProfileOptions& options, c10::IValue* output = nullptr);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COMPILED_COMPILED_PROFILE_H_
