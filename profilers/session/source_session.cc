#include "profilers/session/source_session.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include <ATen/Parallel.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "profilers/before_after.h"
#include "profilers/compiled/compiled_profile.h"
#include "profilers/profile_runner.h"
#include "profilers/compiled/kernel_work.h"
#include "profilers/profiler.h"
#include "profilers/machine.h"
#include "profilers/verification/reference_check.h"
#include "profilers/verification/verify.h"

namespace graphprof {
namespace {

// `output` of a side against `reference` for `inputs`; no reference: why.
absl::Status VerifySide(const ModelSource& source, const Reference& reference, const std::vector<c10::IValue>& inputs,
                        const c10::IValue& output, Report& report) {
  if (!reference.available()) {
    report.unverified_reason = reference.why_not;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<c10::IValue>> copied = CopyInputs(inputs);
  if (!copied.ok()) return copied.status();
  absl::StatusOr<c10::IValue> expected = reference.run(*copied);
  if (!expected.ok()) return expected.status();
  absl::StatusOr<std::vector<c10::IValue>> again = CopyInputs(inputs);  // the float64 reference's
  if (!again.ok()) return again.status();
  report.verification =
      CheckOutput(*expected, output, reference.check, source.module(), source.prepared().method, *again);
  return absl::OkStatus();
}

// `count` plans of `source`: the first of `source` itself when `first_own`,
// the others of copies loaded again (own weights each).
absl::Status AddPlans(const ModelSource& source, int count, bool first_own, const PlanOptions& plan_options,
                      std::vector<std::shared_ptr<const GraphPlan>>& plans) {
  for (int k = 0; k < count; ++k) {
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan;
    if (k == 0 && first_own) {
      plan = GraphPlan::Build(source.prepared(), plan_options);
    } else {
      absl::StatusOr<std::unique_ptr<ModelSource>> copy = source.Reload();
      if (!copy.ok()) return copy.status();
      plan = GraphPlan::Build((*copy)->prepared(), plan_options);
    }
    if (!plan.ok()) return plan.status();
    plans.push_back(*std::move(plan));
  }
  return absl::OkStatus();
}

// One eager run of a compiled program's graph (prepared()): its profile
// counts each node's work (kernel_work.h); its output and plan give the
// program's own differences (CompiledTolerance).
struct EagerRun {
  absl::StatusOr<Report> report = absl::UnknownError("not run");
  c10::IValue output;  // None when it did not run
  std::shared_ptr<const GraphPlan> plan;
};

EagerRun RunEagerly(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                    const PlanOptions& plan_options) {
  ProfileOptions once;
  once.plan = plan_options;
  once.warmup = 0;
  once.runs = 1;
  once.trace = false;
  EagerRun eager;
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(source.prepared(), plan_options);
  if (!plan.ok()) {
    eager.report = plan.status();
    return eager;
  }
  eager.plan = *std::move(plan);
  eager.report = Profile(eager.plan, inputs, once, &eager.output);
  if (!eager.report.ok()) eager.output = c10::IValue();
  return eager;
}

// The work of a compiled program's rows from `eager`; a note says what
// could not be counted.
void AddProgramWork(const EagerRun& eager, const CompiledProgram& program, Report& report) {
  if (!eager.report.ok()) {
    report.notes.push_back(absl::StrCat("work per row not counted: the program's graph did not run (",
                                        eager.report.status().message(), ")"));
    return;
  }
  const double unnamed = AddKernelWork(*eager.report, program.plan(), report);
  report.notes.push_back(
      "FLOPs and bytes per row: those of the program's nodes it computes, each node once (bytes as the nodes run "
      "eagerly: an upper bound for a fused kernel)");
  if (unnamed > 0.001) {
    report.notes.push_back(absl::StrFormat("%.1f%% of the program's FLOPs are in nodes no row names: not counted",
                                           100 * unnamed));
  }
}

// How many times its own differences the eager program's tolerance allows
// a compiled program, and the most it widens the defaults (CompiledTolerance).
constexpr double kCompiledHeadroom = 10;
constexpr double kMostWidening = 100;

// at::set_num_threads for a scope.
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads) : before_(at::get_num_threads()) { at::set_num_threads(threads); }
  ~ScopedThreads() { at::set_num_threads(before_); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int before_;
};

// The tolerance a compiled program's output is checked within against its
// saved reference: the caller's when given; else the defaults widened, when
// the eager program itself moves by more, to kCompiledHeadroom times its own
// differences here (`eager`, its output in this process, against the saved
// reference, computed by another process, maybe with other threads or
// another version; and against a run at another thread count), at most
// kMostWidening times. The eager program's difference from the saved
// reference widens nothing when it exceeds the defaults (then the eager
// program itself disagrees with the reference: another model or version is
// no reason to accept more). Compiled code reorders arithmetic as another
// thread count does; `note` says what was measured and applied ("" when
// the caller's tolerance stands).
struct DerivedTolerance {
  Tolerance tolerance;
  std::string note;
};

DerivedTolerance CompiledTolerance(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                                   const EagerRun& eager, const Tolerance& given) {
  if (given.given || eager.output.isNone()) return {given, ""};
  const Reference reference = source.ReferenceFor(inputs, given);
  if (!reference.available()) return {given, ""};
  absl::StatusOr<std::vector<c10::IValue>> copied = CopyInputs(inputs);
  if (!copied.ok()) return {given, ""};
  absl::StatusOr<c10::IValue> expected = reference.run(*copied);
  if (!expected.ok()) return {given, ""};
  const double saved = ToleranceScale(*expected, eager.output, given.rtol, given.atol);
  // The eager program at another thread count (1, or 2 when this runs 1),
  // if this LibTorch lets it change.
  const int threads = at::get_num_threads();
  int other = threads;
  double across_threads = std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<std::vector<c10::IValue>> again = CopyInputs(inputs);
  if (again.ok()) {
    ScopedThreads scoped(threads > 1 ? 1 : 2);
    other = at::get_num_threads();
    if (other != threads) {
      absl::StatusOr<c10::IValue> there = Interpreter(eager.plan).Run(*std::move(again));
      if (there.ok()) across_threads = ToleranceScale(eager.output, *there, given.rtol, given.atol);
    }
  }
  const std::string threads_text =
      std::isnan(across_threads) ? "at another thread count not measured"
                                 : absl::StrFormat("at %d against %d threads %.3g", threads, other, across_threads);
  // Only rounding differences are a basis: the saved reference's when the
  // eager program agrees with it, the thread count's when finite.
  double own = 0;
  if (saved <= 1) own = saved;
  if (std::isfinite(across_threads)) own = std::max(own, across_threads);
  const double factor = std::min(kMostWidening, std::max(1.0, kCompiledHeadroom * own));
  DerivedTolerance derived{given, ""};
  derived.tolerance.rtol *= factor;
  derived.tolerance.atol *= factor;
  derived.note = absl::StrFormat(
      "tolerance from the eager program's own differences (compiled code reorders arithmetic, as another thread "
      "count does), in units of rtol %g + atol %g: its output here against the saved reference %.3g%s, %s; "
      "%g times the larger, at least the defaults, at most %g times them: checked within rtol %.3g, atol %.3g",
      given.rtol, given.atol, saved,
      saved > 1 ? " (beyond the defaults: the eager program disagrees with it; not used)" : "", threads_text, kCompiledHeadroom, kMostWidening, derived.tolerance.rtol, derived.tolerance.atol);
  return derived;
}

// A compiled program (ModelSource::compiled()), run whole: its calls'
// rows (profilers/compiled/), described and verified as a graph's session.
absl::StatusOr<Report> ProfileCompiledSource(const ModelSource& source, CompiledProgram& program,
                                             const std::vector<c10::IValue>& inputs, const SessionOptions& session,
                                             const Tolerance& tolerance) {
  const Machine machine = session.machine.has_value() ? *session.machine : DescribeMachine();
  c10::IValue output;
  absl::StatusOr<Report> report = ProfileCompiled(program, inputs, session.profile, &output);
  if (!report.ok()) return report.status();
  DescribeModel(*report, source.name(), nullptr, inputs, machine, session.ceilings);
  source.Describe(*report);
  const EagerRun eager = RunEagerly(source, inputs, session.profile.plan);
  AddProgramWork(eager, program, *report);
  if (session.verify) {
    const DerivedTolerance derived = CompiledTolerance(source, inputs, eager, tolerance);
    if (!derived.note.empty()) report->notes.push_back(derived.note);
    if (absl::Status verified =
            VerifySide(source, source.ReferenceFor(inputs, derived.tolerance), inputs, output, *report);
        !verified.ok()) {
      return verified;
    }
  }
  return report;
}

// A side's runners for sources of any kind: `count` copies of `source`
// (the first `source` itself when `first_own`, the others loaded again and
// kept in `keep`, which must outlive the runners), each a CompiledRunner of
// its compiled program or a ProfileRunner of its graph, its share of the runs.
absl::Status AddRunners(const ModelSource& source, int count, bool first_own, const std::vector<c10::IValue>& inputs,
                        const ProfileOptions& profile, std::vector<std::unique_ptr<ModelSource>>& keep,
                        std::vector<std::unique_ptr<SideRunner>>& runners) {
  for (int k = 0; k < count; ++k) {
    const ModelSource* copy = &source;
    if (k > 0 || !first_own) {
      absl::StatusOr<std::unique_ptr<ModelSource>> again = source.Reload();
      if (!again.ok()) return again.status();
      keep.push_back(*std::move(again));
      copy = keep.back().get();
    }
    const ProfileOptions options = CopyProfile(profile, count, k);
    if (CompiledProgram* compiled = copy->compiled(); compiled != nullptr) {
      absl::StatusOr<std::unique_ptr<CompiledRunner>> runner = CompiledRunner::Create(*compiled, inputs, options);
      if (!runner.ok()) return runner.status();
      runners.push_back(*std::move(runner));
      continue;
    }
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(copy->prepared(), profile.plan);
    if (!plan.ok()) return plan.status();
    absl::StatusOr<std::unique_ptr<ProfileRunner>> runner = ProfileRunner::Create(*plan, inputs, options);
    if (!runner.ok()) return runner.status();
    runners.push_back(*std::move(runner));
  }
  return absl::OkStatus();
}

// Two sources as the sides of an A/B, where either may be a compiled
// program: copies of each (A's first is `a` itself, B's all loaded again
// when `b` is `a`), interleaved. A's output is verified against its own
// source's reference; B's against its own (an A/A), or, when `b_against_a`
// (a migration diff: another form of A's model), against A's output within
// the tolerance, so that a B of another model is not called verified.
absl::StatusOr<BeforeAfter> ProfileSourceSides(const ModelSource& a, const ModelSource& b, const std::string& b_name,
                                               const std::vector<c10::IValue>& inputs,
                                               const BeforeAfterOptions& options, const Tolerance& tolerance,
                                               bool b_against_a) {
  const int copies = CopiesPerSide(options);
  std::vector<std::unique_ptr<ModelSource>> keep;
  std::vector<std::unique_ptr<SideRunner>> a_runners, b_runners;
  if (absl::Status made = AddRunners(a, copies, true, inputs, options.profile, keep, a_runners); !made.ok()) {
    return Annotate(made, a.name());
  }
  if (absl::Status made = AddRunners(b, copies, &b != &a, inputs, options.profile, keep, b_runners); !made.ok()) {
    return Annotate(made, b.name());
  }
  c10::IValue a_output, b_output;
  absl::StatusOr<BeforeAfter> ab =
      ProfileTwoSides(std::move(a_runners), std::move(b_runners), b_name, options, &a_output, &b_output);
  if (!ab.ok()) return ab;
  // A compiled side's rows get their nodes' work, so that the diff compares
  // FLOPs of both sides (a graph side counted its own).
  // An A/A (`b` is `a`) runs the program eagerly and derives its tolerance once.
  bool added_work = false;
  DerivedTolerance side_tolerance[2] = {{tolerance, ""}, {tolerance, ""}};  // A's, B's
  const ModelSource* sources[2] = {&a, &b};
  Report* reports[2] = {&ab->before, &ab->after};
  EagerRun eager;
  for (int side = 0; side < 2; ++side) {
    CompiledProgram* compiled = sources[side]->compiled();
    if (compiled == nullptr) continue;
    const bool again = side == 1 && &b == &a;
    if (!again) eager = RunEagerly(*sources[side], inputs, options.profile.plan);
    AddProgramWork(eager, *compiled, *reports[side]);
    if (options.verify && !(side == 1 && b_against_a)) {
      side_tolerance[side] = again ? side_tolerance[0] : CompiledTolerance(*sources[side], inputs, eager, tolerance);
      if (!side_tolerance[side].note.empty()) reports[side]->notes.push_back(side_tolerance[side].note);
    }
    added_work = true;
  }
  if (added_work) ab->diff = DiffReports(ab->before, ab->after, options.diff);
  if (!options.verify) return ab;
  if (absl::Status checked =
          VerifySide(a, a.ReferenceFor(inputs, side_tolerance[0].tolerance), inputs, a_output, ab->before);
      !checked.ok()) {
    return checked;
  }
  if (!b_against_a) {
    if (absl::Status checked =
            VerifySide(b, b.ReferenceFor(inputs, side_tolerance[1].tolerance), inputs, b_output, ab->after);
        !checked.ok()) {
      return checked;
    }
    return ab;
  }
  OutputCheck check;
  check.transformed = true;  // another form of the model: its own rounding
  check.float64_reference = false;
  check.rtol = tolerance.rtol;
  check.atol = tolerance.atol;
  check.reference = absl::StrCat("A's output (", a.name(), ")");
  ab->after.verification = CheckOutput(a_output, b_output, check);
  return ab;
}

}  // namespace

absl::StatusOr<Report> ProfileSource(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                                     SessionOptions session, const Tolerance& tolerance) {
  if (CompiledProgram* compiled = source.compiled(); compiled != nullptr) {
    return ProfileCompiledSource(source, *compiled, inputs, session, tolerance);
  }
  SessionModel model;
  model.name = source.name();
  model.prepared = source.prepared();
  if (source.module() != nullptr) model.module = *source.module();
  model.method = source.prepared().method.empty() ? "forward" : source.prepared().method;
  std::string unverified;
  if (session.verify) {
    Reference reference = source.ReferenceFor(inputs, tolerance);
    if (reference.available()) {
      model.run_native = std::move(reference.run);
      session.check = reference.check;
    } else {
      session.verify = false;
      unverified = reference.why_not;
    }
  }
  absl::StatusOr<Report> report = RunProfileSession(std::move(model), inputs, session);
  if (!report.ok()) return report.status();
  source.Describe(*report);
  report->unverified_reason = unverified;
  return report;
}

absl::StatusOr<BeforeAfter> ProfileSourceAa(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                                            const BeforeAfterOptions& options, const Tolerance& tolerance) {
  if (source.compiled() != nullptr) {
    return ProfileSourceSides(source, source, "B", inputs, options, tolerance, /*b_against_a=*/false);
  }
  const int copies = CopiesPerSide(options);
  std::vector<std::shared_ptr<const GraphPlan>> a, b;
  if (absl::Status made = AddPlans(source, copies, true, options.profile.plan, a); !made.ok()) return made;
  if (absl::Status made = AddPlans(source, copies, false, options.profile.plan, b); !made.ok()) return made;
  c10::IValue a_output, b_output;
  absl::StatusOr<BeforeAfter> ab = ProfileTwoPlans(std::move(a), std::move(b), "B", inputs, options, &a_output, &b_output);
  if (!ab.ok()) return ab.status();
  if (options.verify) {
    const Reference reference = source.ReferenceFor(inputs, tolerance);
    if (absl::Status checked = VerifySide(source, reference, inputs, a_output, ab->before); !checked.ok()) return checked;
    if (absl::Status checked = VerifySide(source, reference, inputs, b_output, ab->after); !checked.ok()) return checked;
  }
  return ab;
}

absl::StatusOr<BeforeAfter> ProfileSourceAb(const ModelSource& source, const std::vector<Pass>& passes,
                                            const std::vector<c10::IValue>& inputs, const BeforeAfterOptions& options,
                                            const Tolerance& tolerance) {
  if (source.module() != nullptr) return ProfileBeforeAfter(*source.module(), passes, inputs, options);
  if (!passes.empty()) {
    if (absl::Status refused = CheckPassesLater(source); !refused.ok()) return refused;
  }
  return ProfileSourceAa(source, inputs, options, tolerance);
}

absl::StatusOr<BeforeAfter> ProfileSourceAgainst(const ModelSource& a, const ModelSource& b,
                                                 const std::vector<c10::IValue>& inputs,
                                                 const BeforeAfterOptions& options) {
  if (a.compiled() != nullptr || b.compiled() != nullptr) {
    return ProfileSourceSides(a, b, absl::StrCat("B (", b.name(), ")"), inputs, options,
                              Tolerance{options.rtol, options.atol, false}, /*b_against_a=*/true);
  }
  if (a.module() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(a.name(), ": the A side of a migration diff is a TorchScript module, not ",
                                                   a.abilities().kind));
  }
  std::vector<std::shared_ptr<const GraphPlan>> plans;
  if (absl::Status made = AddPlans(b, CopiesPerSide(options), true, options.profile.plan, plans); !made.ok()) {
    return Annotate(made, b.name());
  }
  absl::StatusOr<BeforeAfter> ab =
      ProfileAgainstGraph(*a.module(), std::move(plans), absl::StrCat("B (", b.name(), ")"), inputs, options);
  if (!ab.ok()) return ab.status();
  return ab;
}

}  // namespace graphprof
