#include "profilers/compiled/compiled_profile.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/memory_tracker.h"
#include "profilers/report/rank_test.h"

namespace graphprof {
namespace {

// Kernel scopes one run may record beyond the wrapper's kernel calls (none
// are expected: more is an error) before the rest are counted.
constexpr size_t kExtraScopes = 64;
// --runs=auto: looks after min_runs, then every kLookEvery runs.
constexpr int kLookEvery = 5;

absl::Status Refuse(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is not measured in a compiled program (its nodes do not run one by one)"));
}

size_t Kernels(const CompiledPlan& plan) {
  size_t kernels = 0;
  for (const CompiledRow& row : plan.rows()) kernels += row.generated ? 1 : 0;
  return kernels;
}

// --runs=auto: why to stop after the timed runs so far (the profiler's
// rule for the run time alone, or the caller's `stop`), or "".
std::string StopReason(const ProfileOptions::Adaptive& adaptive, const CompiledRunner& runner, double seconds) {
  if (seconds >= adaptive.max_time_s) return absl::StrFormat("the time budget (%.3g s) is spent", adaptive.max_time_s);
  const int done = runner.timed_runs_done();
  if (done < adaptive.min_runs || (done - adaptive.min_runs) % kLookEvery != 0) return "";
  if (adaptive.stop) return adaptive.stop(runner.Snapshot()).value_or("");
  if (!runner.Converged(adaptive.width, nullptr)) return "";
  return absl::StrFormat("the 95%% interval of the median run time was narrower than %.3g%% of it",
                         100 * adaptive.width);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledRunner>> CompiledRunner::Create(CompiledProgram& program,
                                                                       const std::vector<c10::IValue>& inputs,
                                                                       const ProfileOptions& options) {
  if (!options.observers.empty()) return Refuse("device time per node (observers)");
  if (options.backward.enabled) return Refuse("a training step (--backward)");
  if (options.runs < 1) return absl::InvalidArgumentError("at least one timed run is needed");
  return std::unique_ptr<CompiledRunner>(new CompiledRunner(program, inputs, options));
}

CompiledRunner::CompiledRunner(CompiledProgram& program, const std::vector<c10::IValue>& inputs,
                               const ProfileOptions& options)
    : program_(program),
      inputs_(inputs),
      options_(options),
      recorder_(Kernels(program.plan()) + kExtraScopes, program.plan().kernel_scopes()),
      row_ns_(program.plan().rows().size()) {
  const CompiledPlan& plan = program.plan();
  spans_.reserve(plan.rows().size());
  report_.process = ProcessIdentity();
  report_.report_id = NewReportId();
  report_.clock = "steady_clock";
  report_.warmup = options.warmup;
  report_.ir = plan.ir();
  report_.graph_hash = GraphHash(report_.ir);
  report_.columns[0].run_total.reserve(options.runs);
  report_.run_start_ns.reserve(options.runs);
  for (const CompiledRow& row : plan.rows()) {
    NodeRecord node;
    node.identity = row.identity;
    report_.FitNode(node);
    node.metrics[0].total.reserve(options.runs);
    node.calls.reserve(options.runs);
    report_.nodes.push_back(std::move(node));
  }
  if (options.trace) report_.events.reserve(std::min(options.max_trace_events, plan.rows().size() * options.runs));
}

absl::Status CompiledRunner::RunOnce(const char* phase, int k, c10::IValue* output, bool timed) {
  at::NoGradGuard no_grad;
  absl::StatusOr<std::vector<c10::IValue>> fresh = CopyInputs(inputs_);
  if (!fresh.ok()) return fresh.status();
  if (options_.before_run) {
    if (absl::Status ready = options_.before_run(runs_started_); !ready.ok()) return ready;
  }
  ++runs_started_;
  // The recorder on only while the program runs, off again however it ends.
  struct Recording {
    ScopeRecorder* recorder = nullptr;
    ~Recording() {
      if (recorder != nullptr) recorder->Stop();
    }
  } recording;
  if (timed) {
    recorder_.Clear();
    if (absl::Status started = recorder_.Start(); !started.ok()) return started;
    recording.recorder = &recorder_;
  }
  const int64_t start = ScopeRecorder::Now();
  absl::StatusOr<c10::IValue> result = program_.Run(*fresh);
  const int64_t end = ScopeRecorder::Now();
  if (timed) recorder_.Stop();
  if (!result.ok()) return Annotate(result.status(), absl::StrCat(phase, " run ", k + 1));
  if (output != nullptr) *output = *std::move(result);
  if (!timed) return absl::OkStatus();
  if (recorder_.dropped() > 0) {
    return absl::InternalError(absl::StrCat(phase, " run ", k + 1, ": the compiled model entered more than ",
                                            recorder_.scopes().size(),
                                            " kernel scopes (its wrapper calls fewer): not attributed"));
  }

  const CompiledPlan& plan = program_.plan();
  std::fill(row_ns_.begin(), row_ns_.end(), 0);
  int64_t unattributed = 0;  // the wrapper's own: 1 - coverage, not kept
  if (absl::Status cut = plan.Attribute(recorder_.scopes(), start, end, row_ns_, unattributed,
                                        options_.trace ? &spans_ : nullptr);
      !cut.ok()) {
    return Annotate(cut, absl::StrCat(phase, " run ", k + 1));
  }
  if (timed_done_ == 0) first_start_ = start;
  report_.columns[0].run_total.push_back(end - start);
  report_.run_start_ns.push_back(start - first_start_);
  for (size_t r = 0; r < row_ns_.size(); ++r) {
    report_.nodes[r].metrics[0].total.push_back(row_ns_[r]);
    report_.nodes[r].calls.push_back(static_cast<int64_t>(plan.rows()[r].calls.size()));
  }
  if (options_.trace) {
    for (const CompiledPlan::Span& span : spans_) {
      if (report_.events.size() == options_.max_trace_events) {
        ++report_.dropped_events;
        continue;
      }
      report_.events.push_back(TraceEvent{span.row, timed_done_, span.start_ns - first_start_, span.duration_ns});
    }
  }
  ++timed_done_;
  return absl::OkStatus();
}

absl::Status CompiledRunner::Warmup() {
  if (options_.progress) options_.progress("warmup", 0, options_.warmup);
  for (int w = 0; w < options_.warmup; ++w) {
    if (absl::Status done = RunOnce("warm-up", w, nullptr, /*timed=*/false); !done.ok()) return done;
    if (options_.progress) options_.progress("warmup", w + 1, options_.warmup);
  }
  return absl::OkStatus();
}

absl::Status CompiledRunner::Inspect() {
  if (!options_.memory) return absl::OkStatus();
  auto tracker = std::make_shared<MemoryTracker>();
  absl::StatusOr<c10::IValue> result;
  {
    at::NoGradGuard no_grad;
    // The inputs' copies made under the hook too (the run frees them: a
    // block LibTorch saw allocated before it had a hook makes it warn on
    // stderr), then not counted: the run's own allocations from here.
    ScopedMemoryTracking tracking(tracker);
    absl::StatusOr<std::vector<c10::IValue>> fresh = CopyInputs(inputs_);
    if (!fresh.ok()) return fresh.status();
    tracker->Reset();
    result = program_.Run(*fresh);
  }
  if (!result.ok()) return Annotate(result.status(), "memory run");
  MemorySummary memory;
  memory.peak_bytes = tracker->peak_bytes();
  memory.allocated_bytes = tracker->allocated_bytes();
  memory.freed_bytes = tracker->freed_bytes();
  memory.allocations = tracker->allocations();
  report_.memory = memory;
  return absl::OkStatus();
}

absl::Status CompiledRunner::TimedRun(c10::IValue* output) {
  if (absl::Status done = RunOnce("timed", timed_done_, output, /*timed=*/true); !done.ok()) return done;
  if (options_.progress) options_.progress("timed", timed_done_, options_.runs);
  return absl::OkStatus();
}

bool CompiledRunner::Converged(double width, std::vector<std::string>* wide) const {
  const std::vector<int64_t>& run_ns = report_.columns[0].run_total;
  const std::vector<double> values(run_ns.begin(), run_ns.end());
  const Shift median = MedianInterval(values);
  const bool narrow = median.bounded() && median.estimate > 0 && (median.high - median.low) / median.estimate <= width;
  if (!narrow && wide != nullptr) wide->push_back("the run");
  return narrow;
}

Report CompiledRunner::Snapshot() const {
  Report snapshot = report_;
  snapshot.runs = timed_done_;
  snapshot.Finalize();
  return snapshot;
}

absl::StatusOr<Report> CompiledRunner::Finish() {
  Report report = std::move(report_);
  report.runs = timed_done_;
  if (report.memory.has_value()) {
    report.notes.push_back("memory: the run's peak and allocations through LibTorch's CPU allocator, in one untimed "
                           "run, on the calling thread (the wrapper allocates every buffer there); not per row: the "
                           "wrapper allocates buffers for many kernels");
  }
  report.Finalize();
  return report;
}

absl::StatusOr<Report> ProfileCompiled(CompiledProgram& program, const std::vector<c10::IValue>& inputs,
                                       const ProfileOptions& options, c10::IValue* output) {
  absl::StatusOr<std::unique_ptr<CompiledRunner>> runner = CompiledRunner::Create(program, inputs, options);
  if (!runner.ok()) return runner.status();
  if (absl::Status warm = (*runner)->Warmup(); !warm.ok()) return warm;
  if (absl::Status inspected = (*runner)->Inspect(); !inspected.ok()) return inspected;
  std::string stopped;
  const int64_t start = ScopeRecorder::Now();
  for (int k = 0; k < options.runs; ++k) {
    if (absl::Status timed = (*runner)->TimedRun(output); !timed.ok()) return timed;
    if (options.adaptive.enabled) {
      stopped = StopReason(options.adaptive, **runner, (ScopeRecorder::Now() - start) / 1e9);
      if (!stopped.empty()) break;
    }
  }
  absl::StatusOr<Report> report = (*runner)->Finish();
  if (!report.ok()) return report;
  if (options.adaptive.enabled) {
    if (stopped.empty()) stopped = absl::StrCat("the most runs (", options.runs, ")");
    report->notes.push_back(absl::StrCat("--runs=auto: ", report->runs, " timed runs, stopped when ", stopped));
  }
  return report;
}

}  // namespace graphprof
