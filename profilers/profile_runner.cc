#include "profilers/profile_runner.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/node_observer.h"
#include "profilers/report/rank_test.h"

namespace graphprof {

absl::StatusOr<std::unique_ptr<ProfileRunner>> ProfileRunner::Create(std::shared_ptr<const GraphPlan> plan,
                                                                      const std::vector<c10::IValue>& inputs,
                                                                      const ProfileOptions& options) {
  if (options.runs < 1) return absl::InvalidArgumentError("runs must be at least 1");
  if (options.warmup < 0) return absl::InvalidArgumentError("warmup must not be negative");
  std::shared_ptr<TimeSource> clock = options.clock ? options.clock : DefaultTimeSource();
  std::unique_ptr<ProfileRunner> runner(new ProfileRunner(std::move(plan), inputs, options, std::move(clock)));
  if (absl::Status registered = runner->RegisterColumns(); !registered.ok()) return registered;
  return runner;
}

absl::Status ProfileRunner::RegisterColumns() {
  Report skeleton = OwnColumns(options_.memory);
  for (size_t i = 0; i < collectors_.size(); ++i) {
    declared_.push_back(collectors_[i]->Columns());
    const std::string who = absl::StrCat("collector ", i + 1, " of ", collectors_.size());
    if (absl::Status checked = CheckColumns(declared_.back(), who, skeleton); !checked.ok()) return checked;
  }
  return absl::OkStatus();
}

ProfileRunner::ProfileRunner(std::shared_ptr<const GraphPlan> plan, const std::vector<c10::IValue>& inputs,
                             const ProfileOptions& options, std::shared_ptr<TimeSource> clock)
    : inputs_(inputs), options_(options), clock_(clock), interpreter_(std::move(plan), clock) {
  if (options_.adaptive.enabled) {
    // Samples are preallocated for every run: at most ~20M node samples.
    const int64_t nodes = std::max<int64_t>(1, static_cast<int64_t>(interpreter_.plan().nodes().size()));
    options_.runs = static_cast<int>(std::min<int64_t>(
        options_.runs, std::max<int64_t>(options_.adaptive.min_runs, 20'000'000 / nodes)));
  }
  if (options_.node_progress) {
    interpreter_.SetNodeProgress([this](int64_t done) { options_.node_progress(done, nodes_per_run_); });
  }
  // Training steps: every forward is followed by a backward.
  if (options_.backward.enabled) {
    interpreter_.RecordSequences(true);
    backward_.emplace(interpreter_, clock_, options_.backward, options_.runs, options_.trace);
    collectors_.push_back(&*backward_);
  }
  collectors_.insert(collectors_.end(), options_.observers.begin(), options_.observers.end());
  for (const NodeObserver* collector : collectors_) {
    observes_nodes_ = observes_nodes_ || collector->ObservesNodes();
    gradients_ = gradients_ || collector->NeedsGradients();
  }
  timer_ = MeasureTimerCost(clock_, options_.trace, /*two_reads=*/observes_nodes_);
}

void ProfileRunner::Progress(const char* phase, int done, int total) const {
  if (options_.progress) options_.progress(phase, done, total);
}

// Every run gets its own copy of the inputs, made before the run's clock
// starts: a model that mutates its inputs sees the same values every time.
// The copy stays alive through the run (as a caller's inputs do for
// module.forward), so memory is freed where it is natively, and through the
// backward after it (which may free what forward saved of it); it is
// released when the next run's copy is made, outside timing and tracking.
absl::Status ProfileRunner::RunOnce(NodeObserver::Phase phase, int run, c10::IValue* output) {
  absl::StatusOr<std::vector<c10::IValue>> copied = CopyInputs(inputs_);
  if (!copied.ok()) return copied.status();
  fresh_ = *std::move(copied);
  if (options_.before_run) {
    if (absl::Status ready = options_.before_run(runs_started_); !ready.ok()) return ready;
  }
  ++runs_started_;
  for (NodeObserver* collector : collectors_) collector->BeforeForward(phase);
  std::optional<at::AutoGradMode> grad_mode;
  if (gradients_) grad_mode.emplace(true);
  absl::StatusOr<c10::IValue> result = interpreter_.Run(fresh_);
  if (!result.ok()) return result.status();
  for (NodeObserver* collector : collectors_) {
    if (absl::Status done = collector->AfterForward(phase, run, *result); !done.ok()) return done;
  }
  if (output != nullptr) *output = *std::move(result);
  return absl::OkStatus();
}

absl::Status ProfileRunner::Warmup() {
  Progress("warmup", 0, options_.warmup);  // starting
  for (int i = 0; i < options_.warmup; ++i) {
    absl::Status result = RunOnce(NodeObserver::Phase::kWarmup, i);
    if (!result.ok()) return Annotate(result, absl::StrCat("warm-up run ", i + 1));
    Progress("warmup", i + 1, options_.warmup);
  }
  return absl::OkStatus();
}

absl::Status ProfileRunner::Inspect() {
  interpreter_.BeginInspection(options_.memory);
  if (absl::Status inspected = RunOnce(NodeObserver::Phase::kInspection, 0); !inspected.ok()) return inspected;
  Progress("inspect", 1, 1);
  nodes_per_run_ = interpreter_.inspected_executions();

  // Trace events are preallocated (no allocation per node), up to a cap: a
  // long loop times many runs would not fit in memory; the rest are counted
  // as dropped.
  trace_wanted_ = static_cast<size_t>(interpreter_.inspected_executions()) * options_.runs + 64;
  trace_capacity_ = options_.trace ? std::min(trace_wanted_, options_.max_trace_events) : 0;
  for (NodeObserver* collector : collectors_) {
    absl::Status prepared =
        collector->Prepare(interpreter_.plan(), options_.runs, interpreter_.inspected_executions());
    if (!prepared.ok()) return prepared;
    if (collector->ObservesNodes()) interpreter_.AddObserver(collector);
  }
  interpreter_.BeginTimedRuns(options_.runs, trace_capacity_);
  Progress("timed", 0, options_.runs);  // starting
  return absl::OkStatus();
}

absl::Status ProfileRunner::TimedRun(c10::IValue* output) {
  if (timed_done_ >= options_.runs) {
    return absl::FailedPreconditionError(absl::StrCat("all ", options_.runs, " timed runs are done"));
  }
  const int i = timed_done_;
  absl::Status result = RunOnce(NodeObserver::Phase::kTimed, i, output);
  if (!result.ok()) return Annotate(result, absl::StrCat("timed run ", i + 1));
  ++timed_done_;
  Progress("timed", timed_done_, options_.runs);
  return absl::OkStatus();
}

bool ProfileRunner::Converged(double width, std::vector<std::string>* wide) const {
  const int runs = interpreter_.completed_runs();
  auto narrow = [&](const std::vector<double>& values) {
    const Shift interval = MedianInterval(values);
    return interval.bounded() && interval.estimate > 0 && (interval.high - interval.low) / interval.estimate <= width;
  };
  std::vector<double> totals(interpreter_.run_ns().begin(), interpreter_.run_ns().end());
  bool all = narrow(totals);
  if (!all && wide != nullptr) wide->push_back("the run");
  // Top-level nodes by mean time, until they hold 80% of the run.
  const GraphPlan& plan = interpreter_.plan();
  std::vector<std::pair<double, int>> by_time;
  double sum = 0;
  for (int id : plan.root().nodes) {
    double node_sum = 0;
    for (int r = 0; r < runs; ++r) node_sum += static_cast<double>(interpreter_.sample(r, id).total);
    by_time.emplace_back(node_sum, id);
    sum += node_sum;
  }
  std::sort(by_time.rbegin(), by_time.rend());
  double held = 0;
  for (const auto& [node_sum, id] : by_time) {
    if (held >= 0.8 * sum) break;
    held += node_sum;
    std::vector<double> values;
    for (int r = 0; r < runs; ++r) values.push_back(static_cast<double>(interpreter_.sample(r, id).total));
    if (!narrow(values)) {
      all = false;
      if (wide != nullptr) wide->push_back(plan.node(id).identity.label);
    }
  }
  return all;
}

absl::StatusOr<Report> ProfileRunner::Snapshot() const {
  if (!collectors_.empty()) {
    return absl::FailedPreconditionError("a report of the runs so far has no collectors' values (observers, training steps)");
  }
  Report report = TimedRunsReport();
  report.Finalize();
  return report;
}

Report ProfileRunner::TimedRunsReport() const {
  return BuildReport(interpreter_, options_.warmup, timer_, options_.compensate && !observes_nodes_);
}

absl::StatusOr<Report> ProfileRunner::Finish() {
  interpreter_.EndRecording();
  Report report = TimedRunsReport();
  for (size_t i = 0; i < collectors_.size(); ++i) {
    absl::StatusOr<Collected> collected = collectors_[i]->Collect(report.runs);
    if (!collected.ok()) return collected.status();
    if (absl::Status inserted = InsertCollected(declared_[i], *std::move(collected), report); !inserted.ok()) {
      return inserted;
    }
  }
  report.Finalize();  // once, every collector's values in
  for (const Interpreter::RaisedWarning& warning : interpreter_.warnings()) {
    const NodeIdentity& id = report.nodes[warning.node].identity;
    report.notes.push_back(absl::StrCat("warning raised by node ", warning.node, " ", id.label,
                                        id.source.empty() ? "" : absl::StrCat(" (", id.source, ")"), ": ",
                                        warning.message));
  }
  if (report.dropped_events > 0) {
    report.notes.push_back(absl::StrCat("the trace keeps the first ", trace_capacity_, " node executions of ",
                                        trace_wanted_ - 64, " (max_trace_events); ", report.dropped_events,
                                        " were not recorded"));
  }
  return report;
}

}  // namespace graphprof
