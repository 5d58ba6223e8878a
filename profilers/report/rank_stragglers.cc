#include "profilers/report/rank_stragglers.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "profilers/report/stats.h"
#include "profilers/report/t_test.h"

namespace graphprof {

bool RanksAligned(const Report& report) {
  const std::vector<RunSource>& sources = report.run_sources;
  if (sources.size() < 2) return false;
  const int world = sources.front().world_size;
  if (world < 2 || static_cast<int>(sources.size()) != world) return false;
  std::vector<bool> seen(world, false);
  for (const RunSource& s : sources) {
    if (s.world_size != world || s.rank < 0 || s.rank >= world || seen[s.rank]) return false;
    if (s.runs != sources.front().runs || s.first_run + s.runs > report.runs) return false;
    seen[s.rank] = true;
  }
  return true;
}

RankTest TestRanks(const Report& report, absl::Span<const int64_t> per_run) {
  RankTest best;
  if (!RanksAligned(report) || per_run.size() < static_cast<size_t>(report.runs)) return best;
  const std::vector<RunSource>& sources = report.run_sources;
  const int runs = sources.front().runs;
  if (runs < kRankStragglerMinRuns) return best;
  const size_t ranks = sources.size();
  // Steps in which the row took time on every rank: a row that ran in
  // some steps only (control flow) is compared where it ran.
  std::vector<int> steps;
  for (int k = 0; k < runs; ++k) {
    bool all = true;
    for (const RunSource& s : sources) all = all && per_run[s.first_run + k] > 0;
    if (all) steps.push_back(k);
  }
  if (static_cast<int>(steps.size()) < kRankStragglerMinRuns || 2 * steps.size() < static_cast<size_t>(runs)) {
    return best;
  }
  const double threshold = std::log1p(kRankStragglerMinExcess);
  const std::vector<int64_t>& run_ns = report.run_ns();
  const double run_median = Median(std::vector<double>(run_ns.begin(), run_ns.end()));
  best.tested = true;
  std::vector<double> others, d, base;
  for (size_t r = 0; r < ranks; ++r) {
    d.clear();
    base.clear();
    for (int k : steps) {
      others.clear();
      for (size_t s = 0; s < ranks; ++s) {
        if (s != r) others.push_back(static_cast<double>(per_run[sources[s].first_run + k]));
      }
      const double mine = static_cast<double>(per_run[sources[r].first_run + k]);
      base.push_back(Median(others));
      d.push_back(std::log(mine) - std::log(base.back()) - threshold);
    }
    const Welch t = PairedTTest(d);
    if (!t.valid) continue;
    const double excess = std::expm1(t.difference + threshold);
    if (excess * Median(base) < kRankStragglerMinShare * run_median) continue;
    // One-sided: mean(d) > 0 (the excess above the threshold).
    double p = t.difference > 0 ? t.p / 2 : 1 - t.p / 2;
    if (t.se == 0) p = t.difference > 0 ? 0 : 1;
    if (p < best.p) {
      best.source = static_cast<int>(r);
      best.p = p;
      best.excess = excess;
    }
  }
  return best;
}

double StepFloorMean(const Report& report, absl::Span<const int64_t> per_run) {
  if (!RanksAligned(report) || per_run.size() < static_cast<size_t>(report.runs)) return -1;
  const std::vector<RunSource>& sources = report.run_sources;
  const int runs = sources.front().runs;
  if (runs == 0) return -1;
  double sum = 0;
  for (int k = 0; k < runs; ++k) {
    int64_t least = per_run[sources.front().first_run + k];
    for (const RunSource& s : sources) least = std::min(least, per_run[s.first_run + k]);
    sum += static_cast<double>(least);
  }
  return sum / runs;
}

}  // namespace graphprof
