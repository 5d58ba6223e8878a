// Rows on the roofline (profilers/report/roofline.h): rates from the row's
// work and the time it took, the bound and the fraction of attainable.
#include "profilers/report/roofline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "profilers/work/peaks.h"

namespace graphprof {
namespace {

// Module a holds a conv (1000 FLOPs, 100 ns) and submodule a.b a linear
// (4000 FLOPs, 200 ns); the machine: 100 GFLOP/s, 10 GB/s.
Report TwoModules(bool conv_counted = true) {
  absl::StatusOr<Report> report = ReportFromJson(absl::StrReplaceAll(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0,
      "timer_overhead_ns": 0, "run_ns": [300], "metrics": [{"name": "time"}],
      "quantities": [{"name": "flops", "unit": "flops"}, {"name": "bytes", "unit": "bytes"}],
      "peak_gflops": 100, "peak_gbps": 10,
      "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "a/conv2d", "kind": "aten::conv2d", "module": "a",
         "calls": [1], "total_ns": [100], "flops": 1000, "bytes": 100, "work_counted": COUNTED},
        {"id": 1, "parent": -1, "depth": 0, "name": "a.b/linear", "kind": "aten::linear", "module": "a.b",
         "calls": [1], "total_ns": [200], "flops": 4000, "bytes": 2000}]})",
                                                                     {{"COUNTED", conv_counted ? "true" : "false"}}));
  EXPECT_TRUE(report.ok()) << report.status();
  return *report;
}

const ViewRow& Row(const View& view, const std::string& name) {
  for (const ViewRow& row : view.rows) {
    if (row.name == name) return row;
  }
  ADD_FAILURE() << "no row " << name;
  return view.rows.front();
}

TEST(RooflineTest, NodeRatesBoundsAndFractions) {
  const Report report = TwoModules();
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0});
  ASSERT_TRUE(nodes.ok());
  // conv: 1000 FLOPs in 100 ns = 10 GFLOP/s, intensity 10 FLOP/B: 10 x 10 GB/s
  // reaches the 100 GFLOP/s peak, so compute-bound, at 10% of it.
  const RooflinePoint conv = RooflineOf(report, Row(*nodes, "a/conv2d"));
  EXPECT_DOUBLE_EQ(conv.gflops, 10);
  EXPECT_DOUBLE_EQ(conv.gbps, 1);
  EXPECT_DOUBLE_EQ(conv.intensity, 10);
  EXPECT_STREQ(conv.bound, "compute");
  EXPECT_DOUBLE_EQ(conv.fraction, 0.1);
  // linear: 20 GFLOP/s at intensity 2: memory-bound, attainable 20: at the roof.
  const RooflinePoint linear = RooflineOf(report, Row(*nodes, "a.b/linear"));
  EXPECT_DOUBLE_EQ(linear.gflops, 20);
  EXPECT_STREQ(linear.bound, "memory");
  EXPECT_DOUBLE_EQ(linear.attainable_gflops, 20);
  EXPECT_DOUBLE_EQ(linear.fraction, 1);
}

// Reviewed: a module row's work covers its subtree while its self time does
// not, so its rate was 5000 FLOPs / 100 ns = 50 GFLOP/s instead of 5000 / 300.
TEST(RooflineTest, ModuleRowsDivideTheirSubtreesWorkByItsTime) {
  const Report report = TwoModules();
  absl::StatusOr<View> modules = MakeView(report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok());
  const RooflinePoint a = RooflineOf(report, Row(*modules, "a"));
  EXPECT_DOUBLE_EQ(a.flops, 5000);
  EXPECT_DOUBLE_EQ(a.gflops, 5000.0 / 300);
  const RooflinePoint b = RooflineOf(report, Row(*modules, "a.b"));
  EXPECT_DOUBLE_EQ(b.gflops, 20);
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  EXPECT_DOUBLE_EQ(RooflineOf(report, Row(*kinds, "aten::conv2d")).gflops, 10);
}

// Reviewed: a diff's FLOP line said nothing of work that stopped (or
// started) being counted.
TEST(RooflineTest, DiffsSayHowMuchWorkIsNotCounted) {
  const ReportDiff diff = DiffReports(TwoModules(), TwoModules(/*conv_counted=*/false));
  EXPECT_DOUBLE_EQ(diff.base_uncounted_percent, 0);
  EXPECT_NEAR(diff.current_uncounted_percent, 100.0 / 3, 1e-9);
  const std::string text = RenderDiff(diff);
  EXPECT_TRUE(absl::StrContains(text, "not counted: 0.0% -> 33.3% of the run time")) << text;
}

// A node of `flops` and `bytes` per run, called `calls` times in `ns`;
// ceilings 100 GFLOP/s, 10 GB/s from memory, 40 GB/s up to 1 MB and 80 up
// to 10 KB; the BLAS named `blas` (the rest of the machine object after it).
Report OneNode(const std::string& kind, double flops, double bytes, int calls, int64_t ns,
               const std::string& blas = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\", \"blas_core\": "
                                         "\"SkylakeX\", \"vector_isa\": \"avx512f",
               const std::string& bandwidth = "[[10000, 80], [1000000, 40], [100000000, 10]]") {
  absl::StatusOr<Report> report = ReportFromJson(absl::StrReplaceAll(R"({"schema_version": 3, "model": "m", "runs": 1,
      "warmup": 0, "timer_overhead_ns": 0, "run_ns": [NS], "metrics": [{"name": "time"}],
      "quantities": [{"name": "flops", "unit": "flops"}, {"name": "bytes", "unit": "bytes"}],
      "peak_gflops": 100, "peak_gbps": 10, "bandwidth": BANDWIDTH, "machine": {"blas": "BLAS"},
      "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "n", "kind": "KIND", "module": "",
         "calls": [CALLS], "total_ns": [NS], "flops": FLOPS, "bytes": BYTES}]})",
      {{"NS", std::to_string(ns)}, {"KIND", kind}, {"CALLS", std::to_string(calls)},
       {"FLOPS", absl::StrCat(flops)}, {"BYTES", absl::StrCat(bytes)}, {"BLAS", blas},
       {"BANDWIDTH", bandwidth}}));
  EXPECT_TRUE(report.ok()) << report.status();
  return *report;
}

RooflinePoint NodePoint(const Report& report) {
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0});
  EXPECT_TRUE(nodes.ok());
  return RooflineOf(report, nodes->rows.at(0));
}

// The memory roof is the bandwidth of the working set one execution
// touches: the level with the largest working set not above it.
TEST(RooflineTest, TheMemoryRoofFollowsTheWorkingSet) {
  const Report report = OneNode("aten::relu", 0, 0, 1, 1);
  const Ceilings& c = *report.ceilings;
  ASSERT_EQ(c.bandwidth.size(), 3u);
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(c, 100), 80);         // below the smallest level: its bandwidth
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(c, 10000), 80);
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(c, 999999), 80);
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(c, 1000000), 40);
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(c, 5e8), 10);
  Ceilings one_roof = c;
  one_roof.bandwidth.clear();
  EXPECT_DOUBLE_EQ(MemoryRoofGbps(one_roof, 100), 10);  // --peaks: one memory roof

  // 2 MB per run in 2 calls: 1 MB a call, the 40 GB/s level. 0.25 FLOP/B
  // -> attainable 10 GFLOP/s; 500000 FLOPs in 100 us = 5 GFLOP/s: 50%.
  const RooflinePoint p = NodePoint(OneNode("aten::relu", 500000, 2000000, 2, 100000));
  EXPECT_DOUBLE_EQ(p.roof_gbps, 40);
  EXPECT_DOUBLE_EQ(p.attainable_gflops, 10);
  EXPECT_STREQ(p.bound, "memory");
  EXPECT_DOUBLE_EQ(p.fraction, 0.5);
  // The same work in one call of 2 MB: still the 40 GB/s level; in one call
  // of 200 MB (memory): 10 GB/s.
  EXPECT_DOUBLE_EQ(NodePoint(OneNode("aten::relu", 500000, 2000000, 1, 100000)).roof_gbps, 40);
  EXPECT_DOUBLE_EQ(NodePoint(OneNode("aten::relu", 5e7, 2e8, 1, 100000)).roof_gbps, 10);
}

// A node faster than its roof is shown as such (a wrong ceiling is visible,
// not hidden at 100%); a grouped row, whose roof is an approximation, is capped.
TEST(RooflineTest, NodesAboveTheRoofAreNotCappedGroupedRowsAre) {
  // 1 KB a call: 80 GB/s; 1000 FLOPs / 1000 B = 1 FLOP/B -> 80 GFLOP/s
  // attainable; achieved 1000 FLOPs in 10 ns = 100 GFLOP/s: 125%.
  const Report report = OneNode("aten::mul", 1000, 1000, 1, 10);
  EXPECT_DOUBLE_EQ(NodePoint(report).fraction, 1.25);
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  // One node in the kind: the kind row is that node's (members 1), uncapped.
  EXPECT_DOUBLE_EQ(RooflineOf(report, kinds->rows.at(0)).fraction, 1.25);
}

// Two relu nodes of module a.b (a has no node of its own), 1 KB a call
// each, both at 125% of their 80 GB/s roof (as above); a conv of 1 MB.
Report ThreeNodes() {
  absl::StatusOr<Report> report = ReportFromJson(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0,
      "timer_overhead_ns": 0, "run_ns": [100], "metrics": [{"name": "time"}],
      "quantities": [{"name": "flops", "unit": "flops"}, {"name": "bytes", "unit": "bytes"}],
      "peak_gflops": 100, "peak_gbps": 10, "bandwidth": [[10000, 80], [1000000, 40], [100000000, 10]],
      "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "r0", "kind": "aten::relu", "module": "a.b",
         "calls": [1], "total_ns": [10], "flops": 1000, "bytes": 1000},
        {"id": 1, "parent": -1, "depth": 0, "name": "r1", "kind": "aten::relu", "module": "a.b",
         "calls": [1], "total_ns": [10], "flops": 1000, "bytes": 1000},
        {"id": 2, "parent": -1, "depth": 0, "name": "c", "kind": "aten::conv2d", "module": "c",
         "calls": [1], "total_ns": [80], "flops": 3000000, "bytes": 1000000}]})");
  EXPECT_TRUE(report.ok()) << report.status();
  return *report;
}

TEST(RooflineTest, GroupedRowsAreCappedAndUseTheirNodesWorkingSet) {
  const Report report = ThreeNodes();
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0});
  ASSERT_TRUE(nodes.ok());
  EXPECT_DOUBLE_EQ(RooflineOf(report, Row(*nodes, "r0")).fraction, 1.25);
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  const RooflinePoint relu = RooflineOf(report, Row(*kinds, "aten::relu"));
  EXPECT_DOUBLE_EQ(relu.roof_gbps, 80);  // 2 KB in 2 executions: 1 KB each
  EXPECT_DOUBLE_EQ(relu.fraction, 1.0);  // 125%, capped
  absl::StatusOr<View> modules = MakeView(report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(modules.ok());
  // Module a has no node of its own: its two executions are a.b's.
  const ViewRow& a = Row(*modules, "a");
  EXPECT_DOUBLE_EQ(a.subtree_calls, 2);
  EXPECT_DOUBLE_EQ(a.calls, 0);
  EXPECT_DOUBLE_EQ(RooflineOf(report, a).roof_gbps, 80);
  EXPECT_DOUBLE_EQ(RooflineOf(report, Row(*modules, "a.b")).roof_gbps, 80);
  // The root: 1,002,000 bytes in 3 executions, 334 KB each: the 10 KB level.
  const ViewRow& root = Row(*modules, "(root)");
  EXPECT_DOUBLE_EQ(root.subtree_calls, 3);
  EXPECT_DOUBLE_EQ(RooflineOf(report, root).roof_gbps, 80);
  // The conv: 1 MB in one execution: the 1 MB level.
  EXPECT_DOUBLE_EQ(RooflineOf(report, Row(*modules, "c")).roof_gbps, 40);
}

TEST(RooflineTest, MalformedBandwidthLevelsAreOneLineErrors) {
  for (const char* bandwidth : {"5", "[[1]]", "[[\"a\", 1]]", "[[0, 1]]", "[[1000, 0]]", "[[1000, -2]]",
                                "[[2000, 1], [1000, 2]]", "[[1000, 1], [1000, 2]]"}) {
    const std::string json = absl::StrReplaceAll(
        R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0, "timer_overhead_ns": 0, "run_ns": [1],
            "metrics": [{"name": "time"}], "peak_gflops": 100, "peak_gbps": 10, "bandwidth": LEVELS, "nodes": []})",
        {{"LEVELS", bandwidth}});
    absl::StatusOr<Report> report = ReportFromJson(json);
    EXPECT_FALSE(report.ok()) << bandwidth;
    EXPECT_TRUE(absl::StrContains(report.status().message(), "bandwidth")) << bandwidth << ": " << report.status();
    EXPECT_EQ(report.status().message().find('\n'), std::string::npos) << report.status();
  }
}

// The cache file: what MeasureCeilings writes is read back whole; a file in
// an older format, or with levels out of order, is not used (measured again).
TEST(RooflineTest, CachedCeilingsReadTheirFileAndRejectOldOrBrokenOnes) {
  Machine machine;
  machine.cpu = "test cpu";
  machine.blas = "/lib/libblas.so.3";
  const PeakOptions options{1, false, ::testing::TempDir() + "/peaks_cache_test"};
  const std::string path = CeilingsCachePath(machine, options);
  ASSERT_FALSE(path.empty());
  mkdir(options.cache_dir.c_str(), 0755);
  auto write = [&](const std::string& line) { std::ofstream(path) << line << "\n"; };
  write("220 31.5 6.2 180 2026-12-02 3 12288 250 196608 160 201326592 31.5");
  std::optional<Ceilings> c = CachedCeilings(machine, options);
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->peak_gflops, 220);
  EXPECT_DOUBLE_EQ(c->peak_gbps, 31.5);
  ASSERT_EQ(c->bandwidth.size(), 3u);
  EXPECT_EQ(c->bandwidth[1].bytes, 196608);
  EXPECT_DOUBLE_EQ(c->bandwidth[1].gbps, 160);
  EXPECT_EQ(c->source, "cached (measured 2026-12-02)");
  write("58.9 12.3 6.3 187 2026-12-01");  // before the levels (and the fixed kernels)
  EXPECT_FALSE(CachedCeilings(machine, options).has_value());
  write("220 31.5 6.2 180 2026-12-02 2 196608 160 12288 250");  // out of order
  EXPECT_FALSE(CachedCeilings(machine, options).has_value());
  write("220 31.5 6.2 180 2026-12-02 3 12288 250");  // fewer levels than it says
  EXPECT_FALSE(CachedCeilings(machine, options).has_value());
  // Another BLAS kernel set (OPENBLAS_CORETYPE) is another file.
  Machine skylake = machine;
  skylake.blas_core = "SkylakeX";
  EXPECT_NE(CeilingsCachePath(skylake, options), path);
}

TEST(RooflineTest, TheBandwidthLevelsSurviveJson) {
  const Report report = OneNode("aten::relu", 1, 1, 1, 1);
  absl::StatusOr<Report> back = ReportFromJson(ReportToJson(report));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->ceilings.has_value());
  ASSERT_EQ(back->ceilings->bandwidth.size(), 3u);
  EXPECT_EQ(back->ceilings->bandwidth[1].bytes, 1000000);
  EXPECT_DOUBLE_EQ(back->ceilings->bandwidth[1].gbps, 40);
  EXPECT_DOUBLE_EQ(back->ceilings->peak_gbps, 10);
  // Reports from before the levels: one memory roof.
  absl::StatusOr<Report> old = ReportFromJson(ReportToJson(OneNode("aten::relu", 1, 1, 1, 1, "x", "[]")));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->ceilings->bandwidth.empty());
}

// With the reference BLAS and matrix products far below the peak, the
// summary names the library, the products' share of the run and rate, and
// the fix; not with OpenBLAS, and not where the products are fast.
TEST(RooflineTest, TheBlasNoteNamesTheReferenceBlasAndTheHeadroomCountsTheSlowNodes) {
  const std::string reference = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0";
  // 2 GFLOP/s (2e6 FLOPs in 1 ms): 2% of the 100 GFLOP/s peak.
  const Report slow = OneNode("aten::linear", 2e6, 1e5, 1, 1000000, reference);
  const std::string note = BlasNote(slow);
  EXPECT_TRUE(absl::StrContains(note, "matrix products (100.0% of the run) run at 2.00 GFLOP/s, 2.0% of this machine's "
                                      "100.0 GFLOP/s"))
      << note;
  EXPECT_TRUE(absl::StrContains(note, "reference BLAS (" + reference + ")")) << note;
  EXPECT_TRUE(absl::StrContains(note, "apt-get install libopenblas0-pthread")) << note;
  EXPECT_TRUE(absl::StrContains(RenderSummary(slow), "  blas          matrix products")) << RenderSummary(slow);
  EXPECT_EQ(BlasNote(OneNode("aten::linear", 2e6, 1e5, 1, 1000000)), "");  // OpenBLAS
  EXPECT_EQ(BlasNote(OneNode("aten::linear", 5e7, 1e5, 1, 1000000, reference)), "");  // 50 GFLOP/s
  EXPECT_EQ(BlasNote(OneNode("aten::relu", 2e6, 1e5, 1, 1000000, reference)), "");    // not a product

  // OpenBLAS with kernels narrower than the CPU's vectors (0.3.21's
  // "Haswell" on AVX-512 Zen CPUs: a 1024 GEMM at 104 GFLOP/s, with
  // OPENBLAS_CORETYPE=SKYLAKEX at 209, bench/results/peaks.txt): named below
  // half the peak (40 GFLOP/s here), not above it, not where the CPU has no
  // AVX-512, not with AVX-512 kernels.
  const std::string openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3";
  auto machine = [&](const char* core, const char* isa) {
    return absl::StrCat(openblas, "\", \"blas_core\": \"", core, "\", \"vector_isa\": \"", isa);
  };
  const std::string narrow = BlasNote(OneNode("aten::mm", 4e7, 1e5, 1, 1000000, machine("Haswell", "avx512f")));
  EXPECT_TRUE(absl::StrContains(narrow, "run at 40.00 GFLOP/s, 40.0% of this machine's 100.0 GFLOP/s")) << narrow;
  EXPECT_TRUE(absl::StrContains(narrow, "OpenBLAS (" + openblas + ") runs its Haswell kernels on a CPU with AVX-512; "
                                        "OPENBLAS_CORETYPE=SKYLAKEX"))
      << narrow;
  EXPECT_EQ(BlasNote(OneNode("aten::mm", 6e7, 1e5, 1, 1000000, machine("Haswell", "avx512f"))), "");
  EXPECT_EQ(BlasNote(OneNode("aten::mm", 4e7, 1e5, 1, 1000000, machine("Haswell", "avx2"))), "");
  EXPECT_EQ(BlasNote(OneNode("aten::mm", 4e7, 1e5, 1, 1000000, machine("SkylakeX", "avx512f"))), "");
  absl::StatusOr<Report> back = ReportFromJson(ReportToJson(OneNode("aten::mm", 1, 1, 1, 1, machine("Zen", "avx2"))));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->machine->blas_core, "Zen");
  EXPECT_EQ(back->machine->vector_isa, "avx2");

  // The headroom: the slow linear (compute-bound at 20 FLOP/B, 2% of
  // attainable) holds the whole run; TwoModules' conv (10%) holds 1/3 of it.
  EXPECT_DOUBLE_EQ(HeadroomPercent(slow), 100);
  EXPECT_NEAR(HeadroomPercent(TwoModules()), 100.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(HeadroomPercent(TwoModules(), 0.05), 0);
  Report no_ceilings = TwoModules();
  no_ceilings.ceilings.reset();
  EXPECT_EQ(HeadroomPercent(no_ceilings), -1);
}

}  // namespace
}  // namespace graphprof
