#include "profilers/before_after.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "common/status_util.h"
#include "interpreter/graph_plan.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"
#include "profilers/autograd/training_step.h"
#include "profilers/profile_runner.h"
#include "profilers/verification/reference_check.h"
#include "profilers/verification/verify.h"
#include "profilers/report/merge.h"

namespace graphprof {
namespace {

absl::StatusOr<std::shared_ptr<const GraphPlan>> PlanVariant(const torch::jit::Module& module,
                                                             const std::vector<Pass>& passes,
                                                             const BeforeAfterOptions& options, std::string* applied) {
  PrepareOptions prepare;
  prepare.method = options.method;
  prepare.passes = passes;
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module, prepare);
  if (!prepared.ok()) return prepared.status();
  *applied = prepared->passes;
  return GraphPlan::Build(*std::move(prepared), options.profile.plan);
}

const char* kA = "A (as given)";

std::string BName(const std::vector<Pass>& passes) { return absl::StrCat("B (after ", DescribePasses(passes), ")"); }

// A's and B's timed runs alternate in ABBA blocks after both warmed up and
// were inspected; with copies, copy k of A and copy k of B form each pair,
// the copies taking turns (A0 B0 B1 A1 A2 B2 B0 A0 ...).
absl::Status RunInterleaved(absl::Span<const std::unique_ptr<SideRunner>> a,
                            absl::Span<const std::unique_ptr<SideRunner>> b, const std::string& b_name,
                            const ProfileOptions::Adaptive& adaptive, c10::IValue* a_output, c10::IValue* b_output,
                            std::string* stopped_why) {
  for (const auto& r : a) {
    if (absl::Status s = r->Warmup(); !s.ok()) return Annotate(s, kA);
  }
  for (const auto& r : b) {
    if (absl::Status s = r->Warmup(); !s.ok()) return Annotate(s, b_name);
  }
  for (const auto& r : a) {
    if (absl::Status s = r->Inspect(); !s.ok()) return Annotate(s, kA);
  }
  for (const auto& r : b) {
    if (absl::Status s = r->Inspect(); !s.ok()) return Annotate(s, b_name);
  }
  auto step = [&](SideRunner& r, c10::IValue* output, const std::string& name) -> absl::Status {
    if (r.timed_runs_done() >= r.timed_runs_wanted()) return absl::OkStatus();
    // --runs=auto may stop after any block: every run's output is kept (the
    // previous one is released after the next run, as `out = model(x)` in a
    // loop does), so the last run's is there to verify.
    const bool last = adaptive.enabled || r.timed_runs_done() + 1 == r.timed_runs_wanted();
    absl::Status s = r.TimedRun(last ? output : nullptr);
    return s.ok() ? s : Annotate(s, name);
  };
  auto pending = [&] {
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k]->timed_runs_done() < a[k]->timed_runs_wanted() || b[k]->timed_runs_done() < b[k]->timed_runs_wanted()) {
        return true;
      }
    }
    return false;
  };
  const auto start = std::chrono::steady_clock::now();
  int pair = 0;
  for (int block = 0; pending(); ++block) {
    for (size_t k = 0; k < a.size(); ++k, ++pair) {
      const bool a_first = pair % 2 == 0;
      if (absl::Status s = a_first ? step(*a[k], a_output, kA) : step(*b[k], b_output, b_name); !s.ok()) {
        return s;
      }
      if (absl::Status s = a_first ? step(*b[k], b_output, b_name) : step(*a[k], a_output, kA); !s.ok()) {
        return s;
      }
    }
    // --runs=auto (one copy): the budget is checked after every ABBA unit (so
    // the sides stay balanced), the intervals every few units past min_runs.
    if (!adaptive.enabled || block % 2 != 1) continue;
    const int done = std::min(a[0]->timed_runs_done(), b[0]->timed_runs_done());
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent >= adaptive.max_time_s) {
      *stopped_why = absl::StrFormat("when the time budget (%.3g s) was spent", adaptive.max_time_s);
      if (done < adaptive.min_runs) absl::StrAppend(stopped_why, ", before ", adaptive.min_runs, " runs a side");
      break;
    }
    if (done >= adaptive.min_runs && (done - adaptive.min_runs) % 6 == 0 && a[0]->Converged(adaptive.width, nullptr) &&
        b[0]->Converged(adaptive.width, nullptr)) {
      *stopped_why = absl::StrFormat(
          "when, on both sides, the 95%% intervals of the median run time and of the top-level nodes holding 80%% of "
          "it were each narrower than %.3g%% of their median",
          100 * adaptive.width);
      break;
    }
  }
  return absl::OkStatus();
}

const char* CopiesNote() {
  return "separately prepared copies (own weights, plan and runner), its timed runs spread over them: the diff takes "
         "the copies as its unit of variation";
}

// One side's copies of a module: cloned (its own weights) when there are
// several, each planned with the side's passes.
absl::StatusOr<std::vector<std::shared_ptr<const GraphPlan>>> PlanCopies(const torch::jit::Module& module,
                                                                         const std::vector<Pass>& passes, int copies,
                                                                         const BeforeAfterOptions& options,
                                                                         std::string* applied) {
  std::vector<std::shared_ptr<const GraphPlan>> plans;
  for (int k = 0; k < copies; ++k) {
    absl::StatusOr<torch::jit::Module> copy = module;
    if (copies > 1) copy = ApplyPasses(module, {}, options.method);  // a clone
    if (!copy.ok()) return copy.status();
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = PlanVariant(*copy, passes, options, applied);
    if (!plan.ok()) return plan.status();
    plans.push_back(*std::move(plan));
  }
  return plans;
}

// One runner per plan of a side, copy k getting copy k's share of the runs.
absl::StatusOr<std::vector<std::unique_ptr<SideRunner>>> MakeRunners(
    const std::vector<std::shared_ptr<const GraphPlan>>& plans, const std::vector<c10::IValue>& inputs,
    const ProfileOptions& side) {
  std::vector<std::unique_ptr<SideRunner>> runners;
  const int copies = static_cast<int>(plans.size());
  for (int k = 0; k < copies; ++k) {
    absl::StatusOr<std::unique_ptr<ProfileRunner>> runner =
        ProfileRunner::Create(plans[k], inputs, CopyProfile(side, copies, k));
    if (!runner.ok()) return runner.status();
    runners.push_back(*std::move(runner));
  }
  return runners;
}

// A side's report: its copies' reports merged as run sources of this
// process (the diff compares the copies, unpaired); the trace events are
// copy 1's, whose runs come first.
absl::StatusOr<Report> FinishSide(absl::Span<const std::unique_ptr<SideRunner>> runners, const std::string& side) {
  std::vector<Report> reports;
  for (const auto& runner : runners) {
    absl::StatusOr<Report> report = runner->Finish();
    if (!report.ok()) return report.status();
    reports.push_back(*std::move(report));
  }
  if (reports.size() == 1) return std::move(reports[0]);
  std::vector<TraceEvent> events = std::move(reports[0].events);
  std::vector<DeviceEvent> device_events = std::move(reports[0].device_events);
  std::vector<TraceEvent> backward_events = std::move(reports[0].backward_events);
  const int64_t dropped = reports[0].dropped_events;
  // Module::clone mangles class names (__torch__.___torch_mangle_3.Net),
  // which the graph hash includes: the copies are one graph by construction.
  for (Report& r : reports) r.graph_hash = reports[0].graph_hash;
  ReportMerger merger;
  merger.Expect(static_cast<int>(reports.size()));
  for (size_t k = 0; k < reports.size(); ++k) {
    if (absl::Status added = merger.Add(std::move(reports[k]), absl::StrCat(side, " copy ", k + 1)); !added.ok()) {
      return added;
    }
  }
  absl::StatusOr<Report> merged = merger.Finish();
  if (!merged.ok()) return merged.status();
  merged->events = std::move(events);
  merged->device_events = std::move(device_events);
  merged->backward_events = std::move(backward_events);
  merged->dropped_events = dropped;
  return merged;
}

}  // namespace

namespace {

// The run times in the order they ran. Sources of different processes
// (--workers) ran one after another; consecutive sources of one process are
// --ab's copies, which took turns run by run.
std::vector<int64_t> RunsInTimeOrder(const Report& report) {
  const std::vector<int64_t>& runs = report.run_ns();
  const std::vector<RunSource>& sources = report.run_sources;
  if (sources.size() < 2) return runs;
  std::vector<int64_t> ordered;
  ordered.reserve(runs.size());
  for (size_t group = 0; group < sources.size();) {
    size_t end = group + 1;
    while (end < sources.size() && sources[end].process == sources[group].process) ++end;
    for (int k = 0;; ++k) {
      bool any = false;
      for (size_t s = group; s < end; ++s) {
        const int run = sources[s].first_run + k;
        if (k < sources[s].runs && run < static_cast<int>(runs.size())) {
          ordered.push_back(runs[run]);
          any = true;
        }
      }
      if (!any) break;
    }
    group = end;
  }
  return ordered;
}

// Both sides' runners run interleaved (RunInterleaved), then each side's
// report is made (FinishSide), noted with its copies and --runs=auto's stop.
absl::Status RunAndFinishSides(absl::Span<const std::unique_ptr<SideRunner>> a,
                               absl::Span<const std::unique_ptr<SideRunner>> b, const std::string& b_name,
                               const BeforeAfterOptions& options, c10::IValue* a_output, c10::IValue* b_output,
                               BeforeAfter& result) {
  std::string stopped_why = "at the most runs";
  if (absl::Status run = RunInterleaved(a, b, b_name, options.profile.adaptive, a_output, b_output, &stopped_why);
      !run.ok()) {
    return run;
  }
  absl::StatusOr<Report> before = FinishSide(a, "A");
  if (!before.ok()) return Annotate(before.status(), kA);
  absl::StatusOr<Report> after = FinishSide(b, "B");
  if (!after.ok()) return Annotate(after.status(), b_name);
  result.before = *std::move(before);
  result.after = *std::move(after);
  result.order = "ABBA";
  if (a.size() > 1) {
    const std::string note = absl::StrCat("each side ran on ", a.size(), " ", CopiesNote());
    result.before.notes.push_back(note);
    result.after.notes.push_back(note);
  }
  if (options.profile.adaptive.enabled) {
    const std::string note = absl::StrCat("--runs=auto: ", result.before.runs, " timed runs a side, stopped ", stopped_why);
    result.before.notes.push_back(note);
    result.after.notes.push_back(note);
  }
  return absl::OkStatus();
}

// Training steps: each side's gradients against one native step of the
// module as given (the copies are clones of it: the same parameters, in the
// same order, with the same values). A is the module itself: identical; B
// after passes within the tolerance.
absl::Status VerifySidesGradients(const torch::jit::Module& module, const BeforeAfterOptions& options,
                                  const std::vector<c10::IValue>& inputs, bool transformed,
                                  const c10::optional<c10::IValue>& a_self, const c10::optional<c10::IValue>& b_self,
                                  BeforeAfter& result) {
  const std::string reference = absl::StrCat("module.", options.method, " + backward");
  auto native = [&](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
    absl::StatusOr<std::vector<c10::IValue>> copied = CopyInputs(in);
    if (!copied.ok()) return copied.status();
    try {
      return torch::jit::Module(module).get_method(options.method)(*std::move(copied));
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", options.method), e);
    }
  };
  const c10::optional<c10::IValue> native_self = module._ivalue();
  absl::StatusOr<Verification> a =
      VerifyGradients(a_self, native_self, options.profile.backward, native, inputs, 0, 0, reference);
  if (!a.ok()) return Annotate(a.status(), kA);
  SetGradientVerification(result.before, *std::move(a));
  absl::StatusOr<Verification> b = VerifyGradients(b_self, native_self, options.profile.backward, native, inputs,
                                                   transformed ? options.rtol : 0, transformed ? options.atol : 0,
                                                   reference);
  if (!b.ok()) return Annotate(b.status(), "B");
  SetGradientVerification(result.after, *std::move(b));
  return absl::OkStatus();
}

// Both sides' outputs against native `module.method`: A must be identical,
// B (`transformed`: after passes, or another graph of the model) within the
// tolerance passes get (a float64 run of the module, or rtol/atol).
absl::Status VerifySidesOutputs(const torch::jit::Module& module, const BeforeAfterOptions& options,
                                const std::vector<c10::IValue>& inputs, const c10::IValue& a_output,
                                const c10::IValue& b_output, bool transformed, BeforeAfter& result) {
  c10::IValue expected;
  try {
    expected = torch::jit::Module(module).get_method(options.method)(DeepCopy(inputs));
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", options.method), e);
  }
  OutputCheck check;
  check.reference = absl::StrCat("module.", options.method);
  check.rtol = options.rtol;
  check.atol = options.atol;
  check.float64_reference = options.float64_reference;
  result.before.verification = CheckOutput(expected, a_output, check);
  check.transformed = transformed;
  result.after.verification = CheckOutput(expected, b_output, check, &module, options.method, inputs);
  return absl::OkStatus();
}

}  // namespace

ProfileOptions CopyProfile(const ProfileOptions& side, int copies, int k) {
  ProfileOptions profile = side;
  profile.runs = side.runs / copies + (k < side.runs % copies ? 1 : 0);
  return profile;
}

int CopiesPerSide(const BeforeAfterOptions& options) {
  if (!options.interleave || !options.profile.observers.empty() || options.profile.adaptive.enabled) return 1;
  return std::max(1, std::min(options.copies, options.profile.runs));
}

Drift MeasureDrift(const Report& report, const VerdictOptions& options) {
  const std::vector<int64_t> runs = RunsInTimeOrder(report);
  const size_t half = runs.size() / 2;
  const std::vector<double> first(runs.begin(), runs.begin() + half);
  const std::vector<double> second(runs.end() - half, runs.end());
  Drift drift;
  drift.halves = CompareRow(RowSample{first, {}, true}, RowSample{second, {}, true}, NoiseModel::kRuns, 0, options);
  RowComparison* one[] = {&drift.halves};
  DecideVerdicts(one, options);
  return drift;
}

std::string DescribeDrift(const BeforeAfter& ab) {
  return absl::StrCat("drift (second half of the timed runs against the first): A ",
                      FormatChange(ab.before_drift.halves), ", B ", FormatChange(ab.after_drift.halves));
}

absl::StatusOr<BeforeAfter> ProfileBeforeAfter(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                               const std::vector<c10::IValue>& inputs,
                                               const BeforeAfterOptions& options) {
  BeforeAfter result;
  c10::IValue a_output, b_output;
  std::string a_applied, b_applied;
  // The modules the sides' (first copies') last timed runs left their
  // gradients on: training steps compare them with native backward.
  c10::optional<c10::IValue> a_self, b_self;
  const bool interleave = options.interleave && options.profile.observers.empty();
  if (interleave) {
    if (options.copies < 1) return absl::InvalidArgumentError("copies must be at least 1");
    const int copies = CopiesPerSide(options);
    absl::StatusOr<std::vector<std::shared_ptr<const GraphPlan>>> a_plans =
        PlanCopies(module, {}, copies, options, &a_applied);
    if (!a_plans.ok()) return Annotate(a_plans.status(), kA);
    absl::StatusOr<std::vector<std::shared_ptr<const GraphPlan>>> b_plans =
        PlanCopies(module, passes, copies, options, &b_applied);
    if (!b_plans.ok()) return Annotate(b_plans.status(), BName(passes));
    absl::StatusOr<std::vector<std::unique_ptr<SideRunner>>> a = MakeRunners(*a_plans, inputs, options.profile);
    if (!a.ok()) return Annotate(a.status(), kA);
    absl::StatusOr<std::vector<std::unique_ptr<SideRunner>>> b = MakeRunners(*b_plans, inputs, options.profile);
    if (!b.ok()) return Annotate(b.status(), BName(passes));
    if (absl::Status run = RunAndFinishSides(*a, *b, BName(passes), options, &a_output, &b_output, result); !run.ok()) {
      return run;
    }
    a_self = (*a_plans)[0]->self();
    b_self = (*b_plans)[0]->self();
  } else {
    absl::StatusOr<std::shared_ptr<const GraphPlan>> a_plan = PlanVariant(module, {}, options, &a_applied);
    if (!a_plan.ok()) return Annotate(a_plan.status(), kA);
    absl::StatusOr<std::shared_ptr<const GraphPlan>> b_plan = PlanVariant(module, passes, options, &b_applied);
    if (!b_plan.ok()) return Annotate(b_plan.status(), BName(passes));
    absl::StatusOr<Report> before = Profile(*a_plan, inputs, options.profile, &a_output);
    if (!before.ok()) return Annotate(before.status(), kA);
    absl::StatusOr<Report> after = Profile(*b_plan, inputs, options.profile, &b_output);
    if (!after.ok()) return Annotate(after.status(), BName(passes));
    result.before = *std::move(before);
    result.after = *std::move(after);
    result.order = "AB";
    a_self = (*a_plan)->self();
    b_self = (*b_plan)->self();
  }
  result.after.passes = b_applied;
  if (!b_applied.empty()) result.after.notes.push_back(absl::StrCat("passes applied: ", b_applied));
  result.before_drift = MeasureDrift(result.before, options.diff.verdict);
  result.after_drift = MeasureDrift(result.after, options.diff.verdict);
  const std::string order_note =
      interleave ? "timed runs interleaved with the other side's in ABBA blocks (A B B A ...), after both warmed up"
                 : "timed runs after all of the other side's (observers serve one session at a time)";
  for (Report* r : {&result.before, &result.after}) {
    r->notes.push_back(order_note);
    r->notes.push_back(DescribeDrift(result));
  }
  if (options.verify) {
    // No pass: B is the module as given too, and must be identical.
    if (absl::Status checked = VerifySidesOutputs(module, options, inputs, a_output, b_output, !passes.empty(), result);
        !checked.ok()) {
      return checked;
    }
    if (options.profile.backward.enabled) {
      if (absl::Status checked = VerifySidesGradients(module, options, inputs, !passes.empty(), a_self, b_self, result);
          !checked.ok()) {
        return checked;
      }
    }
  }
  result.diff = DiffReports(result.before, result.after, options.diff);
  return result;
}

absl::StatusOr<BeforeAfter> ProfileTwoPlans(std::vector<std::shared_ptr<const GraphPlan>> a_plans,
                                            std::vector<std::shared_ptr<const GraphPlan>> b_plans,
                                            const std::string& b_name, const std::vector<c10::IValue>& inputs,
                                            const BeforeAfterOptions& options, c10::IValue* a_output,
                                            c10::IValue* b_output) {
  if (a_plans.empty() || a_plans.size() != b_plans.size()) {
    return absl::InvalidArgumentError(absl::StrCat("two sides need the same number of plans, at least 1 (A has ",
                                                   a_plans.size(), ", B ", b_plans.size(), ")"));
  }
  const int copies = static_cast<int>(a_plans.size());
  if (copies > 1 && options.profile.adaptive.enabled) {
    return absl::InvalidArgumentError("--runs=auto runs one copy a side");
  }
  if (copies > 1 && copies > options.profile.runs) {
    return absl::InvalidArgumentError(
        absl::StrCat(copies, " copies a side need at least as many timed runs (--runs=", options.profile.runs, ")"));
  }
  absl::StatusOr<std::vector<std::unique_ptr<SideRunner>>> a = MakeRunners(a_plans, inputs, options.profile);
  if (!a.ok()) return Annotate(a.status(), kA);
  absl::StatusOr<std::vector<std::unique_ptr<SideRunner>>> b = MakeRunners(b_plans, inputs, options.profile);
  if (!b.ok()) return Annotate(b.status(), b_name);
  return ProfileTwoSides(*std::move(a), *std::move(b), b_name, options, a_output, b_output);
}

absl::StatusOr<BeforeAfter> ProfileTwoSides(std::vector<std::unique_ptr<SideRunner>> a,
                                            std::vector<std::unique_ptr<SideRunner>> b, const std::string& b_name,
                                            const BeforeAfterOptions& options, c10::IValue* a_output,
                                            c10::IValue* b_output) {
  if (a.empty() || a.size() != b.size()) {
    return absl::InvalidArgumentError(absl::StrCat("two sides need the same number of copies, at least 1 (A has ",
                                                   a.size(), ", B ", b.size(), ")"));
  }
  BeforeAfter result;
  if (absl::Status run = RunAndFinishSides(a, b, b_name, options, a_output, b_output, result); !run.ok()) {
    return run;
  }
  result.before_drift = MeasureDrift(result.before, options.diff.verdict);
  result.after_drift = MeasureDrift(result.after, options.diff.verdict);
  for (Report* r : {&result.before, &result.after}) {
    r->notes.push_back("timed runs interleaved with the other side's in ABBA blocks (A B B A ...), after both warmed up");
    r->notes.push_back(DescribeDrift(result));
  }
  result.diff = DiffReports(result.before, result.after, options.diff);
  return result;
}

absl::StatusOr<BeforeAfter> ProfileAgainstGraph(const torch::jit::Module& module,
                                                std::vector<std::shared_ptr<const GraphPlan>> others,
                                                const std::string& other_name, const std::vector<c10::IValue>& inputs,
                                                const BeforeAfterOptions& options) {
  // As many copies of the module as of the other graph.
  std::string a_applied;
  absl::StatusOr<std::vector<std::shared_ptr<const GraphPlan>>> a_plans =
      PlanCopies(module, {}, static_cast<int>(others.size()), options, &a_applied);
  if (!a_plans.ok()) return Annotate(a_plans.status(), kA);
  c10::IValue a_output, b_output;
  absl::StatusOr<BeforeAfter> result =
      ProfileTwoPlans(*std::move(a_plans), std::move(others), other_name, inputs, options, &a_output, &b_output);
  if (!result.ok() || !options.verify) return result;
  // Another graph of the same model: its rounding may differ, judged as
  // after passes.
  if (absl::Status checked = VerifySidesOutputs(module, options, inputs, a_output, b_output, true, *result);
      !checked.ok()) {
    return checked;
  }
  return result;
}

}  // namespace graphprof
