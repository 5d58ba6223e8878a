#include "profilers/report/report_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

struct FakeNode {
  std::string kind;
  std::string module;
  std::string source;
  int64_t ns;  // per run
  bool executed = true;
};

// A report of top-level nodes with constant per-run times.
Report MakeReport(const std::vector<FakeNode>& nodes, int runs = 2) {
  Report report;
  report.model = "m";
  report.runs = runs;
  int64_t total = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = nodes[i].kind;
    node.identity.module = nodes[i].module;
    node.identity.source = nodes[i].source;
    node.identity.label = nodes[i].module.empty() ? nodes[i].kind : nodes[i].module + "/" + nodes[i].kind;
    node.metrics = {Series{std::vector<int64_t>(runs, nodes[i].executed ? nodes[i].ns : 0), {}}};
    node.calls.assign(runs, nodes[i].executed ? 1 : 0);
    total += nodes[i].ns;
    report.nodes.push_back(node);
  }
  report.columns[0].run_total.assign(runs, total);
  report.Finalize();
  return report;
}

const NodeDelta* Find(const ReportDiff& diff, NodeDelta::Match match, const std::string& module) {
  for (const NodeDelta& d : diff.nodes) {
    if (d.match == match && d.module == module) return &d;
  }
  return nullptr;
}

// A pass that folds bn into the conv (which becomes an MKLDNN op), moves the
// linear's source line and adds a layout op; the base has a never-executed
// conv twin (a scripted padding_mode branch) and a dropout the pass removed.
const std::vector<FakeNode> kBase = {
    {"aten::conv2d", "layer1.conv", "m.py:1", 600},
    {"aten::conv2d", "layer1.conv", "m.py:9", 0, /*executed=*/false},
    {"aten::batch_norm", "layer1.bn", "m.py:2", 200},
    {"aten::relu", "layer1.relu", "m.py:3", 100},
    {"aten::dropout", "layer2", "m.py:7", 50},
    {"aten::linear", "fc", "m.py:4", 100},
};
const std::vector<FakeNode> kCurrent = {
    {"aten::contiguous", "", "", 50},
    {"prim::mkldnn_convolution", "layer1.conv", "m.py:1", 700},
    {"aten::relu", "layer1.relu", "m.py:3", 100},
    {"aten::linear", "fc", "m.py:5", 100},
};

TEST(ReportDiffTest, MatchesExecutedNodesByKeysThatSurvivePasses) {
  const ReportDiff diff = DiffReports(MakeReport(kBase), MakeReport(kCurrent));
  EXPECT_DOUBLE_EQ(diff.base_total_ns, 1050);
  EXPECT_DOUBLE_EQ(diff.current_total_ns, 950);
  EXPECT_EQ(diff.same, 1);             // relu
  EXPECT_EQ(diff.kind_and_module, 1);  // linear, source moved
  EXPECT_EQ(diff.replaced, 1);         // conv -> mkldnn conv
  EXPECT_EQ(diff.merged, 1);           // bn into the conv, which gained 100 ns
  EXPECT_EQ(diff.removed, 1);          // dropout
  EXPECT_EQ(diff.added, 1);            // contiguous
  EXPECT_EQ(diff.unexecuted, 1) << "the conv twin never ran";

  const NodeDelta* conv = Find(diff, NodeDelta::Match::kReplaced, "layer1.conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->base_id, 0) << "the live conv, never its dead twin";
  EXPECT_EQ(conv->current_id, 1);
  EXPECT_EQ(conv->kind, "aten::conv2d -> prim::mkldnn_convolution");
  const NodeDelta* bn = Find(diff, NodeDelta::Match::kMerged, "layer1.bn");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->current_id, 1) << "merged into the conv";
  EXPECT_DOUBLE_EQ(bn->delta_ns(), -200);
  EXPECT_NEAR(diff.matched_time_fraction, 1000.0 / 1050.0, 1e-12);

  // Node deltas add up to the change in node time.
  double sum = 0;
  for (const NodeDelta& d : diff.nodes) sum += d.delta_ns();
  EXPECT_DOUBLE_EQ(sum, 950 - 1050);

  // Per module, sorted by impact: layer1 900 -> 800 and its children.
  ASSERT_FALSE(diff.modules.empty());
  const GroupDelta* layer1 = nullptr;
  for (const GroupDelta& g : diff.modules) {
    if (g.name == "layer1") layer1 = &g;
  }
  ASSERT_NE(layer1, nullptr);
  EXPECT_DOUBLE_EQ(layer1->base_ns, 900);
  EXPECT_DOUBLE_EQ(layer1->current_ns, 800);
  EXPECT_EQ(layer1->depth, 1);
  for (size_t i = 1; i < diff.modules.size(); ++i) {
    EXPECT_GE(std::fabs(diff.modules[i - 1].delta_ns()), std::fabs(diff.modules[i].delta_ns()));
  }

  const std::string text = RenderDiff(diff);
  EXPECT_TRUE(absl::StrContains(text, "1 same, 1 kind+module, 1 replaced, 1 merged, 1 added, 1 removed")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1 never executed, not shown\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "matched    95.2%")) << text;
  EXPECT_TRUE(absl::StrContains(text, "layer1.bn/aten::batch_norm -> layer1.conv/prim::mkldnn_co")) << text;
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  EXPECT_EQ(j["nodes"].size(), 6u);
  EXPECT_NEAR(j["matched_time_fraction"].get<double>(), 0.952, 1e-3);
  EXPECT_EQ(j["modules"][0]["module"], "layer1.bn") << "the largest change first";
}

TEST(ReportDiffTest, DiffAllIncludesNodesThatNeverRan) {
  DiffOptions options;
  options.include_unexecuted = true;
  const ReportDiff diff = DiffReports(MakeReport(kBase), MakeReport(kCurrent), options);
  EXPECT_EQ(diff.unexecuted, 0);
  EXPECT_EQ(diff.removed, 1) << "the dropout";
  EXPECT_EQ(diff.merged, 2) << "the batch norm and the dead twin, into the MKLDNN conv";
}

TEST(ReportDiffTest, IdenticalReportsHaveNoDelta) {
  Report r = MakeReport({{"aten::add", "", "a:1", 10}, {"aten::mul", "", "a:2", 20}, {"aten::add", "", "a:1", 30}});
  ReportDiff diff = DiffReports(r, r);
  EXPECT_EQ(diff.same, 3);
  EXPECT_DOUBLE_EQ(diff.speedup(), 1.0);
  EXPECT_DOUBLE_EQ(diff.matched_time_fraction, 1.0);
  for (const NodeDelta& d : diff.nodes) {
    EXPECT_DOUBLE_EQ(d.delta_ns(), 0);
    EXPECT_EQ(d.base_id, d.current_id) << "occurrences pair in order";
  }
}

TEST(ReportDiffTest, BareGraphsDoNotPairDifferentKindsAtTheRoot) {
  const ReportDiff diff = DiffReports(MakeReport({{"aten::add", "", "", 10}}), MakeReport({{"aten::mul", "", "", 10}}));
  EXPECT_EQ(diff.replaced, 0);
  EXPECT_EQ(diff.added, 1);
  EXPECT_EQ(diff.removed + diff.merged, 1);
}

// --- Verdicts: rows compared run by run. ---

// A report of top-level nodes whose per-run times are `median` times a
// log-normal factor (relative spread `sigma`), split into `processes`
// merged processes (run_sources) when more than one.
Report NoisyReport(const std::vector<std::pair<std::string, double>>& nodes, int runs, double sigma,
                   std::mt19937_64& rng, int processes = 1, const std::string& process = "p") {
  Report report;
  report.model = "m";
  report.process = process;
  report.runs = runs;
  report.timer_overhead_ns = 10;
  std::normal_distribution<double> noise(0, sigma);
  std::vector<int64_t> totals(runs, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = "aten::mul";
    node.identity.module = nodes[i].first;
    node.identity.label = nodes[i].first + "/mul";
    std::vector<int64_t> times;
    for (int r = 0; r < runs; ++r) {
      times.push_back(static_cast<int64_t>(nodes[i].second * std::exp(noise(rng))));
      totals[r] += times.back();
    }
    node.metrics = {Series{times, {}}};
    node.calls.assign(runs, 1);
    report.nodes.push_back(node);
  }
  report.columns[0].run_total = totals;
  if (processes > 1) {
    const int per = runs / processes;
    for (int p = 0; p < processes; ++p) {
      report.run_sources.push_back(RunSource{absl::StrCat("worker ", p + 1), p * per,
                                             p + 1 == processes ? runs - p * per : per,
                                             absl::StrCat(process, p)});
    }
  }
  report.Finalize();
  return report;
}

// Twenty nodes of 100 us, 3% noise, 10 runs; in `current` m7 takes 150 us.
struct OneSlowedNode {
  Report base, current;
};
OneSlowedNode TwentyNodesOneSlowed(const std::string& base_process, const std::string& current_process) {
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::string, double>> base_nodes, slow_nodes;
  for (int i = 0; i < 20; ++i) {
    base_nodes.emplace_back(absl::StrCat("m", i), 1e5);
    slow_nodes.emplace_back(absl::StrCat("m", i), i == 7 ? 1.5e5 : 1e5);
  }
  Report base = NoisyReport(base_nodes, 10, 0.03, rng, 1, base_process);
  return {std::move(base), NoisyReport(slow_nodes, 10, 0.03, rng, 1, current_process)};
}

TEST(ReportDiffVerdictTest, ASlowedNodeIsSlowerAndTheOthersAreNot) {
  // Both sides in one process (as --ab makes them): runs are the unit.
  const auto [base, current] = TwentyNodesOneSlowed("one process", "one process");
  const ReportDiff diff = DiffReports(base, current);
  for (const NodeDelta& d : diff.nodes) {
    if (d.module == "m7") {
      EXPECT_EQ(d.stats.verdict, Verdict::kSlower) << FormatChange(d.stats);
      EXPECT_NEAR(d.stats.change, 0.5, 0.1);
    } else {
      EXPECT_NE(d.stats.verdict, Verdict::kSlower) << d.module << " " << FormatChange(d.stats);
      EXPECT_NE(d.stats.verdict, Verdict::kFaster) << d.module << " " << FormatChange(d.stats);
    }
  }
  EXPECT_EQ(diff.node_verdicts.of(Verdict::kSlower), 1);
  EXPECT_EQ(diff.node_verdicts.total(), 20);
  // The total moved by 2.5%: beyond the 2% threshold only if significant.
  EXPECT_NE(diff.total.verdict, Verdict::kFaster);
  EXPECT_EQ(diff.noise_model, NoiseModel::kRuns);
  EXPECT_EQ(diff.noise_note, "");
  // Renderings carry the statistics.
  const std::string text = RenderDiff(diff, 5);
  EXPECT_TRUE(absl::StrContains(text, "slower")) << text;
  EXPECT_TRUE(absl::StrContains(text, "verdicts   nodes: 1 slower")) << text;
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  EXPECT_EQ(j["verdict_counts"]["nodes"]["slower"], 1);
  EXPECT_EQ(j["nodes"][0]["verdict"], "slower");
  for (const char* key : {"change", "change_low", "change_high", "p", "q"}) {
    EXPECT_TRUE(j["nodes"][0][key].is_number()) << key;
    EXPECT_TRUE(j["total"].contains(key)) << key;
  }
  EXPECT_EQ(j["noise_model"], "runs");
  const std::string csv = DiffToCsv(diff);
  EXPECT_TRUE(absl::StrContains(csv.substr(0, csv.find('\n')), ",verdict,change,change_low,change_high,p,q,")) << csv;
}

// Different processes, one each: rows are compared at equal speed, and no
// node is tested (process_speed.h; tests/process_speed_test.cc).
TEST(ReportDiffVerdictTest, DifferentProcessesOneASideTestOnlyTheTotal) {
  const auto [base, current] = TwentyNodesOneSlowed("base process", "current process");
  const ReportDiff diff = DiffReports(base, current);
  EXPECT_EQ(diff.noise_model, NoiseModel::kRunsBetweenProcesses);
  EXPECT_TRUE(diff.speed_removed());
  EXPECT_EQ(diff.node_verdicts.of(Verdict::kInconclusive), 20);
  for (const NodeDelta& d : diff.nodes) {
    EXPECT_EQ(d.stats.reason, "one process a side") << d.module;
    if (d.module == "m7") EXPECT_NEAR(d.stats.change, 0.5, 0.1) << "the change is still estimated, at equal speed";
  }
  EXPECT_TRUE(diff.total.tested);
  EXPECT_GT(diff.total.allowance, 0.02) << "m7's +50% is 2.5% of the run: a process could do that";
  // A metric column in nanoseconds (as backward or device time): neither a
  // speed nor an allowance, so with one process a side it is not tested.
  auto with_device = [](Report r) {
    Column device;
    device.name = "device";
    device.unit = Unit::kNanoseconds;
    const int m = r.AddMetric(device);
    for (NodeRecord& node : r.nodes) node.metrics[m].total = node.metrics[0].total;
    r.columns[m].run_total = r.columns[0].run_total;
    r.Finalize();
    return r;
  };
  const ReportDiff columns = DiffReports(with_device(base), with_device(current));
  const int k = columns.FindColumn("device");
  ASSERT_GE(k, 0);
  ASSERT_TRUE(columns.columns[k].has_total_stats);
  EXPECT_EQ(columns.columns[k].total_stats.reason, "one process a side");
  for (const NodeDelta& d : columns.nodes) {
    EXPECT_FALSE(d.column_stats[k].tested) << d.module;
    EXPECT_EQ(d.column_stats[k].reason, "one process a side") << d.module;
  }
  EXPECT_TRUE(columns.total.tested);
  // The same runs in another process: nothing differs, the allowance is 0,
  // and the total is still tested (the same).
  Report copy = base;
  copy.process = "a copy's process";
  const ReportDiff same = DiffReports(base, copy);
  EXPECT_EQ(same.noise_model, NoiseModel::kRunsBetweenProcesses);
  EXPECT_TRUE(same.total.tested);
  EXPECT_EQ(same.total.verdict, Verdict::kSame) << FormatChange(same.total);
  EXPECT_TRUE(absl::StrContains(diff.noise_note, "profile both sides in several processes")) << diff.noise_note;
  // A front end's names for its options.
  DiffOptions cli;
  cli.names.workers = "--workers";
  EXPECT_TRUE(absl::StrContains(DiffReports(base, current, cli).noise_note, "profile both sides with --workers"));
}

TEST(ReportDiffVerdictTest, OneProcessOnBothSidesNeedsNoNote) {
  std::mt19937_64 rng(12);
  const Report a = NoisyReport({{"x", 1e5}}, 10, 0.02, rng, 1, "same-process");
  const Report b = NoisyReport({{"x", 1e5}}, 10, 0.02, rng, 1, "same-process");
  EXPECT_EQ(DiffReports(a, b).noise_note, "");
}

TEST(ReportDiffVerdictTest, ProcessesAreTheUnitWhenBothSidesMergeSeveral) {
  std::mt19937_64 rng(13);
  const Report a = NoisyReport({{"x", 1e5}, {"y", 2e5}}, 30, 0.02, rng, 3, "a");
  const Report b = NoisyReport({{"x", 1e5}, {"y", 2e5}}, 30, 0.02, rng, 3, "b");
  const ReportDiff diff = DiffReports(a, b);
  EXPECT_EQ(diff.noise_model, NoiseModel::kProcesses);
  EXPECT_EQ(diff.base_processes, 3);
  EXPECT_EQ(diff.noise_note, "");
  // The same processes on both sides (--ab --workers): paired.
  const Report c = NoisyReport({{"x", 1e5}, {"y", 2e5}}, 30, 0.02, rng, 3, "a");
  EXPECT_EQ(DiffReports(a, c).noise_model, NoiseModel::kPairedProcesses);
}

// Between processes, a module or kind whose time is mostly one node's is
// that node: it needs as many processes a side as a node row (8); modules
// summing several nodes are tested with fewer.
TEST(ReportDiffVerdictTest, AModuleThatIsOneNodeNeedsTheProcessesANodeNeeds) {
  for (int processes : {3, 8}) {
    std::mt19937_64 rng(17);
    const int runs = 5 * processes;
    std::vector<std::pair<std::string, double>> base_nodes = {
        {"a", 2e5}, {"a.s", 1e4}, {"c.x", 1e5}, {"c.y", 1e5}, {"c.z", 1e5}};
    // Unchanged nodes: the machine's speed is estimated from them.
    for (int i = 0; i < 12; ++i) base_nodes.push_back({absl::StrCat("d.n", i), 1e5});
    std::vector<std::pair<std::string, double>> current_nodes = base_nodes;
    current_nodes[0].second = 2.6e5;  // module a: its one big node 30% slower
    for (auto& node : current_nodes) {
      if (node.first[0] == 'c') node.second *= 1.3;  // module c: three nodes 30% slower
    }
    const ReportDiff diff = DiffReports(NoisyReport(base_nodes, runs, 0.02, rng, processes, "a"),
                                        NoisyReport(current_nodes, runs, 0.02, rng, processes, "b"));
    ASSERT_EQ(diff.noise_model, NoiseModel::kProcesses);
    const GroupDelta* a = nullptr;
    const GroupDelta* c = nullptr;
    for (const GroupDelta& g : diff.modules) {
      if (g.name == "a") a = &g;
      if (g.name == "c") c = &g;
    }
    ASSERT_NE(a, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->stats.verdict, Verdict::kSlower) << processes << " processes: " << FormatChange(c->stats);
    if (processes < 8) {
      EXPECT_FALSE(a->stats.tested) << FormatChange(a->stats);
      EXPECT_TRUE(absl::StrContains(a->stats.reason, "one node holds most of its time")) << a->stats.reason;
    } else {
      EXPECT_EQ(a->stats.verdict, Verdict::kSlower) << FormatChange(a->stats);
    }
  }
}

TEST(ReportDiffVerdictTest, RemovedAndMergedNodesCompareWithNothing) {
  // Constant times: the base's batch norm and dropout are gone after the pass.
  const ReportDiff diff = DiffReports(MakeReport(kBase, 10), MakeReport(kCurrent, 10));
  for (const NodeDelta& d : diff.nodes) {
    if (d.match == NodeDelta::Match::kRemoved || d.match == NodeDelta::Match::kMerged) {
      EXPECT_EQ(d.stats.change, -1) << d.name;
      EXPECT_EQ(d.stats.verdict, Verdict::kFaster) << d.name << " " << FormatChange(d.stats);
    }
    if (d.match == NodeDelta::Match::kAdded) {
      EXPECT_EQ(d.stats.verdict, Verdict::kSlower) << d.name;
    }
  }
}

// A compiled program's rows (a kernel fusing the stem's batch norm, relu and
// max pool, charged to the root; one fusing a block's batch norm with its
// residual add) against an eager graph's nodes.
TEST(ReportDiffTest, KernelsFusingModulesTakeTheirNodesAndThoseModulesAreComparedWhereTheKernelIs) {
  const std::vector<FakeNode> eager = {
      {"aten::_convolution", "conv1", "r.py:1", 500}, {"aten::batch_norm", "bn1", "r.py:2", 200},
      {"aten::relu_", "relu", "r.py:3", 50},          {"aten::max_pool2d", "maxpool", "r.py:4", 300},
      {"aten::_convolution", "layer1.0.conv1", "r.py:5", 400}, {"aten::batch_norm", "layer1.0.bn1", "r.py:6", 100},
      {"aten::add_", "layer1.0", "r.py:7", 60},
  };
  const std::vector<FakeNode> compiled = {
      {"aten::convolution", "conv1", "r.py:1", 400},
      {"inductor::cpp_fused_relu_max_pool2d_0", "", "r.py:2", 250},
      {"aten::convolution", "layer1.0.conv1", "r.py:5", 350},
      {"inductor::cpp_fused_add_1", "layer1.0", "r.py:6", 80},
  };
  Report base = MakeReport(eager, 10);
  Report current = MakeReport(compiled, 10);
  base.process = current.process = "p";  // both in one process, as profile_graph --compare_model runs them
  // Without knowing what the kernels compute: the stem's modules are removed
  // and called faster by 100%.
  const ReportDiff blind = DiffReports(base, current);
  EXPECT_LT(blind.matched_time_fraction, 0.7);
  current.nodes[1].identity.fused_modules = {"bn1", "relu", "maxpool"};
  current.nodes[3].identity.fused_modules = {"layer1.0.bn1", "layer1.0"};
  const ReportDiff diff = DiffReports(base, current);
  EXPECT_DOUBLE_EQ(diff.matched_time_fraction, 1.0);
  EXPECT_EQ(diff.removed, 0);
  int merged_into_stem = 0, merged_into_block = 0;
  for (const NodeDelta& d : diff.nodes) {
    if (d.match == NodeDelta::Match::kMerged && d.current_id == 1) ++merged_into_stem;
    if (d.match == NodeDelta::Match::kMerged && d.current_id == 3) ++merged_into_block;
  }
  EXPECT_EQ(merged_into_stem, 3);
  EXPECT_EQ(merged_into_block, 1);  // layer1.0.bn1's batch norm
  std::map<std::string, const GroupDelta*> modules;
  for (const GroupDelta& g : diff.modules) modules[g.name] = &g;
  for (const char* fused : {"bn1", "relu", "maxpool"}) {
    ASSERT_TRUE(modules.count(fused)) << fused;
    EXPECT_FALSE(modules[fused]->stats.tested) << fused;
    EXPECT_EQ(modules[fused]->stats.verdict, Verdict::kInconclusive) << fused;
    EXPECT_EQ(modules[fused]->stats.reason, "fused into a kernel of (root): compared there") << fused;
  }
  EXPECT_EQ(modules["layer1.0.bn1"]->stats.reason, "fused into a kernel of layer1.0: compared there");
  // Where the kernels are, both sides hold all the time: compared.
  for (const char* whole : {"(root)", "layer1", "layer1.0", "conv1", "layer1.0.conv1"}) {
    ASSERT_TRUE(modules.count(whole)) << whole;
    EXPECT_TRUE(modules[whole]->stats.tested) << whole;
    EXPECT_EQ(modules[whole]->stats.reason, "") << whole;
  }
  EXPECT_EQ(modules["conv1"]->stats.verdict, Verdict::kFaster);
  EXPECT_EQ(modules["layer1.0"]->stats.verdict, Verdict::kFaster);  // 560 -> 430 us

  // A kernel of the root that also does part of layer1.0.bn1's work (Inductor
  // converting several weights in one kernel): the block's batch norm still
  // merges into the block's kernel, and the block is compared only at the root.
  current.nodes[1].identity.fused_modules = {"bn1", "relu", "maxpool", "layer1.0.bn1"};
  const ReportDiff wider = DiffReports(base, current);
  int bn_merges = 0;
  for (const NodeDelta& d : wider.nodes) {
    if (d.match != NodeDelta::Match::kMerged || d.module != "layer1.0.bn1") continue;
    EXPECT_EQ(d.current_id, 3);
    ++bn_merges;
  }
  EXPECT_EQ(bn_merges, 1);
  int fused_at_root = 0, conv_tested = 0;
  for (const GroupDelta& g : wider.modules) {
    if (g.name == "layer1.0.bn1" || g.name == "layer1.0" || g.name == "layer1") {
      EXPECT_EQ(g.stats.reason, "fused into a kernel of (root): compared there") << g.name;
      ++fused_at_root;
    }
    if (g.name == "layer1.0.conv1") conv_tested += g.stats.tested;
  }
  EXPECT_EQ(fused_at_root, 3);
  EXPECT_EQ(conv_tested, 1);

  // An A/A of the compiled program charges alike on both sides: every
  // module row is compared (constant times: "same").
  const ReportDiff aa = DiffReports(current, current);
  ASSERT_FALSE(aa.modules.empty());
  for (const GroupDelta& g : aa.modules) {
    EXPECT_TRUE(g.stats.tested) << g.name << ": " << g.stats.reason;
    EXPECT_EQ(g.stats.verdict, Verdict::kSame) << g.name;
  }
}

// Against a compiled program, a module with rows on one side only (its
// nodes not placed in any row) is not called faster by -100%.
TEST(ReportDiffTest, AModuleACompiledSideHasNoRowsInIsNotCompared) {
  Report base = MakeReport({{"aten::relu", "block", "r.py:1", 100}, {"aten::adaptive_avg_pool2d", "pool", "r.py:2", 50}},
                           10);
  Report current = MakeReport({{"inductor::cpp_fused_relu_0", "block", "r.py:1", 80}}, 10);
  base.process = current.process = "p";
  current.nodes[0].identity.fused_modules = {"block", "block.inner"};
  const ReportDiff diff = DiffReports(base, current);
  int pool = 0;
  for (const GroupDelta& g : diff.modules) {
    if (g.name != "pool") continue;
    ++pool;
    EXPECT_FALSE(g.stats.tested);
    EXPECT_EQ(g.stats.verdict, Verdict::kInconclusive);
    EXPECT_EQ(g.stats.reason, "rows on one side only: a compiled program places none of its time here");
  }
  EXPECT_EQ(pool, 1);
  // Between two graphs a module a pass emptied is a change like any other.
  current.nodes[0].identity.fused_modules.clear();
  for (const GroupDelta& g : DiffReports(base, current).modules) {
    if (g.name == "pool") EXPECT_EQ(g.stats.verdict, Verdict::kFaster);
  }
}

}  // namespace
}  // namespace graphprof
