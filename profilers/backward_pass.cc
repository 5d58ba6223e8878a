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

absl::Status BackwardPass::Contribute(Report& report) {
  AddTo(report, interpreter_.run_start_ns().empty() ? 0 : interpreter_.run_start_ns()[0]);
  report.Finalize();
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

void BackwardPass::DeclareMetrics(Report& report) {
  Column backward;
  backward.name = "backward";
  backward.description =
      "backward: the autograd functions each node created, with the engine's work after each (freeing what it "
      "saved)";
  backward.scope = Column::Scope::kSelf;
  report.AddMetric(std::move(backward));
  Column functions;
  functions.name = "backward_fns";
  functions.description = "autograd functions run in backward";
  functions.unit = Unit::kCount;
  functions.scope = Column::Scope::kSelf;
  report.AddMetric(std::move(functions));
}

void BackwardPass::AddTo(Report& report, int64_t origin_ns) const {
  const int runs = report.runs;
  report.loss = training_.DescribeLoss();

  DeclareMetrics(report);
  const int time_index = report.FindMetric("backward");
  const int count_index = report.FindMetric("backward_fns");
  report.columns[time_index].run_total.assign(run_ns_.begin(), run_ns_.begin() + runs);
  report.columns[time_index].unattributed.assign(unattributed_ns_.begin(), unattributed_ns_.begin() + runs);
  for (size_t id = 0; id < report.nodes.size() && id < num_nodes_; ++id) {
    std::vector<int64_t>& ns = report.nodes[id].metrics[time_index].self;
    std::vector<int64_t>& count = report.nodes[id].metrics[count_index].self;
    for (int r = 0; r < runs; ++r) {
      ns[r] = node_ns_[static_cast<size_t>(r) * num_nodes_ + id];
      count[r] = node_functions_[static_cast<size_t>(r) * num_nodes_ + id];
    }
  }

  report.backward_events.reserve(events_.size());
  for (const TraceEvent& e : events_) {
    report.backward_events.push_back(TraceEvent{e.node, e.run, e.start_ns - origin_ns, e.duration_ns});
  }

  if (backward_memory_.has_value() && report.memory.has_value()) {
    report.memory->backward = true;
    report.memory->backward_peak_bytes = backward_memory_->backward_peak_bytes;
    report.memory->backward_peak_node = backward_memory_->backward_peak_node;
    // Inclusive saved bytes: children come after their parent in id order.
    std::vector<int64_t> inclusive(saved_bytes_);
    inclusive.resize(report.nodes.size(), 0);
    int64_t all = 0;
    for (int id = static_cast<int>(report.nodes.size()) - 1; id >= 0; --id) {
      const int parent = report.nodes[id].identity.parent;
      if (parent >= 0 && parent < id) inclusive[parent] += inclusive[id];
    }
    const int saved = report.FindQuantity("saved_bytes");
    for (size_t id = 0; id < report.nodes.size(); ++id) {
      if (saved >= 0) report.nodes[id].quantities[saved] = static_cast<double>(inclusive[id]);
      if (id < saved_bytes_.size()) all += saved_bytes_[id];
    }
    report.memory->saved_bytes = all;
  }
  report.gradient_bytes = training_.GradientBytes();
  if (dropped_functions_ > 0) {
    report.notes.push_back(absl::StrCat(dropped_functions_,
                                        " backward functions did not fit the recorder; their time is unattributed"));
  }
}

}  // namespace graphprof
