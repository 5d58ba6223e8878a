#include "profilers/compiled/compiled_profile.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/compiled/scope_recorder.h"
#include "profilers/report/rank_test.h"

namespace graphprof {
namespace {

// Scopes one run may record beyond its kernels (ATen operators reached
// through the dispatcher by extern calls) before the rest are counted.
constexpr size_t kExtraScopes = 4096;
// --runs=auto: looks after min_runs, then every kLookEvery runs.
constexpr int kLookEvery = 5;

absl::Status Refuse(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is not measured in a compiled program (its nodes do not run one by one)"));
}

// --runs=auto: why to stop after the timed runs so far (the profiler's
// rule for the run time alone, or the caller's `stop`), or "".
std::string StopReason(const ProfileOptions::Adaptive& adaptive, const Report& so_far, double seconds) {
  if (seconds >= adaptive.max_time_s) return absl::StrFormat("the time budget (%.3g s) is spent", adaptive.max_time_s);
  const std::vector<int64_t>& run_ns = so_far.columns[0].run_total;
  const int done = static_cast<int>(run_ns.size());
  if (done < adaptive.min_runs || (done - adaptive.min_runs) % kLookEvery != 0) return "";
  if (adaptive.stop) {
    Report snapshot = so_far;
    snapshot.runs = done;
    snapshot.Finalize();
    return adaptive.stop(snapshot).value_or("");
  }
  const std::vector<double> values(run_ns.begin(), run_ns.end());
  const Shift median = MedianInterval(values);
  if (!median.bounded() || median.estimate <= 0) return "";
  if ((median.high - median.low) / median.estimate > adaptive.width) return "";
  return absl::StrFormat("the 95%% interval of the median run time was narrower than %.3g%% of it",
                         100 * adaptive.width);
}

Report Skeleton(const CompiledPlan& plan, int warmup) {
  Report report;
  report.process = ProcessIdentity();
  report.report_id = NewReportId();
  report.clock = "steady_clock";
  report.warmup = warmup;
  report.ir = plan.ir();
  report.graph_hash = GraphHash(report.ir);
  for (const CompiledRow& row : plan.rows()) {
    NodeRecord node;
    node.identity = row.identity;
    report.FitNode(node);
    report.nodes.push_back(std::move(node));
  }
  return report;
}

}  // namespace

absl::StatusOr<Report> ProfileCompiled(CompiledProgram& program, const std::vector<c10::IValue>& inputs,
                                       const ProfileOptions& options, c10::IValue* output) {
  if (!options.observers.empty()) return Refuse("device time per node (observers)");
  if (options.backward.enabled) return Refuse("a training step (--backward)");
  if (options.runs < 1) return absl::InvalidArgumentError("at least one timed run is needed");
  const CompiledPlan& plan = program.plan();
  Report report = Skeleton(plan, options.warmup);
  at::NoGradGuard no_grad;

  auto run = [&](const char* phase, int k, c10::IValue* out, ScopeRecorder* recorder, int64_t* start,
                 int64_t* end) -> absl::Status {
    absl::StatusOr<std::vector<c10::IValue>> fresh = CopyInputs(inputs);
    if (!fresh.ok()) return fresh.status();
    if (recorder != nullptr) recorder->Clear();
    const int64_t t0 = ScopeRecorder::Now();
    absl::StatusOr<c10::IValue> result = program.Run(*fresh);
    const int64_t t1 = ScopeRecorder::Now();
    if (!result.ok()) return Annotate(result.status(), absl::StrCat(phase, " run ", k + 1));
    if (start != nullptr) *start = t0;
    if (end != nullptr) *end = t1;
    if (out != nullptr) *out = *std::move(result);
    return absl::OkStatus();
  };

  if (options.progress) options.progress("warmup", 0, options.warmup);
  for (int w = 0; w < options.warmup; ++w) {
    if (absl::Status done = run("warm-up", w, nullptr, nullptr, nullptr, nullptr); !done.ok()) return done;
    if (options.progress) options.progress("warmup", w + 1, options.warmup);
  }

  size_t kernels = 0;
  for (const CompiledRow& row : plan.rows()) kernels += row.generated ? 1 : 0;
  ScopeRecorder recorder(kernels + kExtraScopes, plan.kernel_scopes());
  std::vector<int64_t> row_ns(plan.rows().size());
  std::vector<CompiledPlan::Span> spans;
  spans.reserve(plan.rows().size());
  if (options.trace) {
    report.events.reserve(std::min(options.max_trace_events, plan.rows().size() * options.runs));
  }
  Column& time = report.columns[0];
  int64_t first_start = 0, dropped = 0;
  std::string stopped;
  recorder.Start();
  for (int k = 0; k < options.runs; ++k) {
    int64_t start = 0, end = 0;
    c10::IValue out;
    absl::Status done = run("timed", k, &out, &recorder, &start, &end);
    if (done.ok()) {
      std::fill(row_ns.begin(), row_ns.end(), 0);
      int64_t unattributed = 0;
      done = plan.Attribute(recorder.scopes(), start, end, row_ns, unattributed, options.trace ? &spans : nullptr);
      if (!done.ok()) done = Annotate(done, absl::StrCat("timed run ", k + 1));
    }
    if (!done.ok()) {
      recorder.Stop();
      return done;
    }
    if (k == 0) first_start = start;
    dropped += recorder.dropped();
    if (options.trace) {
      for (const CompiledPlan::Span& span : spans) {
        if (report.events.size() == options.max_trace_events) {
          ++report.dropped_events;
          continue;
        }
        report.events.push_back(TraceEvent{span.row, k, span.start_ns - first_start, span.duration_ns});
      }
    }
    time.run_total.push_back(end - start);
    report.run_start_ns.push_back(start - first_start);
    for (size_t r = 0; r < row_ns.size(); ++r) {
      report.nodes[r].metrics[0].total.push_back(row_ns[r]);
      report.nodes[r].calls.push_back(static_cast<int64_t>(plan.rows()[r].calls.size()));
    }
    if (output != nullptr) *output = std::move(out);
    if (options.progress) options.progress("timed", k + 1, options.runs);
    if (options.adaptive.enabled) {
      stopped = StopReason(options.adaptive, report, (ScopeRecorder::Now() - first_start) / 1e9);
      if (!stopped.empty()) break;
    }
  }
  recorder.Stop();
  report.runs = static_cast<int>(time.run_total.size());
  if (options.adaptive.enabled) {
    if (stopped.empty()) stopped = absl::StrCat("the most runs (", options.runs, ")");
    report.notes.push_back(absl::StrCat("--runs=auto: ", report.runs, " timed runs, stopped when ", stopped));
  }
  if (options.memory) {
    report.notes.push_back("memory per node is not measured in a compiled program (its kernels write buffers the "
                           "wrapper allocates for many of them)");
  }
  if (dropped > 0) {
    report.notes.push_back(absl::StrCat(dropped, " scopes of the timed runs did not fit the recorder's buffer and were "
                                        "not seen: the stretches holding them are still timed"));
  }
  report.Finalize();
  return report;
}

}  // namespace graphprof
