// ProfilingInterpreter: an Interpreter that records, for every node and every
// run, how long it took (torch.fx's ProfilingInterpreter, in C++).
//
// It overrides three hooks: Run (the total time of each run), RunBlock and
// RunNode (each node's time, so nested nodes of If/Loop blocks are timed
// too, and a Loop's time includes its body). It has
// three modes:
//
//   kPlain    nothing is recorded (warm-up runs)
//   kInspect  one run that records each node's input/output shapes and, if
//             asked, its memory (allocations, frees, peak, live bytes, output
//             bytes) through MemoryTracker; not timed
//   kTimed    runs whose node times go into storage preallocated by
//             BeginTimedRuns: no allocation, lock or lookup per node;
//             NodeObservers (NVTX, CUDA events, CUPTI) act around each node
//
// The timed path is chosen once per BeginTimedRuns. Without observers the
// clock is read once per node: the reads are chained, each one ending a node
// and starting the next, and a block that has nodes reads it once when
// entered (its first node starts there). A node's interval then holds its
// own work and the timer's bookkeeping after the previous read; a parent's
// holds its children's reads and one read per block it entered (Compensate in
// profiler.h takes both off). With a TscClock or SteadyClock that read is
// inline (no virtual call, no branch on observers) and, with a trace, one
// event write follows; times are kept in the clock's own units (TSC ticks) and
// converted when read. Other clocks (ManualClock in tests) read through the
// TimeSource. Observers (NVTX, CUDA events, CUPTI) take a general path: two
// reads per node, observers just outside them.
// Training steps add one read of the autograd sequence counter per node
// (RecordSequences), in a path of its own.
//
// Profile() in profiler.h drives these modes and turns the samples into a Report.
#ifndef GRAPHPROF_PROFILERS_PROFILING_INTERPRETER_H_
#define GRAPHPROF_PROFILERS_PROFILING_INTERPRETER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "interpreter/interpreter.h"
#include "profilers/autograd/sequence_owners.h"
#include "profilers/memory_tracker.h"
#include "profilers/node_observer.h"
#include "profilers/report/report.h"
#include "profilers/time_source.h"

namespace graphprof {

// One node in one timed run.
struct NodeSample {
  int64_t total = 0;  // clock units: ns, or TSC ticks (ProfilingInterpreter::UnitsToNs)
  int64_t calls = 0;
};

// What the inspection run learnt about one node.
struct NodeInspection {
  int64_t executions = 0;
  std::string input_shapes;   // from its first execution
  std::string output_shapes;
  // Memory, summed over executions (peak: max, live after: last, output
  // bytes: max); bytes relative to live bytes when the run started.
  // BuildReport gives them to the report as its memory quantities
  // (MemoryQuantities(), named here after them).
  struct Memory {
    int64_t allocated_bytes = 0;
    int64_t freed_bytes = 0;
    int64_t allocations = 0;
    int64_t peak_bytes = 0;
    int64_t live_after_bytes = 0;
    int64_t output_bytes = 0;
  } memory;
  // The work it did (profilers/work/work.h), summed over executions; not
  // counted when its kind is not (work_counted false).
  double flops = 0;
  double bytes = 0;
  bool work_counted = true;
  // WorkReadsArguments(kind), found at its first execution: when false its
  // arguments are not described (a list's elements, every execution).
  bool work_reads_arguments = true;
};

// Subclass it as you would Interpreter: overrides of RunNode and of the
// family handlers run in every mode and are timed as part of their node.
// Whether the timed loop may call its own timing step directly (skipping the
// virtual RunNode, as it does for a ProfilingInterpreter itself) is decided
// here, from the object's dynamic type: a subclass need not do anything
// for its overrides to be called; its timed nodes cost one indirect call
// more. NodeObservers need no subclass at all.
class ProfilingInterpreter : public Interpreter {
 public:
  enum class Mode { kPlain, kInspect, kTimed };

  explicit ProfilingInterpreter(std::shared_ptr<const GraphPlan> plan,
                                std::shared_ptr<TimeSource> clock = DefaultTimeSource());

  // Next Run records shapes, and memory when `memory` is true.
  void BeginInspection(bool memory);
  // Allocates storage for `runs` timed runs and `trace_capacity` trace events
  // (0: no trace), then times every Run until `runs` are done.
  void BeginTimedRuns(int runs, size_t trace_capacity);
  // Back to kPlain.
  void EndRecording() {
    mode_ = Mode::kPlain;
    ChoosePath();
  }

  // Calls `observer` around every node and run of the timed runs (not owned;
  // must outlive the timed runs).
  void AddObserver(NodeObserver* observer) {
    observers_.push_back(observer);
    ChoosePath();
  }

  // Training steps: every node execution records the autograd sequence
  // numbers it took (SequenceOwners), in every mode, until turned off.
  void RecordSequences(bool on);
  // The last (or current) run's ranges, in completion order.
  absl::Span<const SequenceRange> sequence_ranges() const { return sequence_ranges_; }

  // The inspection run's memory tracker (null unless memory is inspected):
  // track a backward pass with it to continue the inspection's counts.
  const std::shared_ptr<MemoryTracker>& memory_tracker() const { return tracker_; }

  // Calls `progress(nodes done in this run)` every `every` node executions,
  // in every mode (long single runs can then show progress).
  void SetNodeProgress(std::function<void(int64_t)> progress, int64_t every = 4096);

  absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue> inputs) override;
  // Interpreter's partial run (from initial values) is not a profile: its
  // skipped nodes would read as not run, and it bypasses the timed runs'
  // bookkeeping above. Profile whole runs; run partially on an Interpreter.
  absl::StatusOr<c10::IValue> Run(std::vector<c10::IValue> inputs, const Environment& initial_values) = delete;

  Mode mode() const { return mode_; }
  TimeSource& clock() const { return *clock_; }
  // Clock units (samples, events) to nanoseconds.
  int64_t UnitsToNs(int64_t units) const {
    return ns_per_unit_ == 1.0 ? units : static_cast<int64_t>(static_cast<double>(units) * ns_per_unit_);
  }

  // Inspection results.
  const std::vector<NodeInspection>& inspection() const { return inspection_; }
  int64_t inspected_executions() const { return inspected_executions_; }
  const MemorySummary& memory_summary() const { return memory_summary_; }
  bool memory_inspected() const { return memory_inspected_; }

  // Timing results.
  int completed_runs() const { return completed_runs_; }
  const NodeSample& sample(int run, int node) const {
    return samples_[static_cast<size_t>(run) * plan().nodes().size() + node];
  }
  absl::Span<const int64_t> run_ns() const { return absl::MakeConstSpan(run_ns_.data(), completed_runs_); }
  absl::Span<const int64_t> run_start_ns() const {
    return absl::MakeConstSpan(run_start_ns_.data(), completed_runs_);
  }
  // Events with start and duration in clock units (UnitsToNs).
  absl::Span<const TraceEvent> events() const { return absl::MakeConstSpan(events_.data(), num_events_); }
  int64_t dropped_events() const { return dropped_events_; }
  // True when the timed runs read the clock once per node and once per
  // block entered (no observers), false when twice per node (observers).
  bool chained_reads() const { return observers_.empty(); }

 protected:
  absl::Status RunBlock(const BlockPlan& block) override;
  absl::Status RunNode(const NodePlan& node) override;

 private:
  // What RunNode and RunBlock do in the current mode: one step each, chosen
  // by ChoosePath (BeginInspection, BeginTimedRuns, AddObserver,
  // RecordSequences, EndRecording) from the mode, the observers, the clock
  // (TscClock::Read, SteadyClock::Read or the TimeSource: `Reads`), the trace
  // and the sequence recording. No per-node switch.
  using NodeStep = absl::Status (ProfilingInterpreter::*)(const NodePlan&);
  using BlockStep = absl::Status (ProfilingInterpreter::*)(const BlockPlan&);
  void ChoosePath();
  template <typename Reads>
  void ChooseTimedSteps();
  // The base class's RunNode (recording sequence ranges when asked) and
  // RunBlock: warm-up runs, runs past the planned ones.
  absl::Status RunNodeUntimed(const NodePlan& node);
  absl::Status RunBlockUntimed(const BlockPlan& block);
  // A block of the timed runs with chained reads: its nodes in order, each
  // through RunNodeTimed (no virtual call per node unless a subclass or
  // the base class's slow loop needs one).
  template <typename Reads, bool kTrace, bool kSequences>
  absl::Status RunBlockTimed(const BlockPlan& block);
  template <typename Reads, bool kTrace, bool kSequences>
  absl::Status RunNodeTimed(const NodePlan& node);
  // Runs the node (Interpreter::RunNode), recording its sequence range.
  absl::Status RunNodeRecordingSequences(const NodePlan& node);
  // Observers around each node, two clock reads (any clock).
  absl::Status RunNodeObserved(const NodePlan& node);
  int64_t ReadUnits();
  absl::Status RunNodeInspected(const NodePlan& node);
  std::string DescribeInputs(const NodePlan& node) const;
  std::string DescribeOutputs(const NodePlan& node) const;

  void ReportNodeProgress();

  std::shared_ptr<TimeSource> clock_;
  double ns_per_unit_ = 1.0;
  Mode mode_ = Mode::kPlain;
  NodeStep node_step_ = &ProfilingInterpreter::RunNodeUntimed;
  BlockStep block_step_ = &ProfilingInterpreter::RunBlockUntimed;
  // Chained reads (RunBlockTimed): RunBlock reads the clock when entering a
  // block, and last_read_ is where the next node's interval starts.
  bool reads_chained_ = false;
  // The timed loop calls RunNodeTimed itself: this is a ProfilingInterpreter,
  // not a subclass that may override RunNode.
  bool direct_nodes_ = false;
  int64_t last_read_ = 0;
  // Node progress: executions in the current run, and when to report next.
  int64_t executions_in_run_ = 0;
  int64_t next_progress_ = INT64_MAX;
  int64_t progress_every_ = 0;
  std::function<void(int64_t)> node_progress_;
  std::vector<NodeObserver*> observers_;
  bool record_sequences_ = false;
  std::vector<SequenceRange> sequence_ranges_;

  // kInspect
  std::shared_ptr<MemoryTracker> tracker_;  // null unless memory is inspected
  std::vector<NodeInspection> inspection_;
  int64_t inspected_executions_ = 0;
  MemorySummary memory_summary_;
  bool memory_inspected_ = false;

  // kTimed
  int planned_runs_ = 0;
  int completed_runs_ = 0;
  NodeSample* current_ = nullptr;  // row of the run in progress (row_)
  std::vector<NodeSample> row_;
  std::vector<NodeSample> samples_;  // [run][node]
  std::vector<int64_t> run_ns_;
  std::vector<int64_t> run_start_ns_;
  std::vector<TraceEvent> events_;
  size_t num_events_ = 0;
  int64_t dropped_events_ = 0;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_PROFILING_INTERPRETER_H_
