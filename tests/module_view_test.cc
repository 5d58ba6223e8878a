// The layer-wise module view (torch_geometric's layer-wise table): total and
// self time and memory side by side, and the rows limited to module paths.
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

namespace graphprof {
namespace {

// Nodes (module, ns per run, bytes allocated): "" 5/1, layer1 10/100,
// layer1.0 20/200, layer1.0 40/400, layer1.1 80/800, layer2 160/1600.
Report LayeredReport() {
  struct N {
    const char* module;
    int64_t ns, bytes;
  };
  const std::vector<N> nodes = {{"", 5, 1},          {"layer1", 10, 100},  {"layer1.0", 20, 200},
                                {"layer1.0", 40, 400}, {"layer1.1", 80, 800}, {"layer2", 160, 1600}};
  Report report;
  report.model = "toy";
  report.runs = 1;
  report.DeclareMemory();
  const int allocated = report.FindQuantity("allocated_bytes"), peak = report.FindQuantity("peak_bytes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeRecord node;
    node.identity.id = static_cast<int>(i);
    node.identity.kind = "aten::add";
    node.identity.module = nodes[i].module;
    node.identity.label = "add";
    node.calls = {1};
    report.FitNode(node);
    node.metrics[0] = Series{{nodes[i].ns}, {}};
    node.quantities[allocated] = static_cast<double>(nodes[i].bytes);
    node.quantities[peak] = static_cast<double>(nodes[i].bytes);
    report.nodes.push_back(node);
  }
  report.columns[0].run_total = {315};
  report.run_start_ns = {0};
  report.memory = MemorySummary{};
  report.Finalize();
  return report;
}

const ViewRow* Row(const View& view, const std::string& name) {
  for (const ViewRow& row : view.rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

TEST(ModuleViewTest, TotalAndSelfTimeAndMemory) {
  const Report report = LayeredReport();
  const int allocated = report.FindQuantity("allocated_bytes");
  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kModule, "", 0});
  ASSERT_TRUE(view.ok()) << view.status();
  struct Want {
    std::string name;
    double total_ns, self_ns;
    int64_t alloc, self_alloc;
  };
  for (const Want& want : std::vector<Want>{{"(root)", 315, 5, 3101, 1},
                                            {"layer1", 150, 10, 1500, 100},
                                            {"layer1.0", 60, 60, 600, 600},
                                            {"layer1.1", 80, 80, 800, 800},
                                            {"layer2", 160, 160, 1600, 1600}}) {
    const ViewRow* row = Row(*view, want.name);
    ASSERT_NE(row, nullptr) << want.name;
    EXPECT_DOUBLE_EQ(row->time().total.mean, want.total_ns) << want.name;
    EXPECT_DOUBLE_EQ(row->time().self.mean, want.self_ns) << want.name;
    EXPECT_EQ(row->quantities[allocated], want.alloc) << want.name;
    EXPECT_EQ(row->self_quantities[allocated], want.self_alloc) << want.name;
  }
  EXPECT_EQ(Row(*view, "layer1")->quantities[report.FindQuantity("peak_bytes")], 800) << "the highest peak inside";

  // One table: total_us, self_us, alloc and self_alloc side by side.
  const std::string table = RenderTable(report, *view, TableOptions{true, "by module"});
  std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_GE(lines.size(), 3u);
  const std::string& header = lines[1];
  for (const char* column : {"total_us", "self_us", "alloc", "self_alloc", "peak"}) {
    EXPECT_TRUE(absl::StrContains(header, column)) << column << "\n" << table;
  }
  EXPECT_LT(header.find("alloc"), header.find("self_alloc"));
  bool layer1 = false;
  for (const std::string& line : lines) {
    if (absl::StrContains(line, " layer1 ")) {
      layer1 = true;
      std::vector<std::string> cells = absl::StrSplit(line, ' ', absl::SkipEmpty());
      const auto at = std::find(cells.begin(), cells.end(), "1.46");
      ASSERT_NE(at, cells.end()) << line;
      EXPECT_EQ(std::vector<std::string>(at, cells.end()),
                (std::vector<std::string>{"1.46", "KiB", "100", "B", "800", "B", "0", "B"}))
          << "alloc, self_alloc, peak, output: " << line;
    }
  }
  EXPECT_TRUE(layer1) << table;
  // Other views keep their columns.
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  ASSERT_TRUE(kinds.ok());
  EXPECT_FALSE(absl::StrContains(RenderTable(report, *kinds, TableOptions{true, ""}), "self_alloc"));
}

// A value a collector fills after the report was finalized: grouped rows add
// a node's own work without needing Finalize again.
TEST(ModuleViewTest, GroupedRowsAddWorkFilledAfterFinalize) {
  Report report = LayeredReport();
  const int flops = report.AddQuantity(Column{"flops", "test", Unit::kFlops, Column::Scope::kOwn});
  double total = 0;
  for (NodeRecord& node : report.nodes) {
    node.quantities[flops] = 10.0 * (node.identity.id + 1);
    total += node.quantities[flops];
  }
  for (GroupBy group_by : {GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    absl::StatusOr<View> view = MakeView(report, ViewOptions{group_by, "", 0});
    ASSERT_TRUE(view.ok()) << view.status();
    EXPECT_EQ(view->sums.quantities[flops], total) << GroupByName(group_by);
  }
}

TEST(ModuleViewTest, LimitedToModulePaths) {
  const Report report = LayeredReport();
  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kModule, "", 0, {"layer1.0", "layer2"}});
  ASSERT_TRUE(view.ok()) << view.status();
  std::vector<std::string> names;
  for (const ViewRow& row : view->rows) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"layer1.0", "layer2"}));
  EXPECT_DOUBLE_EQ(view->sums.time().total.mean, 220) << "the sums cover the selection";
  EXPECT_EQ(view->sums.quantities[report.FindQuantity("allocated_bytes")], 2200);

  absl::StatusOr<View> subtree = MakeView(report, ViewOptions{GroupBy::kModule, "", 0, {"layer1"}});
  ASSERT_TRUE(subtree.ok());
  names.clear();
  for (const ViewRow& row : subtree->rows) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"layer1", "layer1.0", "layer1.1"})) << "with its submodules";

  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0, {"layer1.1"}});
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->rows.size(), 1u);
  EXPECT_EQ(nodes->rows[0].id, 4);

  // "layer1.0" is not inside "layer1.": paths match whole components.
  absl::StatusOr<View> typo = MakeView(report, ViewOptions{GroupBy::kModule, "", 0, {"layer3"}});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(), "no module 'layer3' in toy (top-level modules: layer1, layer2)");
  EXPECT_FALSE(MakeView(report, ViewOptions{GroupBy::kKind, "", 0, {"layer"}}).ok()) << "not a prefix match";
}

}  // namespace
}  // namespace graphprof
