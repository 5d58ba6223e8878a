// check --runs=auto's sequential test (tools/sequential_gate.h), by
// simulation: reports whose runs are drawn from known distributions (nodes
// of 100 us, 5% log-normal noise each, a baseline of 30 runs), the
// current side growing look by look as a check's profile does (10 runs,
// then 5 more a look, to 60). Measured here: the false-call rate of the run
// total over repeated looks (an A/A: at most alpha; the same looks at the
// full alpha each, the naive rule, exceed it, so the bound is not vacuous),
// the power and stopping look on a real slowdown, and between processes the
// stop when only the processes' allowance holds the interval open.
#include "tools/sequential_gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphprof::cli {
namespace {

constexpr double kNodeNs = 1e5;
constexpr double kSigma = 0.05;  // per node and run, log-normal
constexpr int kBaseRuns = 30;
constexpr int kMostRuns = 60;    // looks at 10, 15, ..., 60: 11 looks

// Per-run node times: [run][node], each node's median times `factor`.
std::vector<std::vector<double>> Draw(int nodes, int runs, double factor, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, kSigma);
  std::vector<std::vector<double>> t(runs, std::vector<double>(nodes));
  for (auto& run : t) {
    for (double& v : run) v = kNodeNs * factor * std::exp(noise(rng));
  }
  return t;
}

// A report of the first `runs` runs of `t`, made by process `process`.
Report ReportOf(const std::vector<std::vector<double>>& t, int runs, const std::string& process) {
  Report report;
  report.model = "m";
  report.process = process;
  report.runs = runs;
  report.timer_overhead_ns = 10;
  std::vector<int64_t> totals(runs, 0);
  for (int i = 0; i < static_cast<int>(t[0].size()); ++i) {
    NodeRecord node;
    node.identity.id = i;
    node.identity.kind = "aten::mul";
    node.identity.module = absl::StrCat("m", i);
    node.identity.label = absl::StrCat("m", i, "/mul");
    std::vector<int64_t> times;
    for (int r = 0; r < runs; ++r) {
      times.push_back(static_cast<int64_t>(t[r][i]));
      totals[r] += times.back();
    }
    node.metrics = {Series{times, {}}};
    node.calls.assign(runs, 1);
    report.nodes.push_back(node);
  }
  report.columns[0].run_total = totals;
  report.Finalize();
  return report;
}

GateOptions Options(double min_effect) {
  GateOptions o;
  o.fail_on = {"total"};
  o.diff.verdict.alpha = 0.05;
  o.diff.verdict.min_effect = min_effect;
  return o;
}

struct Trial {
  int looks = 0;            // looks taken
  bool stopped = false;     // by the rule (else the most runs)
  Verdict verdict = Verdict::kInconclusive;  // at the stopping look (or one more look's level)
  bool naive_called = false;  // any look at the full alpha called slower or faster
  std::string reason;
};

// One check: the baseline, then the current side look by look. `naive`: also
// the naive rule at every look (the A/A's comparison; it costs a gate a look).
Trial RunTrial(int nodes, double current_factor, const std::string& base_process, const std::string& current_process,
               std::mt19937_64& rng, double min_effect = 0.02, bool naive = false) {
  const std::vector<std::vector<double>> base_runs = Draw(nodes, kBaseRuns, 1.0, rng);
  const std::vector<std::vector<double>> current_runs = Draw(nodes, kMostRuns, current_factor, rng);
  const Report base = ReportOf(base_runs, kBaseRuns, base_process);
  SequentialGate gate(Options(min_effect), base);
  Trial trial;
  Report last;
  for (int runs = 10; runs <= kMostRuns; runs += 5) {
    last = ReportOf(current_runs, runs, current_process);
    if (naive) {
      absl::StatusOr<GateResult> at_alpha = RunGate(base, last, Options(min_effect));
      const Verdict v = at_alpha.ok() ? at_alpha->diff.total.verdict : Verdict::kInconclusive;
      trial.naive_called = trial.naive_called || v == Verdict::kSlower || v == Verdict::kFaster;
    }
    if (trial.stopped) {
      if (naive) continue;  // the naive rule looks on; the sequential one stopped
      break;
    }
    if (std::optional<std::string> reason = gate.Look(last); reason.has_value()) {
      trial.stopped = true;
      trial.reason = *reason;
      absl::StatusOr<GateResult> at = RunGate(base, last, AtFraction(Options(min_effect), gate.Progress("").alpha_fraction));
      EXPECT_TRUE(at.ok()) << at.status();
      trial.verdict = at->diff.total.verdict;
    }
  }
  const CheckProgress progress = gate.Progress("the most runs");
  trial.looks = progress.looks;
  if (!trial.stopped) {  // the most runs: one more look's level, on all of them
    absl::StatusOr<GateResult> at = RunGate(base, last, AtFraction(Options(min_effect), progress.alpha_fraction));
    EXPECT_TRUE(at.ok()) << at.status();
    trial.verdict = at->diff.total.verdict;
  }
  return trial;
}

TEST(SequentialGateTest, LooksSpendAtMostAlpha) {
  double sum = 0;
  for (int k = 1; k <= 1000; ++k) sum += LookFraction(k);
  EXPECT_NEAR(sum, 1 - 1.0 / 1001, 1e-12);
  EXPECT_DOUBLE_EQ(LookFraction(1), 0.5);
  EXPECT_DOUBLE_EQ(LookFraction(3), 1.0 / 12);
  const GateOptions at = AtFraction(Options(0.02), 0.25);
  EXPECT_DOUBLE_EQ(at.diff.verdict.alpha, 0.0125);
  EXPECT_DOUBLE_EQ(at.diff.verdict.confidence, 1 - 0.05 * 0.25);
}

// Within one process (the runs model), an A/A looked at 11 times with a
// --min_effect of 0.1% (a call then needs only significance: the hardest
// case for the bound): the sequential rule calls the total slower or faster
// in at most alpha of the trials; the naive rule (alpha at every look) in
// more than that.
TEST(SequentialGateTest, AaFalseCallsAtMostAlphaOverRepeatedLooks) {
  std::mt19937_64 rng(2026);
  constexpr int kTrials = 200;
  int called = 0, naive = 0, same = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Trial t = RunTrial(/*nodes=*/4, 1.0, "one process", "one process", rng, /*min_effect=*/0.001, /*naive=*/true);
    called += t.verdict == Verdict::kSlower || t.verdict == Verdict::kFaster;
    naive += t.naive_called;
    same += t.verdict == Verdict::kSame;
  }
  const double rate = static_cast<double>(called) / kTrials;
  const double naive_rate = static_cast<double>(naive) / kTrials;
  std::printf("A/A, one process, %d trials: sequential called %d (%.3f), same %d; naive rule called %d (%.3f)\n",
              kTrials, called, rate, same, naive, naive_rate);
  EXPECT_LE(rate, 0.05);
  EXPECT_GT(naive_rate, 0.05);
  EXPECT_GT(naive_rate, 2 * rate);
}

// A 10% slowdown of every node: called slower in nearly every trial, never
// faster, and at the first looks.
TEST(SequentialGateTest, RealSlowdownCalledEarly) {
  std::mt19937_64 rng(7);
  constexpr int kTrials = 100;
  int slower = 0, faster = 0, looks = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Trial t = RunTrial(/*nodes=*/4, 1.10, "one process", "one process", rng);
    slower += t.verdict == Verdict::kSlower;
    faster += t.verdict == Verdict::kFaster;
    looks += t.looks;
  }
  std::printf("+10%%, one process: slower %d of %d, faster %d, mean looks %.2f\n", slower, kTrials, faster,
              static_cast<double>(looks) / kTrials);
  EXPECT_GE(slower, 95);
  EXPECT_EQ(faster, 0);
  EXPECT_LE(looks, 2 * kTrials);  // the first or second look on average
}

// Between processes (one a side), a current process 8% slower at every node
// (a slow process, not a change): the speed is taken out, the total is not
// called, and the check stops once only the processes' allowance holds it
// open, long before the most runs.
TEST(SequentialGateTest, BetweenProcessesStopsWhenOnlyTheAllowanceHoldsItOpen) {
  std::mt19937_64 rng(99);
  constexpr int kTrials = 50;
  int called = 0, stopped = 0, held_open = 0, looks = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Trial t = RunTrial(/*nodes=*/20, 1.08, "base process", "current process", rng);
    called += t.verdict == Verdict::kSlower || t.verdict == Verdict::kFaster;
    stopped += t.stopped;
    held_open += absl::StrContains(t.reason, "held open by what processes differ by");
    looks += t.looks;
  }
  std::printf("slow process, between processes: called %d of %d, stopped by the rule %d (held open %d, the rest "
              "with a verdict), mean looks %.2f\n",
              called, kTrials, stopped, held_open, static_cast<double>(looks) / kTrials);
  EXPECT_EQ(called, 0);
  EXPECT_EQ(stopped, kTrials);
  EXPECT_GE(held_open, kTrials / 2);
  EXPECT_LT(looks, kTrials * 3);
}

// --- The current side in processes (tools/process_plan.h) ---
//
// Each process runs at a speed of its own: a side's level (the minute it
// was profiled in) times a log-normal 5% of its own, every run of it, and
// its nodes scale with the speed unequally (half as speed^1.2, half as
// speed^0.6: a slower machine is not slower at everything alike), with a
// process effect of 1% on every node and 3% noise per run. The baseline:
// 5 processes of 6 runs at level 1; the current side at level 1.25, one
// process after another, the gate looking after the processes
// kProcessLooks names, as check does.
struct ProcessSide {
  double level = 1;
  double extra_ns = 0;  // a new cost per run (a node the base does not time)
};

std::vector<std::vector<double>> DrawProcess(int nodes, int runs, const ProcessSide& side, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0, 1);
  const double speed = side.level * std::exp(0.05 * normal(rng));
  const double process = 0.01 * normal(rng);
  std::vector<std::vector<double>> t(runs, std::vector<double>(nodes + 1));
  for (auto& run : t) {
    for (int i = 0; i < nodes; ++i) {
      const double exponent = i % 2 == 0 ? 1.2 : 0.6;
      run[i] = kNodeNs * std::pow(speed, exponent) * std::exp(process + 0.03 * normal(rng));
    }
    run[nodes] = 1e3 + side.extra_ns;  // the node a change adds cost to
  }
  return t;
}

// Processes' runs, merged as --workers merges them (run_sources).
Report Merged(const std::vector<std::vector<std::vector<double>>>& processes, const std::string& name) {
  std::vector<std::vector<double>> all;
  for (const auto& p : processes) all.insert(all.end(), p.begin(), p.end());
  Report report = ReportOf(all, static_cast<int>(all.size()), name);
  int first = 0;
  for (size_t p = 0; p < processes.size(); ++p) {
    const int runs = static_cast<int>(processes[p].size());
    report.run_sources.push_back(RunSource{absl::StrCat("worker ", p + 1), first, runs, absl::StrCat(name, p)});
    first += runs;
  }
  report.Finalize();
  return report;
}

struct ProcessTrial {
  Verdict verdict = Verdict::kInconclusive;
  int processes = 0;
  std::string reason;
};

ProcessTrial RunProcessTrial(const ProcessSide& current_side, std::mt19937_64& rng) {
  constexpr int kNodes = 20, kRuns = 6;
  std::vector<std::vector<std::vector<double>>> base_processes, current_processes;
  for (int p = 0; p < 5; ++p) base_processes.push_back(DrawProcess(kNodes, kRuns, ProcessSide{}, rng));
  const Report base = Merged(base_processes, "base");
  SequentialGate gate(Options(0.02), base);
  gate.TimedInProcesses(kMostCheckProcesses);
  ProcessTrial trial;
  Report current;
  for (int k = 1; k <= kMostCheckProcesses; ++k) {
    current_processes.push_back(DrawProcess(kNodes, kRuns, current_side, rng));
    current = Merged(current_processes, "current");
    trial.processes = k;
    if (k == kMostCheckProcesses || !IsProcessLook(k)) continue;
    if (std::optional<std::string> reason = gate.Look(current); reason.has_value()) {
      trial.reason = *reason;
      break;
    }
  }
  const CheckProgress progress = gate.Progress("the most processes");
  absl::StatusOr<GateResult> at = RunGate(base, current, AtFraction(Options(0.02), progress.alpha_fraction));
  EXPECT_TRUE(at.ok()) << at.status();
  if (at.ok()) trial.verdict = at->diff.total.verdict;
  return trial;
}

// A/A with the sides at other speeds: the run total called slower or faster
// in at most alpha of the trials; a new cost of 5% of the run called slower
// in most, never faster; both mostly decided within a few processes.
TEST(SequentialGateTest, ProcessesLookedAtInTurnCallAtMostAlphaAndFindAFivePercentCost) {
  std::mt19937_64 rng(555);
  constexpr int kTrials = 200;
  int aa_called = 0, aa_same = 0, slower = 0, faster = 0;
  std::vector<int> aa_processes, slow_processes;
  for (int i = 0; i < kTrials; ++i) {
    const ProcessTrial aa = RunProcessTrial(ProcessSide{1.25, 0}, rng);
    aa_called += aa.verdict == Verdict::kSlower || aa.verdict == Verdict::kFaster;
    aa_same += aa.verdict == Verdict::kSame;
    aa_processes.push_back(aa.processes);
    // 5% of the base's run (20 nodes of 100 us), at equal speed.
    const ProcessTrial slow = RunProcessTrial(ProcessSide{1.25, 0.05 * 20 * kNodeNs * 1.25}, rng);
    slower += slow.verdict == Verdict::kSlower;
    faster += slow.verdict == Verdict::kFaster;
    slow_processes.push_back(slow.processes);
  }
  std::sort(aa_processes.begin(), aa_processes.end());
  std::sort(slow_processes.begin(), slow_processes.end());
  std::printf("processes in turn, %d trials: A/A called %d, same %d, median processes %d; +5%%: slower %d, faster %d, "
              "median processes %d\n",
              kTrials, aa_called, aa_same, aa_processes[kTrials / 2], slower, faster, slow_processes[kTrials / 2]);
  EXPECT_LE(aa_called, kTrials * 0.05);
  EXPECT_EQ(faster, 0);
  EXPECT_GE(slower, kTrials * 0.9);
  EXPECT_LE(slow_processes[kTrials / 2], 6);
}

}  // namespace
}  // namespace graphprof::cli
