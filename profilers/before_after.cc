#include "profilers/before_after.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_util.h"
#include "interpreter/graph_plan.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"
#include "profilers/profile_runner.h"
#include "profilers/reference_check.h"

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
  return GraphPlan::Build(*std::move(prepared));
}

const char* kA = "A (as given)";

std::string BName(const std::vector<Pass>& passes) { return absl::StrCat("B (after ", DescribePasses(passes), ")"); }

// A's and B's timed runs alternate in ABBA blocks after both warmed up and
// were inspected.
absl::Status RunInterleaved(ProfileRunner& a, ProfileRunner& b, const std::vector<Pass>& passes,
                            const ProfileOptions::Adaptive& adaptive, c10::IValue* a_output, c10::IValue* b_output,
                            std::string* stopped_why) {
  if (absl::Status s = a.Warmup(); !s.ok()) return Annotate(s, kA);
  if (absl::Status s = b.Warmup(); !s.ok()) return Annotate(s, BName(passes));
  if (absl::Status s = a.Inspect(); !s.ok()) return Annotate(s, kA);
  if (absl::Status s = b.Inspect(); !s.ok()) return Annotate(s, BName(passes));
  auto step = [&](ProfileRunner& r, c10::IValue* output, const std::string& name) -> absl::Status {
    if (r.timed_runs_done() >= r.timed_runs_wanted()) return absl::OkStatus();
    // --runs=auto may stop after any block: every run's output is kept (the
    // previous one is released after the next run, as `out = model(x)` in a
    // loop does), so the last run's is there to verify.
    const bool last = adaptive.enabled || r.timed_runs_done() + 1 == r.timed_runs_wanted();
    absl::Status s = r.TimedRun(last ? output : nullptr);
    return s.ok() ? s : Annotate(s, name);
  };
  const auto start = std::chrono::steady_clock::now();
  for (int block = 0; a.timed_runs_done() < a.timed_runs_wanted() || b.timed_runs_done() < b.timed_runs_wanted();
       ++block) {
    const bool a_first = block % 2 == 0;
    if (absl::Status s = a_first ? step(a, a_output, kA) : step(b, b_output, BName(passes)); !s.ok()) return s;
    if (absl::Status s = a_first ? step(b, b_output, BName(passes)) : step(a, a_output, kA); !s.ok()) return s;
    // --runs=auto: the budget is checked after every ABBA unit (so the sides
    // stay balanced), the intervals every few units past min_runs.
    if (!adaptive.enabled || block % 2 != 1) continue;
    const int done = std::min(a.timed_runs_done(), b.timed_runs_done());
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent >= adaptive.max_time_s) {
      *stopped_why = absl::StrFormat("when the time budget (%.3g s) was spent", adaptive.max_time_s);
      if (done < adaptive.min_runs) absl::StrAppend(stopped_why, ", before ", adaptive.min_runs, " runs a side");
      break;
    }
    if (done >= adaptive.min_runs && (done - adaptive.min_runs) % 6 == 0 && a.Converged(adaptive.width, nullptr) &&
        b.Converged(adaptive.width, nullptr)) {
      *stopped_why = "when both sides' intervals were narrow enough";
      break;
    }
  }
  return absl::OkStatus();
}

}  // namespace

Verification Verify(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol,
                    std::string reference) {
  const IValueComparison c = CompareIValues(expected, actual, rtol, atol);
  Verification v;
  v.identical = c.identical;
  v.within_tolerance = c.within_tolerance;
  v.max_abs_error = c.max_abs_error;
  v.max_rel_error = c.max_rel_error;
  v.rtol = rtol;
  v.atol = atol;
  v.detail = c.detail;
  v.reference = std::move(reference);
  return v;
}

Drift MeasureDrift(const Report& report, const VerdictOptions& options) {
  const std::vector<int64_t>& runs = report.run_ns();
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
  absl::StatusOr<std::shared_ptr<const GraphPlan>> a_plan = PlanVariant(module, {}, options, &a_applied);
  if (!a_plan.ok()) return Annotate(a_plan.status(), kA);
  absl::StatusOr<std::shared_ptr<const GraphPlan>> b_plan = PlanVariant(module, passes, options, &b_applied);
  if (!b_plan.ok()) return Annotate(b_plan.status(), BName(passes));
  const bool interleave = options.interleave && options.profile.observers.empty();
  if (interleave) {
    absl::StatusOr<std::unique_ptr<ProfileRunner>> a = ProfileRunner::Create(*a_plan, inputs, options.profile);
    if (!a.ok()) return Annotate(a.status(), kA);
    absl::StatusOr<std::unique_ptr<ProfileRunner>> b = ProfileRunner::Create(*b_plan, inputs, options.profile);
    if (!b.ok()) return Annotate(b.status(), BName(passes));
    std::string stopped_why = "at the most runs";
    if (absl::Status run =
            RunInterleaved(**a, **b, passes, options.profile.adaptive, &a_output, &b_output, &stopped_why);
        !run.ok()) {
      return run;
    }
    absl::StatusOr<Report> before = (*a)->Finish();
    if (!before.ok()) return Annotate(before.status(), kA);
    absl::StatusOr<Report> after = (*b)->Finish();
    if (!after.ok()) return Annotate(after.status(), BName(passes));
    result.before = *std::move(before);
    result.after = *std::move(after);
    result.order = "ABBA";
    if (options.profile.adaptive.enabled) {
      const std::string note =
          absl::StrCat("--runs=auto: ", result.before.runs, " timed runs a side, stopped ", stopped_why);
      result.before.notes.push_back(note);
      result.after.notes.push_back(note);
    }
  } else {
    absl::StatusOr<Report> before = Profile(*a_plan, inputs, options.profile, &a_output);
    if (!before.ok()) return Annotate(before.status(), kA);
    absl::StatusOr<Report> after = Profile(*b_plan, inputs, options.profile, &b_output);
    if (!after.ok()) return Annotate(after.status(), BName(passes));
    result.before = *std::move(before);
    result.after = *std::move(after);
    result.order = "AB";
  }
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
    c10::IValue expected;
    try {
      expected = torch::jit::Module(module).get_method(options.method)(DeepCopy(inputs));
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", options.method), e);
    }
    const std::string reference = absl::StrCat("module.", options.method);
    result.before.verification = Verify(expected, a_output, 0, 0, reference);
    // No pass: B is the module as given too, and must be identical.
    const bool transformed = !passes.empty();
    if (!transformed) {
      result.after.verification = Verify(expected, b_output, 0, 0, reference);
    } else if (options.float64_reference) {
      result.after.verification =
          VerifyAfterPasses(module, options.method, inputs, expected, b_output, options.rtol, options.atol, reference);
    } else {
      result.after.verification = Verify(expected, b_output, options.rtol, options.atol, reference);
    }
  }
  result.diff = DiffReports(result.before, result.after, options.diff);
  return result;
}

}  // namespace graphprof
