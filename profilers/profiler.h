// Profile(): the whole profiling session for one graph and one set of inputs.
//
//   1. measure the timer's own per-node cost (reported as timer_overhead_ns)
//   2. `warmup` plain runs (not recorded)
//   3. one inspection run: shapes, and memory when options.memory is set
//   4. `runs` timed runs: per-node times into preallocated storage, with the
//      observers (if any) called around every node
//   5. a Report built from the samples, completed by the observers
//
// Every run gets its own deep copy of `inputs` (made outside the timed
// region), so models that mutate their inputs see the same values each run;
// the caller's inputs are never touched.
#ifndef GRAPHPROF_PROFILERS_PROFILER_H_
#define GRAPHPROF_PROFILERS_PROFILER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/report/report.h"
#include "profilers/time_source.h"

namespace graphprof {

struct ProfileOptions {
  int warmup = 3;
  int runs = 10;
  bool memory = false;  // memory view (inspection run; use one intra-op thread)
  bool trace = true;    // keep per-execution events for the Chrome trace
  // At most this many trace events (24 bytes each) are kept; the rest are
  // counted in Report::dropped_events and a note says so.
  size_t max_trace_events = 4'000'000;
  std::shared_ptr<TimeSource> clock;  // null: SteadyClock
  // Act around every node of the timed runs and add to the report (NVTX
  // ranges, CUDA-event device time, CUPTI kernels). Not owned.
  std::vector<NodeObserver*> observers;
  // Called after each run: phase is "warmup", "inspect" or "timed"
  // (and once with ("warmup", 0, warmup) before the first).
  std::function<void(const char* phase, int done, int total)> progress;
  // Called every few thousand node executions during a run with the nodes
  // done so far and the nodes per run (0 until the inspection run counted them).
  std::function<void(int64_t done, int64_t per_run)> node_progress;
};

// Runs the session; on success the report is finalized. If `output` is
// given, it receives the last run's output.
absl::StatusOr<Report> Profile(std::shared_ptr<const GraphPlan> plan,
                               const std::vector<c10::IValue>& inputs,
                               const ProfileOptions& options = {},
                               c10::IValue* output = nullptr);

// The Report for what `interpreter` recorded (inspection + timed runs).
Report BuildReport(const ProfilingInterpreter& interpreter, int warmup, double timer_overhead_ns);

// Per-node cost of the instrumentation in ProfilingInterpreter::RunNode with
// `clock`: two reads, the sample update and a trace event write, measured in
// a tight loop (best of several repetitions), in nanoseconds.
double MeasureTimerOverheadNs(TimeSource& clock);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_PROFILER_H_
