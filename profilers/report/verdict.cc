#include "profilers/report/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/rank_test.h"
#include "profilers/report/stats.h"
#include "profilers/report/t_test.h"

namespace graphprof {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Times on a log scale: ratios become differences. A zero time (a row
// compensated to nothing, or an absent side) counts as 1 ns.
std::vector<double> Logs(absl::Span<const double> v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(std::log(std::max(x, 1.0)));
  return out;
}

// Each process's median log time.
std::vector<double> ProcessMedians(absl::Span<const double> logs, absl::Span<const RunRange> processes) {
  std::vector<double> medians;
  for (const RunRange& r : processes) {
    const int begin = std::max(r.begin, 0);
    const int end = std::min<int>(r.end, static_cast<int>(logs.size()));
    if (end <= begin) continue;
    medians.push_back(Median(std::vector<double>(logs.begin() + begin, logs.begin() + end)));
  }
  return medians;
}

// The Hodges-Lehmann estimate with an interval whose standard deviation is
// the rank interval's (its width / 2z) and `allowance` in quadrature.
void WidenByAllowance(const Shift& shift, double allowance, double confidence, RowComparison& r) {
  const double z = NormalQuantile(1 - (1 - confidence) / 2);
  const double se = (shift.high - shift.low) / (2 * z);
  const double sd = std::sqrt(se * se + allowance * allowance);
  r.change = std::expm1(shift.estimate);
  r.change_low = std::expm1(shift.estimate - z * sd);
  r.change_high = std::expm1(shift.estimate + z * sd);
  r.p = 2 * (1 - NormalCdf(std::fabs(shift.estimate) / sd));
  r.allowance = allowance;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kSame: return "same";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

const char* NoiseModelName(NoiseModel model) {
  switch (model) {
    case NoiseModel::kRuns: return "runs";
    case NoiseModel::kProcesses: return "processes";
    case NoiseModel::kPairedProcesses: return "paired processes";
    case NoiseModel::kRunsBetweenProcesses: return "runs between processes";
  }
  return "?";
}

Verdict DecideVerdict(double change, double low, double high, double q, const VerdictOptions& options) {
  const double t = options.min_effect;
  const bool significant = q < options.alpha;
  if (significant && change > t) return Verdict::kSlower;
  if (significant && change < -t) return Verdict::kFaster;
  if (low >= -t && high <= t) return Verdict::kSame;
  if (significant && std::fabs(change) <= t) return Verdict::kSame;
  return Verdict::kInconclusive;
}

RowComparison CompareRow(const RowSample& base, const RowSample& current, NoiseModel model, double floor_ns,
                         const VerdictOptions& options, double allowance) {
  RowComparison r;
  r.p = r.q = kNaN;
  if (!base.present && !current.present) {
    r.change = r.change_low = r.change_high = kNaN;
    r.reason = "absent on both sides";
    return r;
  }
  // An absent side is zero time in every run of the other's.
  const RowSample& shape = base.present ? base : current;
  const std::vector<double> zeros(shape.values.size(), 0.0);
  const absl::Span<const double> b = base.present ? base.values : absl::MakeConstSpan(zeros);
  const absl::Span<const double> c = current.present ? current.values : absl::MakeConstSpan(zeros);
  const absl::Span<const RunRange> bp = base.present ? base.processes : shape.processes;
  const absl::Span<const RunRange> cp = current.present ? current.processes : shape.processes;
  r.base_median = Median(std::vector<double>(b.begin(), b.end()));
  r.current_median = Median(std::vector<double>(c.begin(), c.end()));
  r.base_mean = Mean(b);
  r.current_mean = Mean(c);
  if (b.empty() || c.empty()) {
    r.change = r.change_low = r.change_high = kNaN;
    r.reason = "no runs";
    return r;
  }

  const std::vector<double> lb = Logs(b), lc = Logs(c);
  bool testable = true;
  if (model == NoiseModel::kProcesses || model == NoiseModel::kPairedProcesses) {
    const std::vector<double> mb = ProcessMedians(lb, bp), mc = ProcessMedians(lc, cp);
    Welch w;
    if (model == NoiseModel::kPairedProcesses && mb.size() == mc.size()) {
      std::vector<double> d;
      for (size_t i = 0; i < mb.size(); ++i) d.push_back(mc[i] - mb[i]);
      w = PairedTTest(d, options.confidence);
    } else {
      if (!base.log_speed.empty() && !current.log_speed.empty()) {
        w = CovariateTTest(ProcessMedians(base.log_speed, bp), mb, ProcessMedians(current.log_speed, cp), mc,
                           options.confidence);
      }
      if (!w.valid) w = WelchTTest(mb, mc, options.confidence);
    }
    if (w.valid) {
      r.change = std::expm1(w.difference);
      r.change_low = std::expm1(w.low);
      r.change_high = std::expm1(w.high);
      r.p = w.p;
      r.se = w.se;
    } else {
      testable = false;
      r.reason = "fewer than 2 processes a side";
      r.change = std::expm1(Median(lc) - Median(lb));
      r.change_low = -1;
      r.change_high = kInf;
    }
  } else {
    const Shift shift = HodgesLehmann(lb, lc, options.confidence);
    r.change = std::expm1(shift.estimate);
    r.change_low = std::expm1(shift.low);
    r.change_high = std::expm1(shift.high);
    if (SmallestMannWhitneyP(static_cast<int>(b.size()), static_cast<int>(c.size())) >= options.alpha ||
        !shift.bounded()) {
      testable = false;
      r.reason = "too few runs";
    } else if (model == NoiseModel::kRunsBetweenProcesses && allowance > 0) {
      WidenByAllowance(shift, allowance, options.confidence, r);
    } else {
      r.p = MannWhitneyU(b, c).p;
    }
  }
  if (!current.present) r.change = r.change_low = r.change_high = -1;
  if (!base.present) r.change = r.change_low = r.change_high = kInf;
  if (std::max(r.base_median, r.current_median) < floor_ns) {
    testable = false;
    r.reason = "too fast to time";
  }
  r.tested = testable;
  if (!testable) r.p = kNaN;
  return r;
}

std::vector<double> BenjaminiHochberg(absl::Span<const double> p) {
  std::vector<double> q(p.size(), kNaN);
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!std::isnan(p[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  const double m = static_cast<double>(order.size());
  double running = 1;
  for (size_t k = order.size(); k-- > 0;) {
    running = std::min(running, p[order[k]] * m / static_cast<double>(k + 1));
    q[order[k]] = std::min(running, 1.0);
  }
  return q;
}

void DecideVerdicts(absl::Span<RowComparison* const> rows, const VerdictOptions& options) {
  std::vector<double> p;
  p.reserve(rows.size());
  for (const RowComparison* row : rows) p.push_back(row->tested ? row->p : kNaN);
  const std::vector<double> q = BenjaminiHochberg(p);
  for (size_t i = 0; i < rows.size(); ++i) {
    RowComparison& row = *rows[i];
    row.q = q[i];
    row.verdict = row.tested ? DecideVerdict(row.change, row.change_low, row.change_high, row.q, options)
                             : Verdict::kInconclusive;
  }
}

std::string FormatChange(const RowComparison& row) {
  std::string change;
  if (std::isinf(row.change) && row.change > 0) {
    change = "new";
  } else if (std::isnan(row.change)) {
    change = "-";
  } else if (row.change == -1 && row.change_low == -1 && row.change_high == -1) {
    change = "-100%";
  } else if (!(std::isfinite(row.change_low) && std::isfinite(row.change_high)) && !row.reason.empty()) {
    // No interval to show: say why instead.
    change = absl::StrFormat("%+.1f%% (%s)", 100 * row.change, row.reason);
  } else {
    auto bound = [](double v) {
      if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
      return absl::StrFormat("%.1f", 100 * v);
    };
    change = absl::StrFormat("%+.1f%% [%s, %s]", 100 * row.change, bound(row.change_low), bound(row.change_high));
  }
  return absl::StrCat(change, " ", VerdictName(row.verdict));
}

}  // namespace graphprof
