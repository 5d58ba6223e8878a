#include "tools/sequential_gate.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

// Whether more processes of the current side could decide `row`, compared
// process by process (the sides' process medians of log time, by Welch's
// test or with the speed as covariate; standard error `row.se`): with `most` current processes and the
// baseline's `base` (the variance per process taken as equal on both sides),
// at the normal quantile of `confidence` (smaller than any t quantile: an
// optimistic projection, so it stops only where a verdict is out of reach),
// the interval clears a bound of `min_effect` (slower, faster) or fits
// within both (same).
bool Decidable(const RowComparison& row, int base, int current, int most, double min_effect, double confidence) {
  if (base < 2 || current < 2 || most <= current || !(row.se > 0)) return true;
  const double per_process = row.se / std::sqrt(1.0 / base + 1.0 / current);
  const double half = NormalQuantile(1 - (1 - confidence) / 2) * per_process * std::sqrt(1.0 / base + 1.0 / most);
  const double mid = std::log1p(row.change);
  const double bound = std::log1p(min_effect);
  return mid - half > bound || mid + half < -bound || std::fabs(mid) + half < bound;
}

}  // namespace

bool IsProcessLook(int processes) {
  return std::find(std::begin(kProcessLooks), std::end(kProcessLooks), processes) != std::end(kProcessLooks);
}

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
  } else if (const std::vector<std::string> open = OutOfReach(*gate); !open.empty()) {
    reason_ = absl::StrCat("more processes could not decide ", absl::StrJoin(open, " and "), " (", level,
                           "): the baseline's ", base_.run_sources.size(), " processes bound ",
                           open.size() > 1 ? "their intervals" : "its interval");
  } else {
    return std::nullopt;
  }
  stopped_ = true;
  return reason_;
}

std::vector<std::string> SequentialGate::OutOfReach(const GateResult& gate) const {
  if (most_processes_ == 0) return {};
  const ReportDiff& diff = gate.diff;
  const int base = static_cast<int>(base_.run_sources.size());
  const int current = static_cast<int>(diff.current_processes);
  const double min_effect = options_.diff.verdict.min_effect;
  const double confidence = gate.diff.verdict_options.confidence;
  std::vector<std::string> open;
  bool any = false;  // an open row more processes could decide
  auto look_at = [&](const RowComparison& row, const char* name) {
    if (!row.tested || row.verdict != Verdict::kInconclusive) return;
    open.push_back(name);
    any = any || Decidable(row, base, current, most_processes_, min_effect, confidence);
  };
  if (std::find(options_.fail_on.begin(), options_.fail_on.end(), "total") != options_.fail_on.end()) {
    look_at(diff.total, "the run time");
    if (diff.speed_removed()) look_at(diff.speed, "the machine's speed");
  }
  if (static_cast<int>(open.size()) != gate.undecided || any) return {};
  return open;
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
