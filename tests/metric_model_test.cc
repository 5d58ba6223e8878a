// What a new per-node value costs (issue 22): a test-only collector, in this
// file alone, adds a quantity ("widgets", one number per node) and a per-run
// metric ("gizmo", nanoseconds per node and run) to the reports it takes part
// in. Nothing else knows their names, yet both must show in every view
// (node, kind, module, shape), the text, CSV and HTML tables, the JSON and
// back through the reader, as sort keys, in the diff (text, CSV, JSON, with
// a verdict for the metric) and in merged reports. The pandas frames are
// python/tests/graphprof_compare_test.py's (they use the CSV's columns,
// table_columns.h, the one list every table takes its columns from).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "profilers/collected.h"
#include "profilers/node_observer.h"
#include "profilers/profiler.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/html_report.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/table_columns.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "tests/test_ops.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::DefineWithTestOps;
using ::graphprof::testing::PlanModule;
using ::graphprof::testing::TestClock;

// The collector: counts every node's executions in every timed run (on the
// hot path: an increment into storage sized in Prepare), then adds
// `widgets_per_call` widgets per execution of run 0 as the quantity and
// `gizmo_ns_per_call` per execution as the metric's per-run self value.
class WidgetCollector final : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  WidgetCollector(double widgets_per_call, int64_t gizmo_ns_per_call)
      : widgets_per_call_(widgets_per_call), gizmo_ns_per_call_(gizmo_ns_per_call) {}

  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t) override {
    nodes_ = plan.nodes().size();
    counts_.assign(static_cast<size_t>(runs) * nodes_, 0);
    return absl::OkStatus();
  }
  void BeginRun(int run) override { run_ = static_cast<size_t>(run); }
  void EndNode(const NodePlan& node) override { ++counts_[run_ * nodes_ + node.id]; }

  std::vector<Column> Columns() const override {
    Column widgets{"widgets", "widgets made per run (test)", Unit::kCount, Column::Scope::kOwn};
    widgets.sampling = Column::Sampling::kOnce;
    Column gizmo;
    gizmo.name = "gizmo";
    gizmo.description = "gizmo time (test)";
    gizmo.scope = Column::Scope::kSelf;
    return {widgets, gizmo};
  }

  absl::StatusOr<Collected> Collect(int runs) override {
    ColumnValues widgets{"widgets", {}, std::vector<double>(nodes_), {}, {}};
    ColumnValues gizmo{"gizmo", std::vector<int64_t>(static_cast<size_t>(runs) * nodes_), {}, {}, {}};
    for (size_t id = 0; id < nodes_; ++id) {
      widgets.once[id] = widgets_per_call_ * static_cast<double>(counts_[id]);
      for (size_t r = 0; r < static_cast<size_t>(runs); ++r) {
        gizmo.per_run[r * nodes_ + id] = gizmo_ns_per_call_ * counts_[r * nodes_ + id];
      }
    }
    Collected collected;
    collected.columns = {std::move(widgets), std::move(gizmo)};
    return collected;
  }

 private:
  const double widgets_per_call_;
  const int64_t gizmo_ns_per_call_;
  size_t nodes_ = 0;
  size_t run_ = 0;
  std::vector<int64_t> counts_;
};

// Two modules: `a` runs advance once, `b` three times in a loop.
torch::jit::Module TwoModules() {
  torch::jit::Module a("A");
  DefineWithTestOps(a, "def forward(self, x):\n    return graphprof_test.advance(x, 100)\n");
  torch::jit::Module b("B");
  DefineWithTestOps(b,
                    "def forward(self, x):\n"
                    "    h = x\n"
                    "    for i in range(3):\n"
                    "        h = graphprof_test.advance(h, 10)\n"
                    "    return h\n");
  torch::jit::Module root("Root");
  root.register_module("a", a);
  root.register_module("b", b);
  root.define("def forward(self, x):\n    return self.b.forward(self.a.forward(x))\n");
  return root;
}

// The test's profiling options; `collector` null: none.
ProfileOptions Options(NodeObserver* collector, int runs) {
  ProfileOptions options;
  options.warmup = 1;
  options.runs = runs;
  options.clock = TestClock();
  if (collector != nullptr) options.observers = {collector};
  return options;
}

Report ProfileWithWidgets(double widgets_per_call, int64_t gizmo_ns_per_call, int runs = 8) {
  torch::jit::Module module = TwoModules();
  auto plan = PlanModule(module);
  EXPECT_NE(plan, nullptr);
  WidgetCollector collector(widgets_per_call, gizmo_ns_per_call);
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({2})}, Options(&collector, runs));
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : Report();
}

std::vector<std::string> CsvHeader(const std::string& csv) {
  return absl::StrSplit(csv.substr(0, csv.find('\n')), ',');
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The row of `view` named `name`, or null.
const ViewRow* Row(const View& view, const std::string& name) {
  for (const ViewRow& row : view.rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

TEST(MetricModelTest, ACollectorsQuantityAndMetricAreInEveryViewAndTable) {
  const Report report = ProfileWithWidgets(/*widgets_per_call=*/2, /*gizmo_ns_per_call=*/50);
  const int q = report.FindQuantity("widgets");
  const int m = report.FindMetric("gizmo");
  ASSERT_GE(q, 0);
  ASSERT_GE(m, 0);
  for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    SCOPED_TRACE(GroupByName(group_by));
    absl::StatusOr<View> view = MakeView(report, ViewOptions{group_by});
    ASSERT_TRUE(view.ok()) << view.status();
    const std::string text = RenderTable(report, *view, TableOptions{});
    EXPECT_TRUE(absl::StrContains(text, "widgets")) << text;
    EXPECT_TRUE(absl::StrContains(text, "gizmo_us")) << text;
    const std::vector<std::string> header = CsvHeader(RenderCsv(report, *view));
    EXPECT_TRUE(Contains(header, "widgets"));
    EXPECT_TRUE(Contains(header, "gizmo_us"));
    EXPECT_TRUE(Contains(header, "gizmo_self_us"));
  }
  // The values: advance ran 1 + 3 times per run, 2 widgets and 50 ns each.
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind});
  ASSERT_TRUE(kinds.ok());
  const ViewRow* advance = Row(*kinds, "graphprof_test::advance");
  ASSERT_NE(advance, nullptr);
  EXPECT_EQ(advance->quantities[q], 8);
  EXPECT_EQ(advance->metrics[m].self.mean, 200);
  absl::StatusOr<View> modules = MakeView(report, ViewOptions{GroupBy::kModule, "order"});
  ASSERT_TRUE(modules.ok());
  const ViewRow* b = Row(*modules, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_GE(b->quantities[q], 6);  // its three advances (and its loop's own nodes)
  EXPECT_EQ(b->metrics[m].total.mean, 50 * b->quantities[q] / 2);

  // The HTML page's data has a column for each in all four views.
  const std::string html = HtmlData(report);
  for (const char* key : {"\"widgets\"", "\"gizmo_us\""}) {
    size_t count = 0;
    for (size_t at = html.find(key); at != std::string::npos; at = html.find(key, at + 1)) ++count;
    EXPECT_GE(count, 4u) << key;
  }
}

// A collector whose Columns() and Collect() disagree, or whose Columns()
// clash with the report's own, as the test says.
class MisdeclaredCollector final : public NodeObserver {
 public:
  explicit MisdeclaredCollector(std::vector<Column> columns, std::string fills = "")
      : columns_(std::move(columns)), fills_(std::move(fills)) {}
  bool ObservesNodes() const override { return false; }
  std::vector<Column> Columns() const override { return columns_; }
  absl::StatusOr<Collected> Collect(int runs) override {
    ++collected_;
    Collected collected;
    if (!fills_.empty()) {
      collected.columns.push_back(ColumnValues{fills_, std::vector<int64_t>(static_cast<size_t>(runs) * 64, 7), {}, {}, {}});
    }
    collected.notes.push_back("misdeclared collector's note");
    return collected;
  }
  int collected_ = 0;

 private:
  std::vector<Column> columns_;
  std::string fills_;
};

Column Metric(std::string name) {
  Column metric;
  metric.name = std::move(name);
  metric.scope = Column::Scope::kSelf;
  return metric;
}

// No collector writes the report: one that returns values for a column it
// never declared fails the profile in one line naming the column, and the
// values reach no index (FindMetric's -1 is never used).
TEST(CollectorProtocolTest, ValuesForAnUndeclaredColumnFailTheProfile) {
  torch::jit::Module module = TwoModules();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  MisdeclaredCollector forgot({}, /*fills=*/"gizmo");
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({2})}, Options(&forgot, 3));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(),
            "a collector returned values for column 'gizmo', which it did not declare (NodeObserver::Columns)");
  EXPECT_EQ(forgot.collected_, 1);

  // Declared, the same values go in.
  MisdeclaredCollector declared({Metric("gizmo")}, /*fills=*/"gizmo");
  report = Profile(plan, {torch::ones({2})}, Options(&declared, 3));
  ASSERT_TRUE(report.ok()) << report.status();
  const int m = report->FindMetric("gizmo");
  ASSERT_GE(m, 0);
  EXPECT_EQ(report->nodes[0].metrics[m].self, (std::vector<int64_t>{7, 7, 7}));
  EXPECT_EQ(report->notes, std::vector<std::string>{"misdeclared collector's note"});
}

// Registration: columns are checked before any run, so a collector whose
// declarations clash fails the profile before it starts (Collect never
// called).
TEST(CollectorProtocolTest, ClashingDeclarationsFailAtRegistration) {
  torch::jit::Module module = TwoModules();
  auto plan = PlanModule(module);
  ASSERT_NE(plan, nullptr);
  Column quantity = Metric("widgets");
  quantity.sampling = Column::Sampling::kOnce;
  const struct {
    std::vector<Column> columns;
    bool memory;
    std::string message;
  } cases[] = {
      {{Metric("time")}, false, "collector 1 of 1 declares column 'time', which the report already has"},
      {{Metric("flops")}, false, "collector 1 of 1 declares column 'flops', which the report already has"},
      {{Metric("peak_bytes")}, true, "collector 1 of 1 declares column 'peak_bytes', which the report already has"},
      {{Metric("gizmo"), quantity, Metric("gizmo")}, false, "collector 1 of 1 declares column 'gizmo', which the report already has"},
      {{Metric("")}, false, "collector 1 of 1 declares a column without a name"},
  };
  for (const auto& c : cases) {
    MisdeclaredCollector collector(c.columns);
    ProfileOptions options = Options(&collector, 2);
    options.memory = c.memory;
    absl::StatusOr<Report> report = Profile(plan, {torch::ones({2})}, options);
    ASSERT_FALSE(report.ok()) << c.message;
    EXPECT_EQ(report.status().message(), c.message);
    EXPECT_EQ(collector.collected_, 0) << "checked before any run";
  }
  // Two collectors may not both declare a column.
  MisdeclaredCollector first({Metric("gizmo")}), second({Metric("gizmo")});
  ProfileOptions options = Options(&first, 2);
  options.observers.push_back(&second);
  absl::StatusOr<Report> report = Profile(plan, {torch::ones({2})}, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "collector 2 of 2 declares column 'gizmo', which the report already has");
  // Memory off, "peak_bytes" is a collector's to declare.
  MisdeclaredCollector peak({quantity});
  EXPECT_TRUE(Profile(plan, {torch::ones({2})}, Options(&peak, 2)).ok());
}

// Values of the wrong length are refused, not written past a node's series.
TEST(CollectorProtocolTest, ValuesOfTheWrongLengthAreRefused) {
  Report report;
  report.runs = 2;
  report.nodes.resize(3);
  for (NodeRecord& node : report.nodes) report.FitNode(node);
  Collected short_series;
  short_series.columns.push_back(ColumnValues{"gizmo", {1, 2, 3}, {}, {}, {}});
  absl::Status inserted = InsertCollected({Metric("gizmo")}, short_series, report);
  EXPECT_FALSE(inserted.ok());
  EXPECT_EQ(report.FindMetric("gizmo"), -1) << "nothing written";
  Collected fits;
  fits.columns.push_back(ColumnValues{"gizmo", {1, 2, 3, 4, 5, 6}, {}, {10, 20}, {}});
  ASSERT_TRUE(InsertCollected({Metric("gizmo")}, fits, report).ok());
  report.Finalize();
  const int m = report.FindMetric("gizmo");
  EXPECT_EQ(report.nodes[2].metrics[m].self, (std::vector<int64_t>{3, 6}));
  EXPECT_EQ(report.columns[m].run_total, (std::vector<int64_t>{10, 20}));
}

// Every "columns" array of the page's data, as its keys.
void PageTables(const nlohmann::json& j, std::vector<std::vector<std::string>>& tables) {
  if (j.is_object()) {
    if (j.contains("columns") && j["columns"].is_array()) {
      std::vector<std::string> keys;
      for (const auto& c : j["columns"]) keys.push_back(c.value("key", ""));
      tables.push_back(keys);
    }
    for (const auto& [key, value] : j.items()) PageTables(value, tables);
  } else if (j.is_array()) {
    for (const auto& value : j) PageTables(value, tables);
  }
}

// The tables take their columns from one list (table_columns.h): the text
// table's headers, the CSV's header and the page's column keys are exactly
// TableColumns' for each, the collector's columns among them; a report
// without the collector has none of them anywhere.
TEST(MetricModelTest, EveryTableTakesItsColumnsFromOneList) {
  const Report with = ProfileWithWidgets(2, 50);
  torch::jit::Module module = TwoModules();
  absl::StatusOr<Report> without = Profile(PlanModule(module), {torch::ones({2})}, Options(nullptr, 2));
  ASSERT_TRUE(without.ok()) << without.status();
  for (const Report* report : {&with, static_cast<const Report*>(&*without)}) {
    const bool collected = report == &with;
    std::vector<std::vector<std::string>> page;
    PageTables(nlohmann::json::parse(HtmlData(*report)), page);
    for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
      SCOPED_TRACE(absl::StrCat(GroupByName(group_by), collected ? " with" : " without"));
      absl::StatusOr<View> view = MakeView(*report, ViewOptions{group_by});
      ASSERT_TRUE(view.ok()) << view.status();
      for (Rendering rendering : {Rendering::kText, Rendering::kHtml, Rendering::kCsv}) {
        std::vector<std::string> keys;
        for (const TableColumn& c : TableColumns(*report, group_by, rendering)) keys.push_back(c.key);
        EXPECT_EQ(Contains(keys, "widgets"), collected);
        EXPECT_EQ(Contains(keys, "gizmo_us"), collected);
        EXPECT_EQ(Contains(keys, rendering == Rendering::kCsv ? "gizmo_self_us" : "widgets"), collected);
      }
      std::vector<std::string> csv_keys;
      for (const TableColumn& c : TableColumns(*report, group_by, Rendering::kCsv)) csv_keys.push_back(c.key);
      EXPECT_EQ(CsvHeader(RenderCsv(*report, *view)), csv_keys);
      std::vector<std::string> page_keys;
      for (const TableColumn& c : TableColumns(*report, group_by, Rendering::kHtml)) page_keys.push_back(c.key);
      EXPECT_NE(std::find(page.begin(), page.end(), page_keys), page.end()) << absl::StrJoin(page_keys, ",");
      // The text table's header line holds the headings, in order, and
      // nothing else.
      const std::string text = RenderTable(*report, *view, TableOptions{});
      const std::string header = text.substr(0, text.find('\n'));
      std::string rest = header;
      for (const TableColumn& c :
           TableColumns(*report, group_by, Rendering::kText, TableColumnsOptions{/*memory=*/false, /*roofline=*/false})) {
        const size_t at = rest.find(c.heading);
        ASSERT_NE(at, std::string::npos) << c.heading << " in " << header;
        rest = rest.substr(at + c.heading.size());
      }
      EXPECT_EQ(rest.find_first_not_of(' '), std::string::npos) << header;
      EXPECT_EQ(absl::StrContains(header, "widgets"), collected) << header;
    }
  }
}

TEST(MetricModelTest, BothAreSortKeys) {
  const Report report = ProfileWithWidgets(2, 50);
  const std::vector<std::string> keys = SortKeys(report);
  for (const char* key : {"widgets", "gizmo", "gizmo_self"}) EXPECT_TRUE(Contains(keys, key)) << key;
  // Known before any run, from what the collector declares (profile_graph
  // checks --sort against this).
  WidgetCollector collector(2, 50);
  EXPECT_EQ(SortKeys(DeclaredReport(Options(&collector, 8))), keys);
  const int q = report.FindQuantity("widgets");
  const int m = report.FindMetric("gizmo");
  for (const char* sort : {"widgets", "gizmo"}) {
    SCOPED_TRACE(sort);
    absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kNode, sort});
    ASSERT_TRUE(view.ok()) << view.status();
    ASSERT_GE(view->rows.size(), 3u);
    // Largest first; the loop body's advance (3 executions) before a's (1).
    auto key = [&](const ViewRow& row) { return sort[0] == 'w' ? row.quantities[q] : row.metrics[m].total.mean; };
    for (size_t i = 1; i < view->rows.size(); ++i) EXPECT_GE(key(view->rows[i - 1]), key(view->rows[i]));
    int body = -1, once = -1;
    for (size_t i = 0; i < view->rows.size(); ++i) {
      if (view->rows[i].kind != "graphprof_test::advance") continue;
      (view->rows[i].module == "b" ? body : once) = static_cast<int>(i);
    }
    ASSERT_GE(body, 0);
    ASSERT_GE(once, 0);
    EXPECT_LT(body, once);
    EXPECT_EQ(key(view->rows[body]), 3 * key(view->rows[once]));
  }
}

TEST(MetricModelTest, BothSurviveTheJsonRoundTrip) {
  const Report report = ProfileWithWidgets(2, 50);
  const std::string json = ReportToJson(report);
  absl::StatusOr<Report> back = ReportFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ReportToJson(*back), json);
  const int q = back->FindQuantity("widgets");
  const int m = back->FindMetric("gizmo");
  ASSERT_GE(q, 0);
  ASSERT_GE(m, 0);
  EXPECT_EQ(back->columns[q].description, "widgets made per run (test)");
  for (size_t id = 0; id < report.nodes.size(); ++id) {
    EXPECT_EQ(back->nodes[id].quantities[q], report.nodes[id].quantities[report.FindQuantity("widgets")]);
    EXPECT_EQ(back->nodes[id].metrics[m].self, report.nodes[id].metrics[report.FindMetric("gizmo")].self);
  }
  // Flat on each node, beside the per-run series.
  const nlohmann::json j = nlohmann::json::parse(json);
  bool any = false;
  for (const nlohmann::json& node : j["nodes"]) any |= node.contains("widgets") && node["widgets"].get<double>() > 0;
  EXPECT_TRUE(any);
}

TEST(MetricModelTest, TheDiffComparesBoth) {
  const Report base = ProfileWithWidgets(/*widgets_per_call=*/1, /*gizmo_ns_per_call=*/100);
  const Report current = ProfileWithWidgets(/*widgets_per_call=*/3, /*gizmo_ns_per_call=*/300);
  const ReportDiff diff = DiffReports(base, current);
  const int widgets = diff.FindColumn("widgets");
  const int gizmo = diff.FindColumn("gizmo");
  ASSERT_GE(widgets, 0);
  ASSERT_GE(gizmo, 0);
  EXPECT_TRUE(diff.columns[widgets].quantity);
  EXPECT_FALSE(diff.columns[widgets].compared());
  EXPECT_TRUE(diff.columns[gizmo].compared());
  bool found = false;
  for (const NodeDelta& d : diff.nodes) {
    if (d.kind != "graphprof_test::advance" || d.module != "a") continue;
    found = true;
    EXPECT_EQ(d.values[widgets].base, 1);
    EXPECT_EQ(d.values[widgets].current, 3);
    EXPECT_EQ(d.values[gizmo].base, 100);
    EXPECT_EQ(d.values[gizmo].current, 300);
    // Host time is the same on both sides; the metric tripled in every run.
    EXPECT_EQ(d.column_stats[gizmo].verdict, Verdict::kSlower) << d.column_stats[gizmo].reason;
  }
  EXPECT_TRUE(found);
  for (const GroupDelta& g : diff.kinds) {
    if (g.name == "graphprof_test::advance") {
      EXPECT_EQ(g.values[widgets].delta(), 8);
    }
  }

  const std::string text = RenderDiff(diff);
  // A line per column under the run time: the metric's node sums (it has no
  // run totals), the quantity's.
  for (const char* part : {"widgets", "base_gizmo_us", "gizmo change", "\n  gizmo      ", "\n  widgets    "}) {
    EXPECT_TRUE(absl::StrContains(text, part)) << part << "\n" << text;
  }
  const std::vector<std::string> header = CsvHeader(DiffToCsv(diff));
  for (const char* column : {"base_widgets", "current_widgets", "delta_widgets", "base_gizmo_us", "current_gizmo_us",
                             "delta_gizmo_us", "gizmo_verdict", "gizmo_change"}) {
    EXPECT_TRUE(Contains(header, column)) << column;
  }
  const nlohmann::json j = nlohmann::json::parse(DiffToJson(diff));
  ASSERT_FALSE(j["nodes"].empty());
  for (const char* key : {"base_widgets", "current_widgets", "delta_widgets", "base_gizmo_us", "gizmo_verdict"}) {
    EXPECT_TRUE(j["nodes"][0].contains(key)) << key;
    EXPECT_TRUE(j["kinds"][0].contains(key)) << key;
  }
  bool described = false;
  for (const nlohmann::json& column : j["columns"]) described |= column["name"] == "widgets";
  EXPECT_TRUE(described);
  const std::string html = HtmlData(current, &diff);
  EXPECT_TRUE(absl::StrContains(html, "\"delta_widgets\""));
  EXPECT_TRUE(absl::StrContains(html, "\"gizmo_verdict\""));
}

TEST(MetricModelTest, MergedReportsKeepBoth) {
  const Report first = ProfileWithWidgets(2, 50, /*runs=*/3);
  const Report second = ProfileWithWidgets(2, 50, /*runs=*/5);
  ReportMerger merger;
  ASSERT_TRUE(merger.Add(first, "first.json").ok());
  ASSERT_TRUE(merger.Add(second, "second.json").ok());
  absl::StatusOr<Report> merged = merger.Finish();
  ASSERT_TRUE(merged.ok()) << merged.status();
  const int q = merged->FindQuantity("widgets");
  const int m = merged->FindMetric("gizmo");
  ASSERT_GE(q, 0);
  ASSERT_GE(m, 0);
  for (size_t id = 0; id < merged->nodes.size(); ++id) {
    EXPECT_EQ(merged->nodes[id].quantities[q], first.nodes[id].quantities[first.FindQuantity("widgets")]);
    EXPECT_EQ(merged->nodes[id].metrics[m].self.size(), 8u);
  }
  // The collector measured no run totals: the merge makes none up.
  EXPECT_TRUE(merged->columns[m].run_total.empty());
  EXPECT_EQ(merged->columns[0].run_total.size(), 8u);
  absl::StatusOr<View> view = MakeView(*merged, ViewOptions{GroupBy::kKind, "widgets"});
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(absl::StrContains(RenderTable(*merged, *view, TableOptions{}), "widgets"));
}

// Metrics and quantities are one list of columns (Report::columns): a name
// names one column, whichever its sampling, and a column's index is the
// same in the nodes' series, values and view rows.
TEST(MetricModelTest, OneListOfColumnsOneNamePerColumn) {
  const Report report = ProfileWithWidgets(2, 50);
  const int q = report.FindQuantity("widgets");
  const int m = report.FindMetric("gizmo");
  ASSERT_GE(q, 0);
  ASSERT_GE(m, 0);
  EXPECT_NE(q, m);
  EXPECT_EQ(report.FindMetric("widgets"), -1);
  EXPECT_EQ(report.FindQuantity("gizmo"), -1);
  EXPECT_EQ(report.columns[q].sampling, Column::Sampling::kOnce);
  EXPECT_EQ(report.columns[m].sampling, Column::Sampling::kPerRun);
  EXPECT_EQ(report.Metrics().front(), 0);  // time
  EXPECT_EQ(report.Metrics().size() + report.Quantities().size(), report.columns.size());
  for (const NodeRecord& node : report.nodes) {
    EXPECT_EQ(node.metrics.size(), report.columns.size());
    EXPECT_EQ(node.quantities.size(), report.columns.size());
  }
  // A name taken by the other sampling is refused, in code and in a file.
  Report clash = report;
  Column widgets;
  widgets.name = "widgets";
  EXPECT_EQ(clash.AddMetric(widgets), -1);
  Column gizmo;
  gizmo.name = "gizmo";
  EXPECT_EQ(clash.AddQuantity(gizmo), -1);
  EXPECT_EQ(clash.columns.size(), report.columns.size());
  nlohmann::json j = nlohmann::json::parse(ReportToJson(report));
  j["quantities"].push_back({{"name", "gizmo"}, {"unit", "count"}});
  absl::StatusOr<Report> read = ReportFromJson(j.dump());
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(absl::StrContains(read.status().message(), "report has quantity 'gizmo' twice")) << read.status();
  j["quantities"].back()["name"] = "widgets";  // the same quantity twice
  read = ReportFromJson(j.dump());
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(absl::StrContains(read.status().message(), "report has quantity 'widgets' twice")) << read.status();
}

}  // namespace
}  // namespace graphprof
