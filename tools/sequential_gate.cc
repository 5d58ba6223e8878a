#include "tools/sequential_gate.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/rank_test.h"

namespace graphprof::cli {
namespace {

const auto kStart = std::chrono::steady_clock::now();

// An undecided run total that no more runs of this process can decide: its
// interval's spread is the allowance for what processes differ by (in
// quadrature with the runs' own), and the runs' own part, all that more runs
// narrow, is under a third of it (the interval then at most 5% wider than the
// allowance alone makes it).
bool HeldOpenByProcesses(const RowComparison& total, double confidence) {
  if (!total.tested || total.verdict != Verdict::kInconclusive || !(total.allowance > 0)) return false;
  const double z = NormalQuantile(1 - (1 - confidence) / 2);
  const double sd = (std::log1p(total.change_high) - std::log1p(total.change_low)) / (2 * z);
  const double runs_sd = std::sqrt(std::max(0.0, sd * sd - total.allowance * total.allowance));
  return runs_sd < total.allowance / 3;
}

}  // namespace

double LookFraction(int look) { return 1.0 / (static_cast<double>(look) * (look + 1)); }

GateOptions AtFraction(GateOptions options, double fraction) {
  VerdictOptions& v = options.diff.verdict;
  v.alpha *= fraction;
  v.confidence = 1 - (1 - v.confidence) * fraction;
  return options;
}

SequentialGate::SequentialGate(GateOptions options, const Report& base) : options_(std::move(options)), base_(base) {
  // A look's report is the runs so far, before the session describes it
  // (inputs, passes): whether the reports may be compared is decided once,
  // on the final report, by the verdict after profiling.
  options_.allow_graph_change = true;
  options_.allow_input_change = true;
}

std::optional<std::string> SequentialGate::Look(const Report& so_far) {
  ++looks_;
  const GateOptions at = AtFraction(options_, LookFraction(looks_));
  absl::StatusOr<GateResult> gate = graphprof::RunGate(base_, so_far, at);
  if (!gate.ok()) return std::nullopt;  // not comparable yet (too few runs): the verdict after profiling says why
  const std::string level = absl::StrFormat("look %d, at alpha %.3g", looks_, at.diff.verdict.alpha);
  if (gate->tested == 0) {
    reason_ = absl::StrCat("no row --fail_on selects can be tested (", level, ")");
  } else if (gate->undecided == 0) {
    reason_ = absl::StrCat("every tested row --fail_on selects had a verdict (", level, ")");
  } else if (gate->undecided == 1 && HeldOpenByProcesses(gate->diff.total, at.diff.verdict.confidence)) {
    reason_ = absl::StrCat("more runs could not decide the run total (", level,
                           "): its interval is held open by what processes differ by; profile both sides with "
                           "--workers to narrow it");
  } else {
    return std::nullopt;
  }
  stopped_ = true;
  return reason_;
}

CheckProgress SequentialGate::Progress(const std::string& why) const {
  CheckProgress p;
  // The verdict is the stopping look's; after the budget or the most runs, a look of its own.
  p.looks = stopped_ ? looks_ : looks_ + 1;
  p.alpha_fraction = LookFraction(p.looks);
  p.stop_reason = stopped_ ? reason_ : why;
  return p;
}

double SecondsSinceStart() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count();
}

}  // namespace graphprof::cli
