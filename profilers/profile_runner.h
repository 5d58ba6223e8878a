// ProfileRunner: Profile() (profiler.h) as steps, so that two sessions can
// alternate their timed runs in one process (interleaved A/B: drift in
// frequency, temperature or a neighbour's load then reaches both alike).
//
//   auto a = ProfileRunner::Create(plan_a, inputs, options);
//   auto b = ProfileRunner::Create(plan_b, inputs, options);
//   a->Warmup(); b->Warmup(); a->Inspect(); b->Inspect();
//   for (...) { a->TimedRun(); b->TimedRun(); b->TimedRun(); a->TimedRun(); }  // ABBA
//   Report ra = a->Finish(), rb = b->Finish();
//
// Each step fails with the run it was in; after a failure only Finish may
// not be called. Observers (ProfileOptions::observers) act on one session
// at a time: give each runner its own, or none. Training steps' backward is
// a collector of the runner's own (BackwardPass).
#ifndef GRAPHPROF_PROFILERS_PROFILE_RUNNER_H_
#define GRAPHPROF_PROFILERS_PROFILE_RUNNER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/backward_pass.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/report/report.h"
#include "profilers/side_runner.h"

namespace graphprof {

class ProfileRunner final : public SideRunner {
 public:
  // Checks the options and the collectors' declared columns
  // (NodeObserver::Columns, CheckColumns) and measures the timer's cost.
  static absl::StatusOr<std::unique_ptr<ProfileRunner>> Create(std::shared_ptr<const GraphPlan> plan,
                                                               const std::vector<c10::IValue>& inputs,
                                                               const ProfileOptions& options);

  // The untimed warm-up runs.
  absl::Status Warmup() override;
  // The inspection run (shapes, memory), then prepares the timed runs.
  absl::Status Inspect() override;
  // One timed run; `output` (optional) receives its output.
  absl::Status TimedRun(c10::IValue* output = nullptr) override;
  int timed_runs_done() const override { return timed_done_; }
  int timed_runs_wanted() const override { return options_.runs; }
  // ProfileOptions::adaptive: whether the intervals are narrow enough after
  // the timed runs so far; `wide` receives the labels of the rows (among
  // those holding 80% of the time, and "the run") still wider.
  bool Converged(double width, std::vector<std::string>* wide) const override;
  // The Report of the timed runs made (finalized).
  absl::StatusOr<Report> Finish() override;
  // A report of the timed runs so far (finalized), timing going on after it:
  // ProfileOptions::Adaptive::stop's. FailedPrecondition with collectors
  // (observers, training steps), whose values come once, at Finish.
  absl::StatusOr<Report> Snapshot() const;
  // The plan it runs (training steps leave their gradients on its module).
  const GraphPlan& plan() const { return interpreter_.plan(); }

 private:
  ProfileRunner(std::shared_ptr<const GraphPlan> plan, const std::vector<c10::IValue>& inputs,
                const ProfileOptions& options, std::shared_ptr<TimeSource> clock);
  // One run: fresh inputs, the collectors' BeforeForward, the forward (with
  // autograd when a collector needs it), their AfterForward.
  absl::Status RunOnce(NodeObserver::Phase phase, int run, c10::IValue* output = nullptr);
  void Progress(const char* phase, int done, int total) const;
  // The timed runs' report before the collectors' values (BuildReport with
  // this runner's timer and compensation): Snapshot's and Finish's.
  Report TimedRunsReport() const;
  // Registration: each collector's Columns(), checked against the report's
  // own columns and each other's, into declared_.
  absl::Status RegisterColumns();

  const std::vector<c10::IValue>& inputs_;
  ProfileOptions options_;
  std::shared_ptr<TimeSource> clock_;
  ProfilingInterpreter interpreter_;
  TimerCost timer_;
  std::optional<BackwardPass> backward_;
  // Every collector (NodeObserver protocol): the backward pass of training
  // steps first, then ProfileOptions::observers.
  std::vector<NodeObserver*> collectors_;
  std::vector<std::vector<Column>> declared_;  // [collector]: its Columns()
  bool observes_nodes_ = false;  // some collector needs the per-node hooks
  bool gradients_ = false;       // some collector needs autograd
  std::vector<c10::IValue> fresh_;  // this run's copy of the inputs
  int64_t nodes_per_run_ = 0;
  size_t trace_capacity_ = 0;
  size_t trace_wanted_ = 0;
  int timed_done_ = 0;
  int runs_started_ = 0;  // every run, for ProfileOptions::before_run
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_PROFILE_RUNNER_H_
