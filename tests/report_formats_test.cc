// Renderings of one Report: JSON round trip, CSV shape, Chrome trace
// validity, annotated IR, text tables, atomic output files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <functional>
#include <iterator>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/zoo/zoo.h"
#include "profilers/report/annotated_ir.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/html_report.h"
#include "profilers/report/report_diff.h"
#include "common/output_file.h"
#include "common/text_sink.h"
#include "profilers/profiler.h"
#include "profilers/report/report_json.h"
#include "profilers/report/table_columns.h"
#include "profilers/report/text_report.h"
#include "profilers/report/verification_failure.h"
#include "profilers/report/views.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::kLoopIr;
using ::graphprof::testing::PlanIr;
using ::graphprof::testing::TestClock;

constexpr char kGraph[] = R"IR(
graph(%x : Tensor, %n : int):
  %ns : int = prim::Constant[value=250]()
  %true : bool = prim::Constant[value=1]()
  %a : Tensor = graphprof_test::advance(%x, %ns)
  %y : Tensor = prim::Loop(%n, %true, %a)
    block0(%i : int, %h : Tensor):
      %h2 : Tensor = graphprof_test::advance(%h, %ns)
      -> (%true, %h2)
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::add(%y, %x, %one)
  return (%z)
)IR";

constexpr char kStraight[] = R"IR(
graph(%x : Tensor):
  %ns : int = prim::Constant[value=100]()
  %a : Tensor = graphprof_test::advance(%x, %ns)
  %b : Tensor = aten::relu(%a)
  %c : Tensor = graphprof_test::advance(%b, %ns)
  return (%c)
)IR";

Report ProfileOnTestClock(const std::string& ir, std::vector<c10::IValue> inputs, int runs,
                          std::shared_ptr<const GraphPlan>* plan_out = nullptr) {
  auto plan = PlanIr(ir);
  EXPECT_NE(plan, nullptr);
  ProfileOptions options;
  options.warmup = 1;
  options.runs = runs;
  options.memory = true;
  options.clock = TestClock();
  absl::StatusOr<Report> report = Profile(plan, inputs, options);
  EXPECT_TRUE(report.ok()) << report.status();
  if (plan_out != nullptr) *plan_out = plan;
  return *report;
}

TEST(ReportJsonTest, RoundTripsExactly) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{3}}, 4);
  Verification verification;
  verification.identical = true;
  verification.reference = "module.forward";
  report.verification = verification;
  const std::string json = ReportToJson(report);
  absl::StatusOr<Report> back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ReportToJson(*back), json);
  EXPECT_EQ(back->nodes.size(), report.nodes.size());
  EXPECT_EQ(back->nodes[3].time().self, report.nodes[3].time().self);
  ASSERT_TRUE(back->verification.has_value());
  EXPECT_TRUE(back->verification->identical);
  EXPECT_EQ(back->ir.size(), report.ir.size());
  EXPECT_EQ(back->memory->peak_bytes, report.memory->peak_bytes);
  EXPECT_EQ(back->events.size(), report.events.size());

  const nlohmann::json j = nlohmann::json::parse(json);
  for (const char* key : {"schema_version", "model", "runs", "warmup", "timer_overhead_ns", "coverage",
                          "total_us", "verified", "nodes", "peak_bytes", "metrics", "ir"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["runs"], 4);
  EXPECT_DOUBLE_EQ(j["coverage"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["total_us"].get<double>(), 1.0);  // 4 x 250 ns
}

TEST(ReportJsonTest, RejectsWhatIsNotAReport) {
  EXPECT_TRUE(absl::StrContains(ReportFromJson("{not json").status().message(), "not valid JSON"));
  EXPECT_TRUE(absl::StrContains(ReportFromJson("{\"a\": 1}").status().message(), "no schema_version"));
  EXPECT_TRUE(absl::StrContains(ReportFromJson("{\"schema_version\": 9}").status().message(),
                                "unsupported report schema_version 9"));
  EXPECT_TRUE(absl::StrContains(ReportFromJson("{\"schema_version\": 1, \"model\": 3}").status().message(),
                                "malformed report JSON"));
}

// Issue 21 (14): the reader's messages leaked nlohmann's
// "[json.exception.out_of_range.403] key 'x' not found"; they now name the
// key and what was wrong, in one line, and garbage is refused by the parser
// (simdjson) before anything is built from it.
TEST(ReportJsonTest, MessagesNameTheKeyAndWhatIsWrong) {
  const std::string head = R"({"schema_version": 2, "model": "m", "runs": 1, "warmup": 0, "timer_overhead_ns": 0,
      "run_ns": [10], "metrics": [{"name": "time"}])";
  const std::pair<std::string, std::string> cases[] = {
      {head + "}", "malformed report JSON: 'nodes' is missing"},
      {head + R"(, "nodes": {}})", "malformed report JSON: 'nodes': expected an array, got an object"},
      {head + R"(, "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": 7}]})",
       "malformed report JSON: 'name': expected a string, got an integer"},
      {head + R"(, "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": "a", "kind": "k", "calls": [1.5e300],
                  "total_ns": [1]}]})",
       "malformed report JSON: number 1.5e+300 does not fit a 64-bit integer ('calls')"},
      {R"({"schema_version": "two"})", "malformed report JSON: 'schema_version': expected an integer, got a string"},
      {"[1, 2", "report is not valid JSON"},
      {std::string(20 << 20, '['), "report is not valid JSON"},
      {"\xff\xfe{}", "report is not valid JSON"},
  };
  for (const auto& [text, expected] : cases) {
    const absl::Status status = ReportFromJson(text).status();
    EXPECT_TRUE(absl::StartsWith(status.message(), expected)) << status << "\n expected: " << expected;
    EXPECT_FALSE(absl::StrContains(status.message(), "json.exception")) << status;
    EXPECT_FALSE(absl::StrContains(status.message(), "\n")) << status;
  }
}

// Found in review of the simdjson reader: what the writer writes must read
// back. A double past the int64 range was written as a 20-digit integer
// ("23456789012345680000"), which a 64-bit integer parser refuses; an
// infinite error is written as null; a byte order mark starts some files.
TEST(ReportJsonTest, EverythingTheWriterWritesReadsBack) {
  absl::StatusOr<Report> report = ReportFromJson(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0,
      "timer_overhead_ns": 0, "run_ns": [10], "metrics": [{"name": "time"}],
      "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": "a", "kind": "aten::relu", "calls": [1],
                 "total_ns": [5]}]})");
  ASSERT_TRUE(report.ok()) << report.status();
  Verification v;
  v.max_rel_error = 2.345678901234568e19;
  v.max_abs_error = std::numeric_limits<double>::infinity();
  v.detail = "output: values differ";
  report->verification = v;
  report->timer_overhead_ns = 1.2345678901234567e20;
  report->nodes[0].identity.fused_modules = {"block.bn", "block"};  // a compiled kernel's
  const std::string json = ReportToJson(*report);
  EXPECT_FALSE(absl::StrContains(json, "23456789012345680000")) << "a plain 20-digit integer";
  EXPECT_TRUE(absl::StrContains(json, R"("fused_modules":["block.bn","block"])")) << json;
  absl::StatusOr<Report> back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->nodes[0].identity.fused_modules, report->nodes[0].identity.fused_modules);
  EXPECT_EQ(back->verification->max_rel_error, 2.345678901234568e19);
  EXPECT_EQ(back->verification->max_abs_error, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back->timer_overhead_ns, 1.2345678901234567e20);
  absl::StatusOr<Report> bom = ReportFromJson("\xEF\xBB\xBF" + json);
  EXPECT_TRUE(bom.ok()) << bom.status();
}

// Units are read by the names the writer gives them (UnitName), whichever
// kind of value carries them; a name it does not give falls back to the
// kind's default (a metric's ns, a quantity's count).
TEST(ReportJsonTest, UnitsReadBackByTheirNames) {
  absl::StatusOr<Report> report = ReportFromJson(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0,
      "timer_overhead_ns": 0, "run_ns": [10],
      "metrics": [{"name": "time"}, {"name": "a", "unit": "bytes"}, {"name": "b", "unit": "furlongs"}],
      "quantities": [{"name": "c", "unit": "ns"}, {"name": "d", "unit": "furlongs"}, {"name": "e", "unit": "flops"}],
      "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": "a", "kind": "aten::relu", "calls": [1],
                 "total_ns": [5]}]})");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->columns[0].unit, Unit::kNanoseconds);
  EXPECT_EQ(report->columns[report->FindMetric("a")].unit, Unit::kBytes);
  EXPECT_EQ(report->columns[report->FindMetric("b")].unit, Unit::kNanoseconds);
  EXPECT_EQ(report->columns[report->FindQuantity("c")].unit, Unit::kNanoseconds);
  EXPECT_EQ(report->columns[report->FindQuantity("d")].unit, Unit::kCount);
  EXPECT_EQ(report->columns[report->FindQuantity("e")].unit, Unit::kFlops);
  for (Unit unit : {Unit::kNanoseconds, Unit::kCount, Unit::kFlops, Unit::kBytes}) {
    EXPECT_EQ(UnitNamed(UnitName(unit), Unit::kCount), unit) << UnitName(unit);
  }
}

// Found by report_json_fuzzer and compare_fuzzer: nlohmann's get<int64_t>()
// of 2.2e126 (a node's memory) and of 1.2e24 (run_ns) is undefined
// behaviour, and get<int>() wraps 4294967298 runs to 2. Integers that do not
// fit their field now make the report malformed.
TEST(ReportJsonTest, RejectsIntegersTheirFieldCannotHold) {
  auto report = [](const std::string& runs, const std::string& peak_bytes) {
    return ReportFromJson(absl::StrCat(R"({"schema_version": 2, "model": "m", "runs": )", runs, R"(, "warmup": 0,
        "timer_overhead_ns": 0, "run_ns": [10, 10], "metrics": [{"name": "time"}],
        "memory": {"peak_bytes": )", peak_bytes, R"(, "peak_node": 0, "allocated_bytes": 0, "freed_bytes": 0,
                   "allocations": 0, "timeline": []},
        "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": "relu", "kind": "aten::relu",
                   "calls": [1, 1], "total_ns": [5, 5]}]})"));
  };
  ASSERT_TRUE(report("2", "64").ok()) << report("2", "64").status();
  EXPECT_TRUE(report("2.0", "1152921504606846976").ok());
  // These fit an int64 (and then fail a later check: RejectsValuesThatOverflowWhenAddedUp).
  EXPECT_TRUE(absl::StrContains(report("2", "9223372036854775807").status().message(), "add up past"));
  EXPECT_TRUE(absl::StrContains(report("2", "-9223372036854775808").status().message(), "add up past"));
  for (const auto& [runs, peak_bytes] : std::vector<std::pair<std::string, std::string>>{
           {"4294967298", "64"}, {"1e10", "64"}, {"2", "1e300"}, {"2", "-1e19"}, {"2", "9223372036854775808"}}) {
    absl::StatusOr<Report> parsed = report(runs, peak_bytes);
    ASSERT_FALSE(parsed.ok()) << runs << " " << peak_bytes;
    EXPECT_TRUE(absl::StrContains(parsed.status().message(), "malformed report JSON: number")) << parsed.status();
    EXPECT_TRUE(absl::StrContains(parsed.status().message(), "-bit integer")) << parsed.status();
  }
}

// Found while fuzzing reports (report_json_fuzzer with extreme numbers):
// values that load one by one but overflow int64 when the renderers add them
// up (two nodes of INT64_MAX ns in a run, a child longer than its parent is
// negative, calls summed over runs), and a run source whose first_run + runs
// overflows int. Signed overflow is undefined; such reports are refused.
TEST(ReportJsonTest, RejectsValuesThatOverflowWhenAddedUp) {
  auto report = [](const std::string& totals, const std::string& calls, const std::string& sources) {
    // Runs as long as the longest node (the reader refuses nodes longer than their run).
    return ReportFromJson(absl::StrCat(R"({"schema_version": 2, "model": "m", "runs": 2, "warmup": 0,
        "timer_overhead_ns": 0, "run_ns": [1125899906842624, 10], "metrics": [{"name": "time"}], "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "if", "kind": "prim::If", "calls": [1, 1], "total_ns": )",
                                       totals, R"(},
        {"id": 1, "parent": 0, "depth": 1, "name": "relu", "kind": "aten::relu", "calls": )", calls,
                                       R"(, "total_ns": [5, 5]}], "run_sources": )", sources, "}"));
  };
  ASSERT_TRUE(report("[7, 7]", "[1, 1]", "[]").ok()) << report("[7, 7]", "[1, 1]", "[]").status();
  EXPECT_TRUE(report("[1125899906842624, 7]", "[1, 1]", R"([["a", 0, 1], ["b", 1, 1]])").ok());  // 2^50 ns
  const std::pair<std::string, std::string> cases[] = {
      {report("[9223372036854775807, 7]", "[1, 1]", "[]").status().ToString(), "values of 'time' add up past 2^60"},
      {report("[-9223372036854775808, 7]", "[1, 1]", "[]").status().ToString(), "report node 0's 'time' is negative"},
      {report("[7, 7]", "[9223372036854775807, 1]", "[]").status().ToString(), "values of calls add up past 2^60"},
      {report("[7, 7]", "[1, 1]", R"([["c", 2147483647, 1]])").status().ToString(), "run source 'c' is out of range"},
  };
  for (const auto& [status, expected] : cases) EXPECT_TRUE(absl::StrContains(status, expected)) << status;
}

// Found by report_json_fuzzer: a version-1 report saying 555555553 runs
// over 3 run times had the reader size each node's device time by 'runs'
// (4 GiB) before the run count was checked against run_ns. The count is now
// checked first, in the words of ValidateReport's check.
TEST(ReportJsonTest, RunCountIsCheckedBeforeNodesAreRead) {
  std::ifstream in("tests/fuzz/regressions/report_json_fuzzer/runs_555555553_for_3_run_times.json");
  ASSERT_TRUE(in.good());
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<Report> report = ReportFromJson(json);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "report has 3 run times for 555555553 runs");
  std::string fixed = json;
  fixed.replace(fixed.find("555555553"), 9, "3");
  // With the count right, the fuzzer's input (mutated elsewhere too) gets past the check.
  absl::StatusOr<Report> three = ReportFromJson(fixed);
  if (three.ok()) {
    EXPECT_EQ(three->runs, 3);
  } else {
    EXPECT_FALSE(absl::StrContains(three.status().message(), "run times for")) << three.status();
  }
}

// Found in review: the backward fields (saved bytes per node, the backward
// peak, gradient bytes per module, backward events) are added up by views
// and the summary too; INT64_MAX there wrapped around in a kind view.
TEST(ReportJsonTest, RejectsBackwardValuesThatOverflowWhenAddedUp) {
  auto report = [](const std::string& saved, const std::string& extra) {
    const std::string memory = absl::StrCat(R"({"allocated_bytes": 0, "freed_bytes": 0, "allocations": 0,
        "peak_bytes": 0, "live_after_bytes": 0, "output_bytes": 0, "saved_bytes": )", saved, "}");
    return ReportFromJson(absl::StrCat(R"({"schema_version": 2, "model": "m", "runs": 1, "warmup": 0,
        "timer_overhead_ns": 0, "run_ns": [10], "metrics": [{"name": "time"}], "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "a", "kind": "aten::relu", "calls": [1], "total_ns": [5],
         "memory": )", memory, R"(},
        {"id": 1, "parent": -1, "depth": 0, "name": "b", "kind": "aten::relu", "calls": [1], "total_ns": [5],
         "memory": )", memory, "}]", extra, "}"));
  };
  ASSERT_TRUE(report("1024", "").ok()) << report("1024", "").status();
  const std::pair<std::string, std::string> cases[] = {
      // Memory values are integers a double holds exactly (2^53 at most).
      {report("9223372036854775807", "").status().ToString(), "memory 'saved_bytes' is 9223372036854775807, beyond 2^53"},
      {report("9007199254740993", "").status().ToString(), "beyond 2^53"},
      {report("1024", R"(, "gradient_bytes": [["a", 9223372036854775807], ["b", 9]])").status().ToString(),
       "values of gradient_bytes add up past 2^60"},
      {report("1024", R"(, "backward_events": [[0, 0, 0, 9223372036854775807]])").status().ToString(),
       "values of backward_events add up past 2^60"},
  };
  for (const auto& [status, expected] : cases) EXPECT_TRUE(absl::StrContains(status, expected)) << status;
}

// The legend in table_columns.h is the fixed columns' presence rules as
// FixedColumnsLegend renders them (so a rule changed without the legend,
// or the legend without the rule, fails here).
TEST(TableColumnsTest, HeaderLegendIsTheRules) {
  std::ifstream in("profilers/report/table_columns.h");
  ASSERT_TRUE(in.good());
  std::string line, legend;
  bool inside = false;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "// The columns, in order.")) inside = true;
    if (absl::StartsWith(line, "// The name column is headed")) break;
    if (!inside || !absl::StartsWith(line, "//   ")) continue;
    std::string entries(absl::StripPrefix(line, "//   "));
    entries = absl::StrReplaceAll(entries, {{"[the columns below, then:]  ", ""}});
    absl::StrAppend(&legend, legend.empty() ? "" : "  ", entries);
  }
  EXPECT_EQ(legend, FixedColumnsLegend());
}

// Each table has exactly the fixed columns the legend says it has, in the
// legend's order, for every rendering and view ("T H: node; C": the text
// table and the page in the node view, CSV in all; no parentheses: all).
TEST(TableColumnsTest, TablesHaveTheFixedColumnsTheLegendGives) {
  struct Entry {
    std::string key;
    std::map<char, std::set<std::string>> views;  // rendering letter -> views
  };
  const std::vector<std::string> all_views = {"node", "kind", "module", "shape"};
  std::vector<Entry> entries;
  for (absl::string_view text : absl::StrSplit(FixedColumnsLegend(), "  ")) {
    Entry e;
    const size_t paren = text.find(" (");
    e.key = std::string(text.substr(0, paren));
    if (paren == absl::string_view::npos) {
      for (char r : {'T', 'H', 'C'}) e.views[r] = {all_views.begin(), all_views.end()};
    } else {
      ASSERT_TRUE(absl::EndsWith(text, ")")) << text;
      for (absl::string_view group : absl::StrSplit(text.substr(paren + 2, text.size() - paren - 3), "; ")) {
        const std::vector<std::string> parts = absl::StrSplit(group, ": ");
        std::set<std::string> views;
        if (parts.size() == 1) views = {all_views.begin(), all_views.end()};
        else if (parts[1] == "grouped") views = {"kind", "module", "shape"};
        else for (absl::string_view v : absl::StrSplit(parts[1], ", ")) views.insert(std::string(v));
        for (absl::string_view letter : absl::StrSplit(parts[0], ' ')) e.views[letter[0]] = views;
      }
    }
    entries.push_back(std::move(e));
  }
  ASSERT_EQ(entries.size(), 19u);
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{2}}, 2);
  const std::pair<char, Rendering> renderings[] = {
      {'T', Rendering::kText}, {'H', Rendering::kHtml}, {'C', Rendering::kCsv}};
  for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    const std::string view = GroupByName(group_by);
    for (const auto& [letter, rendering] : renderings) {
      SCOPED_TRACE(absl::StrCat(view, " ", std::string(1, letter)));
      // The page keys the name column of the kind and module views by the view.
      const bool renamed = letter == 'H' && (group_by == GroupBy::kKind || group_by == GroupBy::kModule);
      std::vector<std::string> expected, fixed;
      std::set<std::string> fixed_keys;
      for (const Entry& e : entries) {
        const std::string key = renamed && e.key == "name" ? view : e.key;
        fixed_keys.insert(key);
        auto shown = e.views.find(letter);
        if (shown != e.views.end() && shown->second.count(view) > 0) expected.push_back(key);
      }
      for (const TableColumn& c : TableColumns(report, group_by, rendering)) {
        if (fixed_keys.count(c.key) > 0) fixed.push_back(c.key);
      }
      EXPECT_EQ(absl::StrJoin(fixed, " "), absl::StrJoin(expected, " "));
    }
  }
}

TEST(CsvTest, OneHeaderAndOneLinePerRowWithFixedColumns) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{2}}, 2);
  for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    absl::StatusOr<View> view = MakeView(report, ViewOptions{group_by, "", 0});
    ASSERT_TRUE(view.ok());
    const std::string csv = RenderCsv(report, *view);
    std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
    ASSERT_EQ(lines.size(), view->rows.size() + 1);
    EXPECT_TRUE(absl::StartsWith(lines[0], "id,depth,name,kind,module,nodes,count,mean_us,percent,self_us,"));
    for (const char* column : {"median_us", "p90_us", "percent"}) {
      EXPECT_TRUE(absl::StrContains(lines[0], column));
    }
    const size_t columns = std::vector<std::string>(absl::StrSplit(lines[0], ',')).size();
    for (size_t i = 1; i < lines.size(); ++i) {
      // Count separators outside quotes.
      size_t fields = 1;
      bool quoted = false;
      for (char c : lines[i]) {
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted) ++fields;
      }
      EXPECT_EQ(fields, columns) << lines[i];
    }
  }
  EXPECT_EQ(CsvField("f32[3], int"), "\"f32[3], int\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("plain"), "plain");
}

TEST(ChromeTraceTest, OneCompleteEventPerNodePerRun) {
  constexpr int kRuns = 3;
  Report report = ProfileOnTestClock(kStraight, {torch::ones({2})}, kRuns);
  const nlohmann::json trace = nlohmann::json::parse(RenderChromeTrace(report));
  ASSERT_TRUE(trace.contains("traceEvents"));
  int node_events = 0, run_events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") == "node") {
      ++node_events;
      EXPECT_EQ(e["ph"], "X");
      EXPECT_TRUE(e["args"].contains("kind"));
      EXPECT_TRUE(e["args"].contains("module"));
      EXPECT_TRUE(e["args"].contains("id")) << "shapes and source are in the report, by id";
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
    if (e.value("cat", "") == "run") ++run_events;
  }
  EXPECT_EQ(node_events, static_cast<int>(report.nodes.size()) * kRuns);
  EXPECT_EQ(run_events, kRuns);
}

TEST(ChromeTraceTest, LiveBytesCounterFollowsTheFirstRun) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{3}}, 2);
  ASSERT_TRUE(report.memory.has_value());
  const nlohmann::json trace = nlohmann::json::parse(RenderChromeTrace(report));
  std::vector<int64_t> live;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "C") live.push_back(e["args"]["live_bytes"].get<int64_t>());
  }
  ASSERT_EQ(live.size(), report.memory->timeline.size());
  for (size_t k = 0; k < live.size(); ++k) EXPECT_EQ(live[k], report.memory->timeline[k].live_bytes);
  Report misaligned = report;
  misaligned.memory->timeline.pop_back();
  const nlohmann::json misaligned_trace = nlohmann::json::parse(RenderChromeTrace(misaligned));
  int counters = 0;
  for (const auto& e : misaligned_trace["traceEvents"]) counters += e["ph"] == "C";
  EXPECT_EQ(counters, 0);
}

TEST(ChromeTraceTest, LoopBodiesGetAnEventPerExecution) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{5}}, 2);
  const nlohmann::json trace = nlohmann::json::parse(RenderChromeTrace(report));
  int body = 0;
  for (const auto& e : trace["traceEvents"]) body += e.value("cat", "") == "node" && e["args"]["id"] == 4;
  EXPECT_EQ(body, 5 * 2);
  EXPECT_EQ(report.dropped_events, 0);
}

TEST(AnnotatedIrTest, EveryNodeLineCarriesItsTime) {
  std::shared_ptr<const GraphPlan> plan;
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{2}}, 2, &plan);
  absl::StatusOr<std::string> ir = RenderAnnotatedIr(report);
  ASSERT_TRUE(ir.ok()) << ir.status();
  int annotated = 0;
  for (absl::string_view line : absl::StrSplit(*ir, '\n')) annotated += absl::StrContains(line, "  # ");
  EXPECT_EQ(annotated, static_cast<int>(plan->nodes().size()));
  EXPECT_TRUE(absl::StrContains(*ir, "graphprof_test::advance(%h, %2)  # 0.500 us 66.67% (x2)")) << *ir;
  EXPECT_TRUE(absl::StrContains(*ir, "block0(%i : int, %h : Tensor):")) << *ir;
  Report without_ir = report;
  without_ir.ir.clear();
  EXPECT_FALSE(RenderAnnotatedIr(without_ir).ok());
}

TEST(TextReportTest, TablesShowSummaryColumnsAndSums) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{2}}, 2);
  Verification verification;
  verification.detail = "output: values differ";
  verification.max_abs_error = 0.5;
  report.verification = verification;
  const std::string summary = RenderSummary(report);
  EXPECT_TRUE(absl::StrContains(summary, "coverage      100.00%")) << summary;
  EXPECT_TRUE(absl::StrContains(summary, "OUTPUT DIFFERS from native execution: output: values differ; max abs error 0.5"))
      << summary;
  EXPECT_TRUE(absl::StrContains(summary, "memory        peak")) << summary;
  EXPECT_TRUE(absl::StrContains(summary, "ns per node")) << summary;
  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kNode, "", 2});
  ASSERT_TRUE(view.ok());
  const std::string table = RenderTable(report, *view, TableOptions{true, "top nodes"});
  EXPECT_TRUE(absl::StrContains(table, "mean_us")) << table;
  EXPECT_TRUE(absl::StrContains(table, "(sum)")) << table;
  EXPECT_TRUE(absl::StrContains(table, "top 2 of")) << table;
  EXPECT_TRUE(absl::StrContains(table, "alloc")) << table;
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatMicros(1500), "1.500");
}

TEST(HtmlReportTest, OnePageWithTheViewsNumbersAndSafeData) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{2}}, 2);
  report.model = "evil </script><!--<script> & 'model'";
  const std::string page = RenderHtml(report);
  EXPECT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>"));
  EXPECT_FALSE(absl::StrContains(page, "{{DATA}}")) << "every placeholder filled";
  EXPECT_FALSE(absl::StrContains(page, "/*{{SCRIPT}}*/"));
  EXPECT_FALSE(absl::StrContains(page, "</script><!--<script>")) << "model strings cannot end the data element";
  EXPECT_TRUE(absl::StrContains(page, "<title>graphprof: evil &lt;/script&gt;&lt;!--&lt;script&gt; &amp; &#39;model&#39;</title>"));
  // Nothing is loaded from the network (the browser test watches requests too).
  for (const char* load : {"src=\"http", "href=\"http", "url(http", "@import", "<link"}) {
    EXPECT_FALSE(absl::StrContains(page, load)) << load;
  }

  const nlohmann::json data = nlohmann::json::parse(HtmlData(report));
  EXPECT_EQ(data["format"], "graphprof-html");
  EXPECT_EQ(data["summary"]["model"], report.model) << "the escaped JSON reads back verbatim";
  for (const char* view : {"node", "kind", "module", "shape"}) {
    ASSERT_TRUE(data["tables"].contains(view)) << view;
    EXPECT_FALSE(data["tables"][view]["rows"].empty()) << view;
  }
  // The node table holds the node view's numbers: first row = top node.
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{});
  ASSERT_TRUE(nodes.ok());
  const nlohmann::json& node_table = data["tables"]["node"];
  EXPECT_EQ(node_table["rows"].size(), report.nodes.size());
  EXPECT_EQ(node_table["rows"][0][0], nodes->rows[0].id);
  int mean_column = -1;
  for (size_t c = 0; c < node_table["columns"].size(); ++c) {
    if (node_table["columns"][c]["key"] == "mean_us") mean_column = static_cast<int>(c);
  }
  ASSERT_GE(mean_column, 0);
  EXPECT_NEAR(node_table["rows"][0][mean_column].get<double>(), nodes->rows[0].time().total.mean / 1e3, 1e-3);
  // The module tree, the first run's nested timeline and the IR.
  EXPECT_EQ(data["tree"]["path"], "");
  EXPECT_EQ(data["timeline"]["events"].size(), static_cast<size_t>(report.executions_per_run()));
  int nested = 0;
  for (const auto& e : data["timeline"]["events"]) nested += e[3].get<int>() > 0;
  EXPECT_GT(nested, 0) << "loop body events sit one level down";
  EXPECT_EQ(data["ir"].size(), report.ir.size());
  EXPECT_TRUE(data["diff"].is_null());
  ReportDiff diff = DiffReports(report, report);
  const nlohmann::json with_diff = nlohmann::json::parse(HtmlData(report, &diff));
  EXPECT_DOUBLE_EQ(with_diff["diff"]["matched_time_fraction"].get<double>(), 1.0);
  EXPECT_EQ(with_diff["diff"]["tables"]["node"]["rows"].size(), diff.nodes.size());
}

// Streamed in chunks of a few bytes, every rendering is byte for byte the
// string rendering (chunks break anywhere, even inside a number or a key).
TEST(StreamedRenderingsTest, SameBytesAsTheWholeString) {
  const Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{3}}, 3);
  ReportDiff diff = DiffReports(report, report);
  auto streamed = [](const std::function<void(TextSink&)>& render, int* chunks) {
    std::string text;
    TextSink sink(
        [&](absl::string_view bytes) {
          text.append(bytes.data(), bytes.size());
          ++*chunks;
          return absl::OkStatus();
        },
        /*chunk_bytes=*/7);
    render(sink);
    EXPECT_TRUE(sink.Finish().ok());
    return text;
  };
  int chunks = 0;
  EXPECT_EQ(streamed([&](TextSink& sink) { StreamReportJson(report, sink); }, &chunks), ReportToJson(report));
  EXPECT_GT(chunks, static_cast<int>(report.nodes.size())) << "handed on node by node";
  chunks = 0;
  EXPECT_EQ(streamed([&](TextSink& sink) { StreamChromeTrace(report, sink); }, &chunks), RenderChromeTrace(report));
  EXPECT_GT(chunks, static_cast<int>(report.events.size()));
  chunks = 0;
  EXPECT_EQ(streamed([&](TextSink& sink) { StreamHtml(report, &diff, sink); }, &chunks), RenderHtml(report, &diff));
  EXPECT_GT(chunks, 10);
}

// Big reports render their nodes on two threads (blocks of 256, the odd
// ones on a helper): the text is byte for byte one thread's, into a string,
// through a sink of tiny chunks and HTML-safe, for 1 block up to several.
TEST(ReportJsonTest, NodesRenderedOnTwoThreadsGiveTheSameText) {
  for (int n : {3, 300, 1100}) {
    std::string ir = "graph(%x : Tensor):\n  %v0 : Tensor = aten::relu(%x)\n";
    for (int i = 1; i < n; ++i) absl::StrAppend(&ir, "  %v", i, " : Tensor = aten::relu(%v", i - 1, ")\n");
    absl::StrAppend(&ir, "  return (%v", n - 1, ")\n");
    const Report report = ProfileOnTestClock(ir, {torch::ones({3})}, 3);
    ASSERT_EQ(report.nodes.size(), static_cast<size_t>(n));
    for (bool html_safe : {false, true}) {
      std::string one, two, streamed;
      JsonWriter w1(&one, html_safe);
      WriteReportJson(report, w1, /*parallel_nodes=*/std::numeric_limits<size_t>::max());
      JsonWriter w2(&two, html_safe);
      WriteReportJson(report, w2, /*parallel_nodes=*/1);
      EXPECT_EQ(two, one) << n << " nodes";
      TextSink sink(
          [&](absl::string_view bytes) {
            streamed.append(bytes.data(), bytes.size());
            return absl::OkStatus();
          },
          /*chunk_bytes=*/5);
      JsonWriter w3(&sink, html_safe);
      WriteReportJson(report, w3, /*parallel_nodes=*/1);
      ASSERT_TRUE(sink.Finish().ok());
      EXPECT_EQ(streamed, one) << n << " nodes, streamed";
    }
  }
}

TEST(OutputFileTest, StreamedOutputsAreWrittenWholeAndTogether) {
  const std::string dir = testing::TempDir("output_file_streamed");
  const std::string a = dir + "/a.json", b = dir + "/b.json";
  const Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{3}}, 2);
  OutputFiles files;
  files.Add(a, [&](TextSink& sink) { StreamReportJson(report, sink); });
  files.Add(b, [&](TextSink& sink) { StreamChromeTrace(report, sink); });
  ASSERT_TRUE(files.Commit().ok());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(slurp(a), ReportToJson(report));
  EXPECT_EQ(slurp(b), RenderChromeTrace(report));

  // A stream into a directory that is gone: nothing is written, nothing replaced.
  OutputFiles failing;
  failing.Add(a, [](TextSink& sink) { sink.Append("new"); });
  failing.Add(dir + "/gone/c.json", [](TextSink& sink) { sink.Append("c"); });
  EXPECT_FALSE(failing.Commit().ok());
  EXPECT_EQ(slurp(a), ReportToJson(report));
}

TEST(OutputFileTest, WritesAtomicallyAndFailsCleanly) {
  const std::string dir = testing::TempDir("output_file_test");
  const std::string path = dir + "/report.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "second");
  absl::Status missing_dir = WriteFileAtomically(dir + "/no/such/dir/r.json", "x");
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_TRUE(absl::StrContains(missing_dir.message(), "cannot write")) << missing_dir;
  EXPECT_FALSE(WriteFileAtomically(dir, "x").ok());  // a directory
  struct stat st;
  EXPECT_NE(stat((dir + "/no").c_str(), &st), 0) << "nothing created";
}

// Memory is a set of quantities (MemoryQuantities()): the JSON keeps each
// node's "memory" object with the keys it always had (schema 1 on), each
// measured value and the self value of each amount, as integers, and no
// memory quantity in the report's list of (work) quantities.
TEST(MemoryQuantitiesTest, TheNodesMemoryObjectKeepsItsKeys) {
  std::set<std::string> names;
  for (const Column& q : MemoryQuantities()) {
    EXPECT_TRUE(q.memory) << q.name;
    EXPECT_TRUE(names.insert(q.name).second) << q.name;
  }
  auto plan = PlanIr(kLoopIr);
  ASSERT_NE(plan, nullptr);
  ProfileOptions options;
  options.runs = 1;
  options.memory = true;
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({256}), int64_t{4}}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json j = nlohmann::json::parse(ReportToJson(*report));
  for (const nlohmann::json& node : j.at("nodes")) {
    std::set<std::string> keys;
    for (const auto& [key, value] : node.at("memory").items()) {
      keys.insert(key);
      EXPECT_TRUE(value.is_number_integer()) << key;
    }
    EXPECT_EQ(keys, (std::set<std::string>{"allocated_bytes", "freed_bytes", "allocations", "peak_bytes",
                                           "live_after_bytes", "output_bytes", "self_allocated_bytes",
                                           "self_freed_bytes", "self_allocations", "self_output_bytes",
                                           "saved_bytes", "self_saved_bytes"}));
  }
  std::set<std::string> listed;
  for (const nlohmann::json& q : j.at("quantities")) listed.insert(q.at("name").get<std::string>());
  EXPECT_EQ(listed, (std::set<std::string>{"flops", "bytes"}));
  // Memory sorts by its columns' headings; saved bytes only training steps.
  const std::vector<std::string> keys = SortKeys(*report);
  for (const char* key : {"alloc", "peak", "output"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "saved"), keys.end());
  // Every memory quantity the inspection measures reaches the report under
  // its name (BuildReport names NodeInspection::Memory's fields; saved bytes
  // are training steps'): each is above 0 on some node of this loop.
  for (const Column& q : MemoryQuantities()) {
    if (q.training_only) continue;
    const int index = report->FindQuantity(q.name);
    ASSERT_GE(index, 0) << q.name;
    EXPECT_TRUE(std::any_of(report->nodes.begin(), report->nodes.end(),
                            [&](const NodeRecord& node) { return node.quantities[index] > 0; }))
        << q.name;
  }
  // Read back: the same values, the same self values.
  absl::StatusOr<Report> read = ReportFromJson(ReportToJson(*report));
  ASSERT_TRUE(read.ok()) << read.status();
  for (size_t i = 0; i < report->nodes.size(); ++i) {
    for (const Column& q : MemoryQuantities()) {
      const int a = report->FindQuantity(q.name), b = read->FindQuantity(q.name);
      ASSERT_GE(b, 0) << q.name;
      EXPECT_EQ(read->nodes[i].quantities[b], report->nodes[i].quantities[a]) << q.name;
      EXPECT_EQ(read->nodes[i].self_quantities[b], report->nodes[i].self_quantities[a]) << q.name;
    }
  }
}

// The reader goes by the same list: measured fields are required (the
// message names the missing one) except the optional saved_bytes, and the
// self values are derived, not read: a Loop's are its own value minus its
// body's, its self output bytes 0 (its outputs are its body's, not 24 - 16).
TEST(MemoryQuantitiesTest, ReadFromJsonAndSelfDerived) {
  auto memory = [](int64_t allocated, int64_t output, const std::string& extra) {
    return absl::StrCat(R"({"allocated_bytes": )", allocated, R"(, "freed_bytes": 8, "allocations": 2,
        "peak_bytes": 64, "live_after_bytes": 32, "output_bytes": )", output, extra, "}");
  };
  auto report_with = [](const std::string& loop_memory, const std::string& body_memory) {
    return absl::StrCat(R"({"schema_version": 3, "model": "m", "runs": 1, "warmup": 0, "timer_overhead_ns": 0,
        "run_ns": [10], "metrics": [{"name": "time"}], "nodes": [
        {"id": 0, "parent": -1, "depth": 0, "name": "Loop", "kind": "prim::Loop", "calls": [1], "total_ns": [9],
         "memory": )", loop_memory, R"(},
        {"id": 1, "parent": 0, "depth": 1, "name": "mul", "kind": "aten::mul", "calls": [3], "total_ns": [6],
         "peak_bytes": 7, "memory": )", body_memory, "}]}");
  };
  absl::StatusOr<Report> report =
      ReportFromJson(report_with(memory(100, 24, R"(, "saved_bytes": 40)"), memory(60, 16, R"(, "saved_bytes": 30)")));
  ASSERT_TRUE(report.ok()) << report.status();
  auto value = [&](int node, const char* name, bool self = false) {
    const int q = report->FindQuantity(name);
    EXPECT_GE(q, 0) << name;
    const NodeRecord& n = report->nodes[node];
    return q < 0 ? -1.0 : self ? n.self_quantities[q] : n.quantities[q];
  };
  EXPECT_EQ(value(0, "allocated_bytes"), 100);
  EXPECT_EQ(value(0, "allocated_bytes", true), 40);
  EXPECT_EQ(value(0, "freed_bytes", true), 0);
  EXPECT_EQ(value(0, "allocations", true), 0);
  EXPECT_EQ(value(0, "output_bytes", true), 0);
  EXPECT_EQ(value(0, "saved_bytes", true), 10);
  EXPECT_EQ(value(0, "peak_bytes"), 64);
  EXPECT_EQ(value(1, "allocated_bytes", true), 60);
  EXPECT_EQ(value(1, "output_bytes", true), 16);
  EXPECT_EQ(value(1, "saved_bytes", true), 30);
  EXPECT_EQ(value(1, "peak_bytes"), 64) << "memory is read from the node's memory object only";

  report = ReportFromJson(report_with(memory(100, 16, ""), memory(60, 16, "")));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(value(0, "saved_bytes"), 0);

  const std::string no_peak = absl::StrCat(R"({"allocated_bytes": 1, "freed_bytes": 0, "allocations": 1,
      "live_after_bytes": 1, "output_bytes": 1})");
  const absl::Status missing = ReportFromJson(report_with(no_peak, memory(60, 16, ""))).status();
  EXPECT_TRUE(absl::StrContains(missing.message(), "'peak_bytes' is missing")) << missing;
}

// The line profile_graph exits 3 with and graphprof raises: outputs first,
// then gradients; nothing when both passed.
TEST(VerificationFailureTest, OutputsThenGradientsThenNothing) {
  Report report;
  EXPECT_EQ(VerificationFailure(report, "forward"), "");
  Verification ok;
  ok.identical = true;
  ok.compared = 1;
  Verification bad;
  bad.compared = 2;
  bad.max_abs_error = 0.5;
  bad.max_rel_error = 0.25;
  bad.detail = "output 0 at [1]: 1 vs 1.5";
  report.verification = ok;
  report.gradient_verification = ok;
  EXPECT_EQ(VerificationFailure(report, "forward"), "");
  report.gradient_verification = bad;
  EXPECT_EQ(VerificationFailure(report, "forward"),
            "gradients differ from native forward + backward: output 0 at [1]: 1 vs 1.5 (max abs error 0.5, max rel "
            "error 0.25)");
  report.verification = bad;
  EXPECT_EQ(VerificationFailure(report, "step"),
            "output differs from native step: output 0 at [1]: 1 vs 1.5 (max abs error 0.5, max rel error 0.25)");
  // A program's outputs were compared with PyTorch's, not a native run.
  report.verification->reference = "PyTorch 2.6.0's ep.module() (graphprof.save_export, 1 thread)";
  EXPECT_EQ(VerificationFailure(report, "forward"),
            "output differs from PyTorch 2.6.0's ep.module() (graphprof.save_export, 1 thread): output 0 at [1]: 1 "
            "vs 1.5 (max abs error 0.5, max rel error 0.25)");
}

// The verified line states the criterion that decided, in its own
// quantities, and the JSON keeps it (older reports: read from the detail).
TEST(VerificationLineTest, StatesTheCriterionItApplied) {
  Report report = ProfileOnTestClock(kGraph, {torch::ones({3}), int64_t{3}}, 4);
  Verification v;
  v.within_tolerance = true;
  v.compared = 1;
  v.max_abs_error = 7.79e-20;
  v.max_rel_error = 0.00158;
  v.rtol = 1.6e-5;
  v.reference = "module.forward";
  v.criterion = Verification::Criterion::kFloat64Scale;
  v.detail = "against a float64 run of the unmodified module, each floating output on its own scale: worst output, "
             "error 7.79e-20 (1.6e-06 of its magnitude 4.8e-14), allowed 7.7e-19";
  report.verification = v;
  EXPECT_EQ(DescribeVerification(report), "output within tolerance of module.forward " + v.detail);
  const std::string json = ReportToJson(report);
  EXPECT_EQ(nlohmann::json::parse(json)["verification"]["criterion"], "float64_scale");
  absl::StatusOr<Report> back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->verification->criterion, Verification::Criterion::kFloat64Scale);
  // A report written before the key: the detail says which.
  nlohmann::json old = nlohmann::json::parse(json);
  old["verification"].erase("criterion");
  back = ReportFromJson(old.dump());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->verification->criterion, Verification::Criterion::kFloat64Scale);
  old["verification"]["criterion"] = "closeish";
  EXPECT_TRUE(absl::StrContains(ReportFromJson(old.dump()).status().message(),
                                "verification.criterion: unknown criterion 'closeish'"));

  v.criterion = Verification::Criterion::kElementwise;
  v.detail = "";
  v.rtol = 1e-4;
  v.atol = 1e-5;
  report.verification = v;
  EXPECT_EQ(DescribeVerification(report),
            "output within tolerance of module.forward: max abs error 7.79e-20, max rel error 0.00158 (element-wise "
            "bound atol + rtol x |expected|: rtol 0.0001, atol 1e-05)");
  back = ReportFromJson(ReportToJson(report));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->verification->criterion, Verification::Criterion::kElementwise);
}

}  // namespace
}  // namespace graphprof
