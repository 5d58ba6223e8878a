// Comparisons between processes (process_speed.h), by simulation: processes
// whose machine runs at its own speed (1x to 1.9x, switching within a
// process too), whose nodes differ from process to process by kind, one by
// one (heavy-tailed) and by stage (consecutive nodes alike), with noise from
// run to run. The estimator is not
// the generator: speeds are drawn per run, effects per process and node.
// Measured: the speed each run ran at; the run total's false calls in A/A
// comparisons (at most alpha); a new cost of 5% of the run called slower
// (power) and never faster; node rows untested with one process a side; a
// uniform slowdown called by the speed row with several processes a side.
#include "profilers/report/process_speed.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "profilers/report/gate.h"
#include "profilers/report/report_diff.h"

namespace graphprof {
namespace {

// The simulated model: nodes of a few kinds, sizes spread over three decades,
// most of the time in one kind (as convolutions hold it in a CNN).
struct SimNode {
  std::string kind;
  double ns;
};

std::vector<SimNode> Model(std::mt19937_64& rng, int nodes) {
  const char* kinds[] = {"aten::conv2d", "aten::conv2d", "aten::conv2d", "aten::batch_norm", "aten::relu",
                         "aten::add"};
  std::uniform_int_distribution<int> kind(0, 5);
  std::uniform_real_distribution<double> decade(0, 3);
  std::vector<SimNode> model;
  for (int i = 0; i < nodes; ++i) {
    const int k = kind(rng);
    model.push_back({kinds[k], (k < 3 ? 1e5 : 1e4) * std::pow(10, decade(rng) - 1)});
  }
  return model;
}

struct ProcessOptions {
  double kind_effect = 0.05;  // sd of a kind's log effect in a process
  double node_effect = 0.05;  // scale of a node's own (Student-t, 3 df) log effect
  double run_noise = 0.03;    // sd of a node's log time from run to run
  // sd of the log effect shared by a stage of consecutive nodes (as the early
  // blocks of mobilenet_v2 ran 2-6x faster in one process than in others)
  double stage_effect = 0.3;
  int stage_nodes = 6;
  bool drift = true;          // the machine's speed: 1x-1.9x, switching within the process
  // Above 0: instead of drifting, the processes of this side run at this
  // speed, each off it by a log-normal factor of sd 0.05 (the machine's
  // state in the minute a side was profiled in, shared by its processes).
  double side_speed = 0;
  // How a node's time scales with the machine's speed: time * speed^exponent,
  // convolutions by one exponent, the other kinds by another (a slower
  // machine is not slower at everything alike: measured on resnet18, the
  // run at equal speed 0.1% slower per 1% of speed).
  double conv_exponent = 1;
  double other_exponent = 1;
};

// One process profiling `model` for `runs` runs, with `extra` added to the
// nodes' times (a change under test), as a report of top-level nodes.
Report Process(const std::vector<SimNode>& model, const std::vector<double>& extra_ns, double uniform, int runs,
               const ProcessOptions& o, std::mt19937_64& rng, const std::string& name) {
  std::normal_distribution<double> normal(0, 1);
  std::student_t_distribution<double> heavy(3);
  std::uniform_real_distribution<double> unit(0, 1);
  std::map<std::string, double> kind_effect;
  for (const SimNode& n : model) {
    if (!kind_effect.count(n.kind)) kind_effect[n.kind] = o.kind_effect * normal(rng);
  }
  std::uniform_int_distribution<int> stage_start(0, std::max<int>(0, static_cast<int>(model.size()) - o.stage_nodes));
  const int stage = stage_start(rng);
  const double stage_effect = o.stage_effect * normal(rng);
  // The speed: a level for the process, and a chance to switch to another.
  double level = o.side_speed > 0 ? o.side_speed * std::exp(0.05 * normal(rng)) : o.drift ? 1 + 0.9 * unit(rng) : 1;
  std::vector<double> speed(runs);
  for (int r = 0; r < runs; ++r) {
    if (o.side_speed <= 0 && o.drift && unit(rng) < 0.05) level = 1 + 0.9 * unit(rng);
    speed[r] = level;
  }
  Report report;
  report.model = "m";
  report.process = name;
  report.runs = runs;
  report.timer_overhead_ns = 20;
  std::vector<int64_t> totals(runs, 0);
  for (size_t i = 0; i < model.size(); ++i) {
    const bool in_stage = static_cast<int>(i) >= stage && static_cast<int>(i) < stage + o.stage_nodes;
    const double effect = kind_effect[model[i].kind] + o.node_effect * heavy(rng) + (in_stage ? stage_effect : 0);
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = model[i].kind;
    node.identity.module = absl::StrCat("m", i);
    node.identity.label = absl::StrCat("m", i, "/", model[i].kind);
    std::vector<int64_t> times;
    for (int r = 0; r < runs; ++r) {
      const double exponent = model[i].kind == "aten::conv2d" ? o.conv_exponent : o.other_exponent;
      const double ns =
          (model[i].ns * std::exp(effect + o.run_noise * normal(rng)) + extra_ns[i]) * std::pow(speed[r], exponent) * uniform;
      times.push_back(static_cast<int64_t>(ns));
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

// Several processes merged into one report (as merge or --workers make it).
Report Merged(const std::vector<SimNode>& model, const std::vector<double>& extra_ns, double uniform, int processes,
              int runs, const ProcessOptions& o, std::mt19937_64& rng, const std::string& name) {
  Report merged;
  for (int p = 0; p < processes; ++p) {
    Report one = Process(model, extra_ns, uniform, runs, o, rng, absl::StrCat(name, p));
    if (p == 0) {
      merged = one;
      merged.process = name;
      merged.columns[0].run_total.clear();
      for (NodeRecord& node : merged.nodes) node.metrics = {Series{}}, node.calls.clear();
      merged.runs = 0;
    }
    for (size_t i = 0; i < one.nodes.size(); ++i) {
      auto& times = merged.nodes[i].metrics[0].total;
      times.insert(times.end(), one.nodes[i].metrics[0].total.begin(), one.nodes[i].metrics[0].total.end());
      merged.nodes[i].calls.insert(merged.nodes[i].calls.end(), one.nodes[i].calls.begin(), one.nodes[i].calls.end());
    }
    const auto& totals = one.columns[0].run_total;
    merged.columns[0].run_total.insert(merged.columns[0].run_total.end(), totals.begin(), totals.end());
    merged.run_sources.push_back(RunSource{absl::StrCat("worker ", p + 1), merged.runs, runs, one.process});
    merged.runs += runs;
  }
  merged.Finalize();
  return merged;
}

TEST(ProcessSpeedTest, EstimatesTheSpeedOfEveryRun) {
  std::mt19937_64 rng(1);
  const std::vector<SimNode> model = Model(rng, 80);
  std::normal_distribution<double> noise(0, 0.03);
  std::vector<std::vector<double>> base(model.size()), current(model.size());
  const std::vector<double> speeds = {1.0, 1.0, 1.8, 1.8, 1.2, 1.0, 1.9, 1.1, 1.0, 1.5};
  std::vector<SpeedNode> nodes;
  for (size_t i = 0; i < model.size(); ++i) {
    for (double s : speeds) {
      base[i].push_back(model[i].ns * std::exp(noise(rng)));
      current[i].push_back(model[i].ns * s * std::exp(noise(rng)));
    }
    nodes.push_back(SpeedNode{base[i], current[i], static_cast<int>(i)});
  }
  const ProcessSpeed speed(nodes);
  ASSERT_TRUE(speed.valid());
  EXPECT_EQ(speed.reference_nodes(), 80);
  for (size_t r = 0; r < speeds.size(); ++r) {
    EXPECT_NEAR(speed.base_log_speed()[r], 0, 0.02) << r;
    EXPECT_NEAR(speed.current_log_speed()[r], std::log(speeds[r]), 0.03) << r;  // nodes vary by 3% a run
  }
  const std::vector<double> at_equal = ProcessSpeed::AtEqualSpeed(current[0], speed.current_log_speed());
  for (size_t r = 0; r < speeds.size(); ++r) EXPECT_NEAR(at_equal[r], current[0][r] / speeds[r], 0.03 * current[0][r]);
}

TEST(ProcessSpeedTest, ANewCostWeighsNothingAndFewNodesGiveNoSpeed) {
  std::vector<std::vector<double>> base, current;
  for (int i = 0; i < 10; ++i) {
    base.push_back(std::vector<double>(8, 1e5 * (i + 1)));
    current.push_back(std::vector<double>(8, 1.5e5 * (i + 1)));  // a machine 1.5x slower
  }
  base.push_back(std::vector<double>(8, 1e3));  // a node that costs nothing in the base ...
  current.push_back(std::vector<double>(8, 6.6e6));  // ... and 6.6 ms now
  std::vector<SpeedNode> nodes;
  for (size_t i = 0; i < base.size(); ++i) nodes.push_back(SpeedNode{base[i], current[i], static_cast<int>(i)});
  const ProcessSpeed speed(nodes);
  ASSERT_TRUE(speed.valid());
  for (double s : speed.current_log_speed()) EXPECT_NEAR(s, std::log(1.5), 1e-9);
  // The new cost's base time is next to nothing (1 us of 5.5 ms): its
  // 6600x weighs 1e3 / 5.5e6 x log(6600) = 0.16%.
  EXPECT_LT(speed.total_allowance(), 0.002);
  EXPECT_FALSE(ProcessSpeed(absl::MakeConstSpan(nodes).subspan(0, ProcessSpeed::kMinReferenceNodes - 1)).valid());
}

struct Calls {
  int slower = 0, faster = 0, same = 0, trials = 0;
};

// Trials of check as CI runs it: the baseline made by one invocation, the
// current by another, each `processes` processes (of 30 runs, or 10 each
// when several); `extra_share`: a new node's cost as a share of the base time.
Calls TotalCalls(double extra_share, int trials, uint64_t seed, int processes = 1, const ProcessOptions& o = {}) {
  std::mt19937_64 rng(seed);
  Calls calls;
  for (int t = 0; t < trials; ++t) {
    std::vector<SimNode> model = Model(rng, 60);
    double base_ns = 0;
    for (const SimNode& n : model) base_ns += n.ns;
    model.push_back({"graphprof_test::busy_wait", 1e3});
    std::vector<double> none(model.size(), 0.0), extra(model.size(), 0.0);
    extra.back() = extra_share * base_ns;
    const Report base = processes == 1 ? Process(model, none, 1, 30, o, rng, "base")
                                       : Merged(model, none, 1, processes, 10, o, rng, "base");
    const Report current = processes == 1 ? Process(model, extra, 1, 30, o, rng, "current")
                                          : Merged(model, extra, 1, processes, 10, o, rng, "current");
    const ReportDiff diff = DiffReports(base, current);
    EXPECT_EQ(diff.noise_model, processes == 1 ? NoiseModel::kRunsBetweenProcesses : NoiseModel::kProcesses);
    calls.slower += diff.total.verdict == Verdict::kSlower;
    calls.faster += diff.total.verdict == Verdict::kFaster;
    calls.same += diff.total.verdict == Verdict::kSame;
    ++calls.trials;
  }
  return calls;
}

void Print(const char* what, const Calls& c) {
  std::printf("%s: %d slower, %d faster, %d same of %d\n", what, c.slower, c.faster, c.same, c.trials);
}

// The run total's false calls stay within alpha (0.05) both ways, with one
// process a side and with five.
TEST(BetweenProcessesTest, TheRunTotalOfAnAACallsNothingBeyondAlpha) {
  const Calls one = TotalCalls(0, 200, 7);
  Print("A/A, one process a side", one);
  EXPECT_LE(one.slower + one.faster, 200 * 0.05) << "slower " << one.slower << ", faster " << one.faster;
  const Calls five = TotalCalls(0, 100, 17, 5);
  Print("A/A, five processes a side", five);
  EXPECT_LE(five.slower + five.faster, 100 * 0.05) << "slower " << five.slower << ", faster " << five.faster;
}

// Power on a new cost of 5% of the run: never faster; called slower in at
// least the share measured here less three binomial standard deviations.
// With the processes above, one process a side calls it in 1.5% of trials
// (their effects add up to more than 5%) and five a side in 73%: several
// processes a side measure what processes differ by, one process a side
// can only bound it. With milder processes (kinds 2%, nodes 1%, a stage
// 0.1) one process a side calls it in 62% (measured on real processes of
// mobilenet_v2: 25-31%, docs/statistics.md).
TEST(BetweenProcessesTest, ANewCostOfFivePercentIsSlowerAndNeverFaster) {
  const Calls one = TotalCalls(0.05, 200, 8);
  Print("+5% new cost, one process a side", one);
  EXPECT_EQ(one.faster, 0);
  const Calls five = TotalCalls(0.05, 100, 18, 5);
  Print("+5% new cost, five processes a side", five);
  EXPECT_EQ(five.faster, 0);
  EXPECT_GE(five.slower, 100 * 0.60) << "power: " << five.slower << " of 100";
  ProcessOptions mild;
  mild.kind_effect = 0.02;
  mild.node_effect = 0.01;
  mild.stage_effect = 0.1;
  const Calls one_mild = TotalCalls(0.05, 200, 28, 1, mild);
  Print("+5% new cost, one process a side, milder processes", one_mild);
  EXPECT_EQ(one_mild.faster, 0);
  EXPECT_GE(one_mild.slower, 200 * 0.50) << "power: " << one_mild.slower << " of 200";
  const Calls aa_mild = TotalCalls(0, 200, 29, 1, mild);
  Print("A/A, one process a side, milder processes", aa_mild);
  EXPECT_LE(aa_mild.slower + aa_mild.faster, 200 * 0.05);
}

TEST(BetweenProcessesTest, OneProcessASideTestsNoNodeAndSaysWhy) {
  std::mt19937_64 rng(9);
  std::vector<SimNode> model = Model(rng, 30);
  std::vector<double> none(model.size(), 0.0), slowed(model.size(), 0.0);
  slowed[3] = 5 * model[3].ns;  // one node 6x slower: a process could not tell
  const Report base = Process(model, none, 1, 30, {}, rng, "base");
  const Report current = Process(model, slowed, 1, 30, {}, rng, "current");
  const ReportDiff diff = DiffReports(base, current);
  ASSERT_TRUE(diff.speed_removed());
  EXPECT_EQ(diff.reference_nodes, 30);
  for (const NodeDelta& d : diff.nodes) {
    EXPECT_FALSE(d.stats.tested) << d.name;
    EXPECT_EQ(d.stats.reason, "one process a side") << d.name;
    EXPECT_EQ(d.stats.verdict, Verdict::kInconclusive);
  }
  EXPECT_EQ(diff.module_verdicts.of(Verdict::kInconclusive), diff.module_verdicts.total());
  EXPECT_FALSE(diff.speed.tested);
  EXPECT_EQ(diff.speed.reason, "one process a side");
  EXPECT_TRUE(absl::StrContains(diff.noise_note, "compared at equal machine speed")) << diff.noise_note;
  EXPECT_TRUE(absl::StrContains(RenderDiff(diff), "  speed      ")) << RenderDiff(diff);
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  EXPECT_EQ(j["noise_model"], "runs between processes");
  EXPECT_EQ(j["reference_nodes"], 30);
  EXPECT_EQ(j["speed"]["reason"], "one process a side");
}

// Each side profiled in a minute of its own (the baseline earlier, the
// current side now: CI's case), the current side's machine 30% slower, and
// convolutions slowing more than the other kinds with the machine (speed^1.2
// against speed^0.6): at equal speed the run total still moves with the
// sides' speeds, so a test blind to them calls A/As changed. With the
// processes' speeds as a covariate (verdict.h) the A/A's false calls stay
// within alpha and a new cost of 5% of the base's run is still called
// slower.
TEST(BetweenProcessesTest, SidesAtOtherSpeedsAreNotAChange) {
  std::mt19937_64 rng(12);
  std::vector<SimNode> model = Model(rng, 40);
  double base_total = 0;
  for (const SimNode& n : model) base_total += n.ns;
  model.push_back({"graphprof_test::busy_wait", 1e3});
  const std::vector<double> none(model.size(), 0.0);
  ProcessOptions base_side;
  base_side.kind_effect = 0.01;
  base_side.node_effect = 0.01;
  base_side.stage_effect = 0.02;
  base_side.side_speed = 1;
  base_side.conv_exponent = 1.2;
  base_side.other_exponent = 0.6;
  ProcessOptions slow_side = base_side;
  slow_side.side_speed = 1.3;
  // A new cost of 5% of the base's run where the current side runs (4% at equal speed).
  std::vector<double> extra(model.size(), 0.0);
  extra.back() = 0.05 * base_total / std::pow(1.3, base_side.other_exponent);
  Calls aa, slowed;
  int blind = 0;
  constexpr int kTrials = 100;
  for (int t = 0; t < kTrials; ++t) {
    for (bool change : {false, true}) {
      const Report base = Merged(model, none, 1, 5, 6, base_side, rng, "base");
      const Report current = Merged(model, change ? extra : none, 1, 5, 6, slow_side, rng, "current");
      const ReportDiff diff = DiffReports(base, current);
      ASSERT_EQ(diff.noise_model, NoiseModel::kProcesses);
      Calls& c = change ? slowed : aa;
      c.slower += diff.total.verdict == Verdict::kSlower;
      c.faster += diff.total.verdict == Verdict::kFaster;
      c.same += diff.total.verdict == Verdict::kSame;
      ++c.trials;
      if (!change) {
        // The same totals at equal speed, compared by Welch alone.
        std::vector<RunRange> bp, cp;
        for (const RunSource& s : base.run_sources) bp.push_back({s.first_run, s.first_run + s.runs});
        for (const RunSource& s : current.run_sources) cp.push_back({s.first_run, s.first_run + s.runs});
        std::vector<SpeedNode> nodes;
        std::vector<std::vector<double>> series;
        for (size_t i = 0; i < model.size(); ++i) {
          const auto& b = base.nodes[i].metrics[0].total;
          const auto& c2 = current.nodes[i].metrics[0].total;
          series.emplace_back(b.begin(), b.end());
          series.emplace_back(c2.begin(), c2.end());
        }
        for (size_t i = 0; i < model.size(); ++i) {
          nodes.push_back(SpeedNode{series[2 * i], series[2 * i + 1], static_cast<int>(i)});
        }
        const ProcessSpeed speed(nodes);
        const std::vector<double> bt(base.columns[0].run_total.begin(), base.columns[0].run_total.end());
        const std::vector<double> ct(current.columns[0].run_total.begin(), current.columns[0].run_total.end());
        const std::vector<double> be = ProcessSpeed::AtEqualSpeed(bt, speed.base_log_speed());
        const std::vector<double> ce = ProcessSpeed::AtEqualSpeed(ct, speed.current_log_speed());
        const RowComparison plain =
            CompareRow(RowSample{be, bp}, RowSample{ce, cp}, NoiseModel::kProcesses, 0, VerdictOptions{});
        blind += plain.p < VerdictOptions{}.alpha;
      }
    }
  }
  Print("A/A, sides at 1x and 1.3x", aa);
  Print("+5% new cost, sides at 1x and 1.3x", slowed);
  std::printf("the same A/As at equal speed without the covariate: %d of %d significant\n", blind, kTrials);
  EXPECT_LE(aa.slower + aa.faster, kTrials * 0.05) << "slower " << aa.slower << ", faster " << aa.faster;
  EXPECT_EQ(slowed.faster, 0);
  EXPECT_GE(slowed.slower, kTrials * 0.8) << "power: " << slowed.slower << " of " << kTrials;
  EXPECT_GE(blind, kTrials / 2) << "the case would not show what the covariate is for";
}

// Several processes a side, a machine of steady speed from process to
// process (3% apart): a uniform slowdown of 15% is the speed row's, called
// slower; the rows at equal speed stay unchanged.
TEST(BetweenProcessesTest, AUniformSlowdownIsTheSpeedRowsWithSeveralProcesses) {
  std::mt19937_64 rng(10);
  const std::vector<SimNode> model = Model(rng, 40);
  const std::vector<double> none(model.size(), 0.0);
  ProcessOptions steady;
  steady.drift = false;
  steady.kind_effect = 0.01;
  steady.node_effect = 0.01;
  steady.stage_effect = 0;
  const Report base = Merged(model, none, 1, 5, 10, steady, rng, "base");
  const Report current = Merged(model, none, 1.15, 5, 10, steady, rng, "current");
  const ReportDiff diff = DiffReports(base, current);
  EXPECT_EQ(diff.noise_model, NoiseModel::kProcesses);
  ASSERT_TRUE(diff.speed_removed());
  EXPECT_TRUE(diff.speed.tested);
  EXPECT_EQ(diff.speed.verdict, Verdict::kSlower) << FormatChange(diff.speed);
  EXPECT_NEAR(diff.speed.change, 0.15, 0.03);
  EXPECT_NE(diff.total.verdict, Verdict::kSlower) << "at equal speed nothing changed: " << FormatChange(diff.total);
  EXPECT_EQ(diff.node_verdicts.of(Verdict::kSlower), 0);
  // The gate's "total" fails on it.
  absl::StatusOr<GateResult> gate = RunGate(base, current, GateOptions{});
  ASSERT_TRUE(gate.ok()) << gate.status();
  EXPECT_EQ(gate->outcome, GateOutcome::kFailed);
  ASSERT_EQ(gate->offenders.size(), 1u);
  EXPECT_EQ(gate->offenders[0].name, "machine speed (every node alike)");
  // An A/A of the same processes' kind passes.
  const Report again = Merged(model, none, 1, 5, 10, steady, rng, "again");
  absl::StatusOr<GateResult> aa = RunGate(base, again, GateOptions{});
  ASSERT_TRUE(aa.ok()) << aa.status();
  EXPECT_EQ(aa->outcome, GateOutcome::kPassed) << FormatChange(aa->diff.speed) << " " << FormatChange(aa->diff.total);
}

}  // namespace
}  // namespace graphprof
