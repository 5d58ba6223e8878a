#include "profilers/profiling_interpreter.h"

#include <ATen/SequenceNumber.h>

#include <algorithm>
#include <typeinfo>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_join.h"
#include "ir/ivalue_util.h"
#include "profilers/work/arg_info.h"

namespace graphprof {

ProfilingInterpreter::ProfilingInterpreter(std::shared_ptr<const GraphPlan> plan,
                                           std::shared_ptr<TimeSource> clock)
    : Interpreter(std::move(plan)), clock_(std::move(clock)) {
  if (clock_->kind() == TimeSource::Kind::kTsc) ns_per_unit_ = static_cast<TscClock&>(*clock_).ns_per_tick();
}

namespace {

// How the chained timed paths read the clock (RunNodeTimed's `Reads`).
struct TscReads {
  static int64_t Read(TimeSource&) { return TscClock::Read(); }
};
struct SteadyReads {
  static int64_t Read(TimeSource&) { return SteadyClock::Read(); }
};
struct SourceReads {
  static int64_t Read(TimeSource& clock) { return clock.NowNs(); }
};

}  // namespace

void ProfilingInterpreter::ChoosePath() {
  reads_chained_ = false;
  direct_nodes_ = typeid(*this) == typeid(ProfilingInterpreter);
  block_step_ = &ProfilingInterpreter::RunBlockUntimed;
  switch (mode_) {
    case Mode::kPlain: node_step_ = &ProfilingInterpreter::RunNodeUntimed; return;
    case Mode::kInspect: node_step_ = &ProfilingInterpreter::RunNodeInspected; return;
    case Mode::kTimed: break;
  }
  if (!observers_.empty()) {
    node_step_ = &ProfilingInterpreter::RunNodeObserved;
    return;
  }
  reads_chained_ = true;
  switch (clock_->kind()) {
    case TimeSource::Kind::kTsc: return ChooseTimedSteps<TscReads>();
    case TimeSource::Kind::kSteady: return ChooseTimedSteps<SteadyReads>();
    case TimeSource::Kind::kOther: return ChooseTimedSteps<SourceReads>();
  }
}

template <typename Reads>
void ProfilingInterpreter::ChooseTimedSteps() {
  const bool trace = !events_.empty();
  if (trace && record_sequences_) {
    node_step_ = &ProfilingInterpreter::RunNodeTimed<Reads, true, true>;
    block_step_ = &ProfilingInterpreter::RunBlockTimed<Reads, true, true>;
  } else if (trace) {
    node_step_ = &ProfilingInterpreter::RunNodeTimed<Reads, true, false>;
    block_step_ = &ProfilingInterpreter::RunBlockTimed<Reads, true, false>;
  } else if (record_sequences_) {
    node_step_ = &ProfilingInterpreter::RunNodeTimed<Reads, false, true>;
    block_step_ = &ProfilingInterpreter::RunBlockTimed<Reads, false, true>;
  } else {
    node_step_ = &ProfilingInterpreter::RunNodeTimed<Reads, false, false>;
    block_step_ = &ProfilingInterpreter::RunBlockTimed<Reads, false, false>;
  }
}

int64_t ProfilingInterpreter::ReadUnits() {
  switch (clock_->kind()) {
    case TimeSource::Kind::kTsc: return TscClock::Read();
    case TimeSource::Kind::kSteady: return SteadyClock::Read();
    case TimeSource::Kind::kOther: break;
  }
  return clock_->NowNs();
}

void ProfilingInterpreter::RecordSequences(bool on) {
  record_sequences_ = on;
  sequence_ranges_.clear();
  if (on) sequence_ranges_.reserve(std::max<size_t>(plan().nodes().size(), 1024));
  ChoosePath();
}

void ProfilingInterpreter::BeginInspection(bool memory) {
  mode_ = Mode::kInspect;
  ChoosePath();
  inspection_.assign(plan().nodes().size(), NodeInspection{});
  inspected_executions_ = 0;
  memory_summary_ = MemorySummary{};
  memory_inspected_ = memory;
  tracker_ = memory ? std::make_shared<MemoryTracker>() : nullptr;
}

void ProfilingInterpreter::BeginTimedRuns(int runs, size_t trace_capacity) {
  mode_ = Mode::kTimed;
  planned_runs_ = runs;
  completed_runs_ = 0;
  samples_.assign(static_cast<size_t>(runs) * plan().nodes().size(), NodeSample{});
  row_.assign(plan().nodes().size(), NodeSample{});
  current_ = row_.data();  // never null in kTimed (a partial run, Run(inputs, env), times into it too)
  run_ns_.assign(runs, 0);
  run_start_ns_.assign(runs, 0);
  events_.assign(trace_capacity, TraceEvent{});
  num_events_ = 0;
  dropped_events_ = 0;
  ChoosePath();
}

void ProfilingInterpreter::SetNodeProgress(std::function<void(int64_t)> progress, int64_t every) {
  node_progress_ = std::move(progress);
  progress_every_ = std::max<int64_t>(every, 1);
  next_progress_ = node_progress_ ? progress_every_ : INT64_MAX;
}

void ProfilingInterpreter::ReportNodeProgress() {
  next_progress_ += progress_every_;
  node_progress_(executions_in_run_);
  // Not in the next node's time (it stays in its parent's and the run's).
  if (reads_chained_) last_read_ = ReadUnits();
}

absl::StatusOr<c10::IValue> ProfilingInterpreter::Run(std::vector<c10::IValue> inputs) {
  executions_in_run_ = 0;
  sequence_ranges_.clear();
  if (node_progress_) next_progress_ = progress_every_;
  switch (mode_) {
    case Mode::kPlain:
      return Interpreter::Run(std::move(inputs));
    case Mode::kInspect: {
      if (tracker_ == nullptr) return Interpreter::Run(std::move(inputs));
      tracker_->Reset();
      absl::StatusOr<c10::IValue> result;
      {
        ScopedMemoryTracking tracking(tracker_);
        result = Interpreter::Run(std::move(inputs));
      }
      memory_summary_.peak_bytes = tracker_->peak_bytes();
      memory_summary_.peak_node = tracker_->peak_tag();
      memory_summary_.allocated_bytes = tracker_->allocated_bytes();
      memory_summary_.freed_bytes = tracker_->freed_bytes();
      memory_summary_.allocations = tracker_->allocations();
      return result;
    }
    case Mode::kTimed: {
      if (completed_runs_ >= planned_runs_) {
        // Past the planned runs: not recorded.
        mode_ = Mode::kPlain;
        ChoosePath();
        absl::StatusOr<c10::IValue> result = Interpreter::Run(std::move(inputs));
        mode_ = Mode::kTimed;
        ChoosePath();
        return result;
      }
      // A failed run leaves nothing behind: its events are reused. Samples
      // go to one row reused by every run (in cache, not a fresh row of
      // memory each run), copied to the run's row afterwards.
      const size_t num_nodes = plan().nodes().size();
      std::fill(row_.begin(), row_.end(), NodeSample{});
      current_ = row_.data();
      const size_t events_before = num_events_;
      const int64_t dropped_before = dropped_events_;
      for (NodeObserver* observer : observers_) observer->BeginRun(completed_runs_);
      const int64_t start = ReadUnits();
      absl::StatusOr<c10::IValue> result = Interpreter::Run(std::move(inputs));
      const int64_t stop = ReadUnits();
      for (auto it = observers_.rbegin(); it != observers_.rend(); ++it) (*it)->EndRun(completed_runs_);
      if (result.ok()) {
        std::copy(row_.begin(), row_.end(), samples_.begin() + static_cast<ptrdiff_t>(completed_runs_ * num_nodes));
        run_start_ns_[completed_runs_] = UnitsToNs(start);
        run_ns_[completed_runs_] = UnitsToNs(stop) - UnitsToNs(start);
        ++completed_runs_;
      } else {
        num_events_ = events_before;
        dropped_events_ = dropped_before;
      }
      return result;
    }
  }
  return Interpreter::Run(std::move(inputs));
}

// The hot path: one clock read after the node (its interval starts at the
// previous read: the previous node's end, or its block's entry), the sample,
// and (kTrace) one event into preallocated storage; (kSequences) the autograd
// sequence numbers the node took.
template <typename Reads, bool kTrace, bool kSequences>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status ProfilingInterpreter::RunNodeTimed(const NodePlan& node) {
  uint64_t first_sequence = 0;
  if constexpr (kSequences) first_sequence = at::sequence_number::peek();
  const int64_t start = last_read_;
  absl::Status status = Interpreter::RunNode(node);  // nested blocks move last_read_
  const int64_t stop = Reads::Read(*clock_);
  last_read_ = stop;
  if constexpr (kSequences) {
    const uint64_t end = at::sequence_number::peek();
    if (end != first_sequence) sequence_ranges_.push_back(SequenceRange{first_sequence, end, node.id});
  }
  NodeSample& sample = current_[node.id];
  sample.total += stop - start;
  ++sample.calls;
  if constexpr (kTrace) {
    if (ABSL_PREDICT_TRUE(num_events_ < events_.size())) {
      events_[num_events_++] = TraceEvent{node.id, completed_runs_, start, stop - start};
    } else {
      ++dropped_events_;
    }
  }
  return status;
}

absl::Status ProfilingInterpreter::RunBlock(const BlockPlan& block) { return (this->*block_step_)(block); }

absl::Status ProfilingInterpreter::RunBlockUntimed(const BlockPlan& block) { return Interpreter::RunBlock(block); }

template <typename Reads, bool kTrace, bool kSequences>
absl::Status ProfilingInterpreter::RunBlockTimed(const BlockPlan& block) {
  EnterBlock(block);
  if (block.nodes.empty()) return absl::OkStatus();
  if (ABSL_PREDICT_FALSE(!direct_nodes_ || !RunsEveryNode())) {
    // Through the virtual RunNode (a subclass's override, then RunNodeTimed
    // through node_step_); entering again is a no-op.
    last_read_ = Reads::Read(*clock_);
    return Interpreter::RunBlock(block);
  }
  // The block's first node starts here, not where its parent started.
  last_read_ = Reads::Read(*clock_);
  const std::vector<NodePlan>& nodes = plan().nodes();
  for (int id : block.nodes) {
    if (ABSL_PREDICT_FALSE(++executions_in_run_ == next_progress_)) ReportNodeProgress();
    absl::Status status = RunNodeTimed<Reads, kTrace, kSequences>(nodes[id]);
    if (ABSL_PREDICT_FALSE(!status.ok())) return status;
  }
  return absl::OkStatus();
}

absl::Status ProfilingInterpreter::RunNode(const NodePlan& node) {
  if (ABSL_PREDICT_FALSE(++executions_in_run_ == next_progress_)) ReportNodeProgress();
  return (this->*node_step_)(node);
}

absl::Status ProfilingInterpreter::RunNodeUntimed(const NodePlan& node) {
  return record_sequences_ ? RunNodeRecordingSequences(node) : Interpreter::RunNode(node);
}

absl::Status ProfilingInterpreter::RunNodeRecordingSequences(const NodePlan& node) {
  const uint64_t begin = at::sequence_number::peek();
  absl::Status status = Interpreter::RunNode(node);
  const uint64_t end = at::sequence_number::peek();
  if (end != begin) sequence_ranges_.push_back(SequenceRange{begin, end, node.id});
  return status;
}

// Observers around every node (just outside the clock reads), any clock.
absl::Status ProfilingInterpreter::RunNodeObserved(const NodePlan& node) {
  for (NodeObserver* observer : observers_) observer->BeginNode(node);
  const int64_t start = ReadUnits();
  absl::Status status = record_sequences_ ? RunNodeRecordingSequences(node) : Interpreter::RunNode(node);
  const int64_t stop = ReadUnits();
  for (auto it = observers_.rbegin(); it != observers_.rend(); ++it) (*it)->EndNode(node);
  NodeSample& sample = current_[node.id];
  sample.total += stop - start;
  ++sample.calls;
  if (num_events_ < events_.size()) {
    events_[num_events_++] = TraceEvent{node.id, completed_runs_, start, stop - start};
  } else if (!events_.empty()) {
    ++dropped_events_;
  }
  return status;
}

std::string ProfilingInterpreter::DescribeInputs(const NodePlan& node) const {
  std::string out;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (i > 0) out.append(", ");
    AppendIValueDescription(&out, InputValue(node, i));
  }
  return out;
}

std::string ProfilingInterpreter::DescribeOutputs(const NodePlan& node) const {
  std::string out;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (i > 0) out.append(", ");
    AppendIValueDescription(&out, OutputValue(node, i));
  }
  return out;
}

// Runs one node of the inspection run: shapes before and after, and memory
// counters around it. A node's peak window nests inside its parent's.
absl::Status ProfilingInterpreter::RunNodeInspected(const NodePlan& node) {
  NodeInspection& info = inspection_[node.id];
  const bool first = info.executions == 0;
  if (first) {
    info.input_shapes = DescribeInputs(node);
    info.work_reads_arguments = WorkReadsArguments(node.identity.kind);
  }
  MemoryTracker* tracker = tracker_.get();
  int64_t allocated = 0, freed = 0, allocations = 0, saved_window = 0;
  int saved_tag = -1;
  if (tracker != nullptr) {
    allocated = tracker->allocated_bytes();
    freed = tracker->freed_bytes();
    allocations = tracker->allocations();
    saved_window = tracker->window_peak();
    saved_tag = tracker->tag();
    tracker->set_window_peak(tracker->live_bytes());
    tracker->set_tag(node.id);
  }
  // The work counter sees the arguments before the node consumes them.
  std::vector<ArgInfo> args;
  if (info.work_reads_arguments) {
    args.reserve(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) args.push_back(ToArgInfo(InputValue(node, i)));
  }
  const uint64_t first_sequence = at::sequence_number::peek();
  absl::Status status = Dispatch(node);
  if (const uint64_t end = at::sequence_number::peek(); record_sequences_ && end != first_sequence) {
    sequence_ranges_.push_back(SequenceRange{first_sequence, end, node.id});
  }
  if (status.ok()) {
    if (first) info.output_shapes = DescribeOutputs(node);
    std::vector<ArgInfo> results;
    if (info.work_reads_arguments) {
      results.reserve(node.outputs.size());
      for (size_t i = 0; i < node.outputs.size(); ++i) results.push_back(ToArgInfo(OutputValue(node, i)));
    }
    const Work work = CountWork(node.identity.kind, args, results);
    info.work_counted = info.work_counted && work.counted;
    info.flops += work.flops;
    info.bytes += work.bytes;
    if (tracker != nullptr) {
      int64_t bytes = 0;
      if (node.outputs.size() == 1) {
        bytes = IValueBytes(OutputValue(node, 0));
      } else if (!node.outputs.empty()) {
        std::vector<c10::IValue> outputs;  // storages shared between outputs count once
        for (size_t i = 0; i < node.outputs.size(); ++i) outputs.push_back(OutputValue(node, i));
        bytes = IValueBytes(absl::MakeConstSpan(outputs));
      }
      info.memory.output_bytes = std::max(info.memory.output_bytes, bytes);
    }
  }
  ReleaseDeadValues(node);
  if (tracker != nullptr) {
    const int64_t node_peak = tracker->window_peak();
    info.memory.allocated_bytes += tracker->allocated_bytes() - allocated;
    info.memory.freed_bytes += tracker->freed_bytes() - freed;
    info.memory.allocations += tracker->allocations() - allocations;
    info.memory.peak_bytes = info.executions == 0 ? node_peak : std::max(info.memory.peak_bytes, node_peak);
    info.memory.live_after_bytes = tracker->live_bytes();
    tracker->set_tag(saved_tag);
    tracker->set_window_peak(std::max(saved_window, node_peak));
    memory_summary_.timeline.push_back(MemoryPoint{node.id, tracker->live_bytes()});
  }
  ++info.executions;
  ++inspected_executions_;
  return status;
}

}  // namespace graphprof
