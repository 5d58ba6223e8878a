#include "profilers/report/process_speed.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "profilers/report/stats.h"

namespace graphprof {
namespace {

// The largest change of a node's time at equal speed taken for the
// process's: 10x (log 10).
constexpr double kLargestProcessEffect = 2.302585092994046;

double LogTime(double ns) { return std::log(std::max(ns, 1.0)); }

// The mean of the values holding the middle half of the weight (the
// weighted midmean): robust to a quarter of the weight anywhere, and far
// less noisy than a median when a few values hold most of the weight.
double WeightedMidmean(std::vector<std::pair<double, double>> value_weight) {
  if (value_weight.empty()) return 0;
  std::sort(value_weight.begin(), value_weight.end());
  double all = 0;
  for (const auto& [v, w] : value_weight) all += w;
  const double low = all / 4, high = 3 * all / 4;
  double seen = 0, sum = 0, kept = 0;
  for (const auto& [v, w] : value_weight) {
    const double inside = std::max(0.0, std::min(seen + w, high) - std::max(seen, low));
    sum += inside * v;
    kept += inside;
    seen += w;
  }
  return kept > 0 ? sum / kept : 0;  // weights are base medians (>= 1 ns): kept > 0
}

// Per run r of one side: the weighted midmean over nodes of
// log(x_ir / median_i).
std::vector<double> LogSpeeds(absl::Span<const SpeedNode> nodes, const std::vector<double>& medians, bool base,
                              size_t runs) {
  std::vector<double> speeds(runs, 0.0);
  std::vector<std::pair<double, double>> ratios;
  for (size_t r = 0; r < runs; ++r) {
    ratios.clear();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const absl::Span<const double> v = base ? nodes[i].base : nodes[i].current;
      ratios.push_back({LogTime(v[r]) - std::log(medians[i]), medians[i]});
    }
    speeds[r] = WeightedMidmean(ratios);
  }
  return speeds;
}

// A side's median log time at equal speed.
double MedianLogAtEqualSpeed(absl::Span<const double> values, const std::vector<double>& log_speed) {
  std::vector<double> logs;
  logs.reserve(values.size());
  for (size_t r = 0; r < values.size(); ++r) logs.push_back(LogTime(values[r]) - log_speed[r]);
  return Median(std::move(logs));
}

// The sum over stages of |the stage's changes summed| / weight: stages are
// runs of consecutive nodes (in execution order) holding about 1 / kStages
// of the base time each. Within a stage, changes add with their signs (the
// run-to-run noise of its nodes cancels); stages add whatever their signs
// (what a process does to one stage it may do to the next).
double StageAllowance(std::vector<std::pair<int, double>> changes, const std::vector<double>& medians, double weight) {
  std::vector<size_t> order(changes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return changes[a].first < changes[b].first; });
  double sum = 0, stage = 0, stage_weight = 0;
  for (size_t i : order) {
    stage += changes[i].second;
    stage_weight += medians[i];
    if (stage_weight >= weight / ProcessSpeed::kStages) {
      sum += std::fabs(stage);
      stage = stage_weight = 0;
    }
  }
  sum += std::fabs(stage);
  return sum / weight;
}

}  // namespace

ProcessSpeed::ProcessSpeed(absl::Span<const SpeedNode> given) {
  if (given.empty()) return;
  const size_t n = given[0].base.size(), m = given[0].current.size();
  std::vector<double> medians;
  for (const SpeedNode& node : given) {
    if (node.base.size() != n || node.current.size() != m || n == 0 || m == 0) return;
    medians.push_back(std::max(1.0, Median(std::vector<double>(node.base.begin(), node.base.end()))));
  }
  if (static_cast<int>(given.size()) < kMinReferenceNodes) return;
  base_log_ = LogSpeeds(given, medians, true, n);
  current_log_ = LogSpeeds(given, medians, false, m);
  // Each node's change at equal speed, as a share of the base's time.
  double weight = 0;
  std::vector<std::pair<int, double>> changes;  // (order, share of the base time x change)
  for (size_t i = 0; i < given.size(); ++i) {
    const double d = MedianLogAtEqualSpeed(given[i].current, current_log_) -
                     MedianLogAtEqualSpeed(given[i].base, base_log_);
    // What a process can do to a node's time is bounded (measured: at most
    // ~8x); beyond it, the change is the code's (a new cost).
    const double effect = std::clamp(d, -kLargestProcessEffect, kLargestProcessEffect);
    changes.push_back({given[i].order, medians[i] * std::expm1(effect)});
    weight += medians[i];
  }
  total_allowance_ = StageAllowance(std::move(changes), medians, weight);
  reference_nodes_ = static_cast<int>(given.size());
  valid_ = true;
}

std::vector<double> ProcessSpeed::AtEqualSpeed(absl::Span<const double> values, absl::Span<const double> log_speed) {
  std::vector<double> out(values.begin(), values.end());
  for (size_t r = 0; r < out.size() && r < log_speed.size(); ++r) out[r] *= std::exp(-log_speed[r]);
  return out;
}

}  // namespace graphprof
