#include "profilers/profiler.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/graph_text.h"
#include "ir/ivalue_util.h"

namespace graphprof {

double MeasureTimerOverheadNs(TimeSource& clock) {
  constexpr int kIterations = 20000;
  constexpr int kRepetitions = 5;
  NodeSample sample;
  std::vector<TraceEvent> events(1);
  double best = 1e300;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < kIterations; ++i) {
      const int64_t start = clock.NowNs();
      const int64_t stop = clock.NowNs();
      sample.total_ns += stop - start;
      ++sample.calls;
      events[0] = TraceEvent{i, rep, start, stop - start};
      // Keep the loop from being optimised away.
      asm volatile("" : : "g"(&sample), "g"(events.data()) : "memory");
    }
    const auto end = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(end - begin).count() / kIterations);
  }
  return best;
}

Report BuildReport(const ProfilingInterpreter& interpreter, int warmup, double timer_overhead_ns) {
  const GraphPlan& plan = interpreter.plan();
  Report report;
  report.model = plan.name();
  report.clock = std::string(interpreter.clock().name());
  report.warmup = warmup;
  report.runs = interpreter.completed_runs();
  report.timer_overhead_ns = timer_overhead_ns;
  report.metrics[0].run_total.assign(interpreter.run_ns().begin(), interpreter.run_ns().end());
  const std::vector<NodeInspection>& inspection = interpreter.inspection();
  report.nodes.resize(plan.nodes().size());
  for (const NodePlan& node : plan.nodes()) {
    NodeRecord& record = report.nodes[node.id];
    record.identity = node.identity;
    if (node.id < static_cast<int>(inspection.size())) {
      record.input_shapes = inspection[node.id].input_shapes;
      record.output_shapes = inspection[node.id].output_shapes;
      if (interpreter.memory_inspected()) record.memory = inspection[node.id].memory;
    }
    record.metrics.resize(report.metrics.size());
    std::vector<int64_t>& total = record.metrics[0].total;
    total.reserve(report.runs);
    record.calls.reserve(report.runs);
    for (int r = 0; r < report.runs; ++r) {
      total.push_back(interpreter.sample(r, node.id).total_ns);
      record.calls.push_back(interpreter.sample(r, node.id).calls);
    }
  }
  report.ir = GraphLines(plan.graph());
  if (interpreter.memory_inspected()) report.memory = interpreter.memory_summary();
  const int64_t origin = report.runs > 0 ? interpreter.run_start_ns()[0] : 0;
  for (int64_t start : interpreter.run_start_ns()) report.run_start_ns.push_back(start - origin);
  report.events.reserve(interpreter.events().size());
  for (const TraceEvent& event : interpreter.events()) {
    report.events.push_back(TraceEvent{event.node, event.run, event.start_ns - origin, event.duration_ns});
  }
  report.dropped_events = interpreter.dropped_events();
  report.Finalize();
  return report;
}

absl::StatusOr<Report> Profile(std::shared_ptr<const GraphPlan> plan,
                               const std::vector<c10::IValue>& inputs, const ProfileOptions& options,
                               c10::IValue* output) {
  if (options.runs < 1) return absl::InvalidArgumentError("runs must be at least 1");
  if (options.warmup < 0) return absl::InvalidArgumentError("warmup must not be negative");
  std::shared_ptr<TimeSource> clock = options.clock ? options.clock : DefaultTimeSource();
  ProfilingInterpreter interpreter(std::move(plan), clock);
  const double overhead = MeasureTimerOverheadNs(*clock);
  auto progress = [&](const char* phase, int done, int total) {
    if (options.progress) options.progress(phase, done, total);
  };
  int64_t nodes_per_run = 0;
  if (options.node_progress) {
    interpreter.SetNodeProgress([&](int64_t done) { options.node_progress(done, nodes_per_run); });
  }

  // Every run gets its own copy of the inputs, made before the run's clock
  // starts: a model that mutates its inputs sees the same values every time.
  // The copy stays alive through the run (as a caller's inputs do for
  // module.forward), so memory is freed where it is natively.
  auto run = [&]() {
    const std::vector<c10::IValue> fresh = DeepCopy(inputs);
    return interpreter.Run(fresh);
  };
  progress("warmup", 0, options.warmup);  // starting
  for (int i = 0; i < options.warmup; ++i) {
    absl::StatusOr<c10::IValue> result = run();
    if (!result.ok()) return Annotate(result.status(), absl::StrCat("warm-up run ", i + 1));
    progress("warmup", i + 1, options.warmup);
  }

  interpreter.BeginInspection(options.memory);
  absl::StatusOr<c10::IValue> inspected = run();
  if (!inspected.ok()) return inspected.status();
  progress("inspect", 1, 1);
  nodes_per_run = interpreter.inspected_executions();

  // Trace events are preallocated (no allocation per node), up to a cap: a
  // long loop times many runs would not fit in memory; the rest are counted
  // as dropped.
  const size_t wanted = static_cast<size_t>(interpreter.inspected_executions()) * options.runs + 64;
  const size_t trace_capacity = options.trace ? std::min(wanted, options.max_trace_events) : 0;
  for (NodeObserver* observer : options.observers) {
    absl::Status prepared =
        observer->Prepare(interpreter.plan(), options.runs, interpreter.inspected_executions());
    if (!prepared.ok()) return prepared;
    interpreter.AddObserver(observer);
  }
  interpreter.BeginTimedRuns(options.runs, trace_capacity);
  progress("timed", 0, options.runs);  // starting
  for (int i = 0; i < options.runs; ++i) {
    absl::StatusOr<c10::IValue> result = run();
    if (!result.ok()) return Annotate(result.status(), absl::StrCat("timed run ", i + 1));
    if (output != nullptr && i + 1 == options.runs) *output = *std::move(result);
    progress("timed", i + 1, options.runs);
  }
  interpreter.EndRecording();
  Report report = BuildReport(interpreter, options.warmup, overhead);
  if (report.dropped_events > 0) {
    report.notes.push_back(absl::StrCat("the trace keeps the first ", trace_capacity, " node executions of ",
                                        wanted - 64, " (max_trace_events); ", report.dropped_events,
                                        " were not recorded"));
  }
  for (NodeObserver* observer : options.observers) {
    absl::Status contributed = observer->Contribute(report);
    if (!contributed.ok()) return contributed;
  }
  return report;
}

}  // namespace graphprof
