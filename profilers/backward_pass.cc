#include "profilers/backward_pass.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace graphprof {

BackwardPass::BackwardPass(const ProfilingInterpreter& interpreter, std::shared_ptr<TimeSource> clock,
                           BackwardOptions options, int runs, bool trace)
    : interpreter_(interpreter),
      clock_(std::move(clock)),
      training_(interpreter.plan().self(), options),
      num_nodes_(interpreter.plan().nodes().size()),
      trace_(trace),
      node_ns_(static_cast<size_t>(runs) * num_nodes_, 0),
      node_functions_(static_cast<size_t>(runs) * num_nodes_, 0),
      run_ns_(runs, 0),
      unattributed_ns_(runs, 0) {
  attribution_.node_ns.assign(num_nodes_, 0);
  attribution_.node_functions.assign(num_nodes_, 0);
}

void BackwardPass::BeforeForward(Phase phase) {
  training_.ResetGradients();
  if (phase == Phase::kInspection) BeforeInspection();
}

absl::Status BackwardPass::AfterForward(Phase phase, int run, const c10::IValue& output) {
  switch (phase) {
    case Phase::kWarmup: return RunBackward(output, nullptr, nullptr);
    case Phase::kInspection: return AfterInspection(output);
    case Phase::kTimed: return AfterTimed(output, run);
  }
  return absl::OkStatus();
}

void BackwardPass::BeforeInspection() {
  MemoryTracker* tracker = interpreter_.memory_tracker().get();
  if (tracker == nullptr) return;
  ledger_ = std::make_unique<AllocationLedger>(static_cast<int>(num_nodes_));
  tracker->set_ledger(ledger_.get());
}

absl::Status BackwardPass::RunBackward(const c10::IValue& output, MemoryTracker* tracker, int64_t* wall_ns) {
  at::AutoGradMode grad_mode(true);
  absl::StatusOr<at::Tensor> loss = training_.Loss(output);
  if (!loss.ok()) return loss.status();
  owners_.Assign(interpreter_.sequence_ranges());
  if (recorder_ != nullptr) recorder_->Begin(tracker, &owners_);
  const int64_t start = clock_->NowNs();
  absl::Status status = TrainingStep::Backward(*loss);
  const int64_t stop = clock_->NowNs();
  if (recorder_ != nullptr) recorder_->End();
  if (wall_ns != nullptr) *wall_ns = stop - start;
  return status;
}

absl::Status BackwardPass::AfterInspection(const c10::IValue& output) {
  // The recorder's storage: every function the graph's nodes created, the
  // gradient accumulators and the loss's own, twice over.
  owners_.Assign(interpreter_.sequence_ranges());
  recorder_ = std::make_unique<BackwardRecorder>(
      clock_, 2 * (static_cast<size_t>(owners_.size()) + training_.parameters().size()) + 1024);
  MemoryTracker* tracker = interpreter_.memory_tracker().get();
  if (tracker == nullptr) return RunBackward(output, nullptr, nullptr);
  // Continue the inspection's counts through backward.
  ScopedMemoryTracking tracking(interpreter_.memory_tracker());
  tracker->set_tag(-1);
  tracker->set_window_peak(tracker->live_bytes());
  if (ledger_ != nullptr) ledger_->BeginBackward();
  absl::Status status = RunBackward(output, tracker, nullptr);
  MemorySummary summary;
  summary.backward = true;
  summary.backward_peak_bytes = tracker->window_peak();
  summary.backward_peak_node = tracker->window_peak_tag();
  backward_memory_ = summary;
  if (ledger_ != nullptr) {
    ledger_->EndBackward();
    saved_bytes_ = ledger_->saved_by_tag();
  }
  tracker->set_ledger(nullptr);
  return status;
}

absl::Status BackwardPass::AfterTimed(const c10::IValue& output, int run) {
  int64_t wall = 0;
  if (absl::Status status = RunBackward(output, nullptr, &wall); !status.ok()) return status;
  Attribute(recorder_->events(), owners_, attribution_);
  const size_t row = static_cast<size_t>(run) * num_nodes_;
  std::copy(attribution_.node_ns.begin(), attribution_.node_ns.end(), node_ns_.begin() + row);
  std::copy(attribution_.node_functions.begin(), attribution_.node_functions.end(), node_functions_.begin() + row);
  run_ns_[run] = wall;
  unattributed_ns_[run] = attribution_.unattributed_ns;
  dropped_functions_ += recorder_->dropped();
  if (trace_) {
    for (const BackwardEvent& e : recorder_->events()) {
      events_.push_back(TraceEvent{owners_.OwnerOf(e.sequence_number), run, e.start_ns, e.duration_ns});
    }
  }
  return absl::OkStatus();
}

std::vector<Column> BackwardPass::MetricColumns() {
  Column backward;
  backward.name = Report::kBackwardMetric;
  backward.description =
      "backward: the autograd functions each node created, with the engine's work after each (freeing what it "
      "saved)";
  backward.scope = Column::Scope::kSelf;
  Column functions;
  functions.name = "backward_fns";
  functions.description = "autograd functions run in backward";
  functions.unit = Unit::kCount;
  functions.scope = Column::Scope::kSelf;
  return {std::move(backward), std::move(functions)};
}

absl::StatusOr<Collected> BackwardPass::Collect(int runs) {
  runs = std::min(runs, static_cast<int>(run_ns_.size()));
  const size_t values = static_cast<size_t>(runs) * num_nodes_;
  Collected collected;
  collected.columns.push_back(ColumnValues{Report::kBackwardMetric, {node_ns_.begin(), node_ns_.begin() + values}, {},
                                           {run_ns_.begin(), run_ns_.begin() + runs},
                                           {unattributed_ns_.begin(), unattributed_ns_.begin() + runs}});
  collected.columns.push_back(
      ColumnValues{"backward_fns", {node_functions_.begin(), node_functions_.begin() + values}, {}, {}, {}});
  CollectedTraining& training = collected.training.emplace();
  training.loss = training_.DescribeLoss();
  const int64_t origin_ns = interpreter_.run_start_ns().empty() ? 0 : interpreter_.run_start_ns()[0];
  training.events.reserve(events_.size());
  for (const TraceEvent& e : events_) {
    training.events.push_back(TraceEvent{e.node, e.run, e.start_ns - origin_ns, e.duration_ns});
  }
  training.gradient_bytes = training_.GradientBytes();
  if (backward_memory_.has_value()) {
    training.memory = true;
    training.backward_peak_bytes = backward_memory_->backward_peak_bytes;
    training.backward_peak_node = backward_memory_->backward_peak_node;
    training.saved_bytes = saved_bytes_;
  }
  if (dropped_functions_ > 0) {
    collected.notes.push_back(absl::StrCat(dropped_functions_,
                                           " backward functions did not fit the recorder; their time is unattributed"));
  }
  return collected;
}

}  // namespace graphprof
