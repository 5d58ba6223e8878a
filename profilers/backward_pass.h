// BackwardPass: the backward half of each profiled training step
// (ProfileOptions::backward). After every forward run of the
// ProfilingInterpreter (which recorded the autograd sequence numbers each
// node took), it makes the loss and runs backward:
//
//   warm-up     untimed
//   inspection  with the inspection's memory tracker: bytes each node kept
//               for backward (AllocationLedger), the backward peak and the
//               node whose backward functions were running at it
//   timed       every autograd function timed (BackwardRecorder) and added
//               to the node that created it (SequenceOwners); functions no
//               node created (AccumulateGrad, the loss's) are unattributed;
//               the whole backward is timed around them (the run total), so
//               what no function covers shows as coverage below 100%
//
// and resets the parameters' gradients before the next forward: a collector
// (NodeObserver) that observes no nodes, acting before and after each
// forward. Collect returns it all: the "backward" metric (ns, per node,
// self) with the backward wall time as its run total and the unattributed
// rest, "backward_fns" (count), the backward trace events, saved bytes per
// node, and gradient bytes per module.
#ifndef GRAPHPROF_PROFILERS_BACKWARD_PASS_H_
#define GRAPHPROF_PROFILERS_BACKWARD_PASS_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "profilers/autograd/backward_recorder.h"
#include "profilers/autograd/sequence_owners.h"
#include "profilers/autograd/training_step.h"
#include "profilers/memory_tracker.h"
#include "profilers/node_observer.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/report/report.h"

namespace graphprof {

class BackwardPass final : public NodeObserver {
 public:
  // `interpreter` must record sequences (RecordSequences(true)) and outlive
  // this; `runs`: the timed runs.
  BackwardPass(const ProfilingInterpreter& interpreter, std::shared_ptr<TimeSource> clock, BackwardOptions options,
               int runs, bool trace);

  const TrainingStep& training() const { return training_; }

  bool ObservesNodes() const override { return false; }
  bool NeedsGradients() const override { return true; }
  // Gradients to None; before the inspection (with memory inspected), starts
  // the ledger of what forward keeps for backward.
  void BeforeForward(Phase phase) override;
  // Loss and backward of the forward that just ran: untimed after warm-ups,
  // tracked after the inspection, every function timed after timed runs.
  absl::Status AfterForward(Phase phase, int run, const c10::IValue& output) override;
  // The metrics, events, memory and notes of the first `runs` timed runs,
  // with the first timed run's start as the trace's origin.
  absl::StatusOr<Collected> Collect(int runs) override;
  std::vector<Column> Columns() const override { return MetricColumns(); }
  // The metrics it fills ("backward", "backward_fns"), without values.
  static std::vector<Column> MetricColumns();

 private:
  void BeforeInspection();
  absl::Status AfterInspection(const c10::IValue& output);
  absl::Status AfterTimed(const c10::IValue& output, int run);

  // Loss and backward of the forward that just ran, with the recorder when
  // there is one (and `tracker` tagging memory); the wall time into `wall_ns`.
  absl::Status RunBackward(const c10::IValue& output, MemoryTracker* tracker, int64_t* wall_ns);

  const ProfilingInterpreter& interpreter_;
  std::shared_ptr<TimeSource> clock_;
  TrainingStep training_;
  const size_t num_nodes_;
  const bool trace_;
  SequenceOwners owners_;
  std::unique_ptr<BackwardRecorder> recorder_;  // made after the inspection, sized by it
  BackwardAttribution attribution_;

  // Inspection.
  std::unique_ptr<AllocationLedger> ledger_;
  std::optional<MemorySummary> backward_memory_;  // the backward fields only
  std::vector<int64_t> saved_bytes_;              // [node], self

  // Timed runs.
  std::vector<int64_t> node_ns_;         // [run * nodes + node]
  std::vector<int64_t> node_functions_;  // [run * nodes + node]
  std::vector<int64_t> run_ns_;
  std::vector<int64_t> unattributed_ns_;
  std::vector<TraceEvent> events_;       // clock time, converted in AddTo
  int64_t dropped_functions_ = 0;
  std::vector<ModuleBytes> gradient_bytes_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_BACKWARD_PASS_H_
