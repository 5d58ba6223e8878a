// Every rendering of saved reports, against the text it gave when the
// golden file was made: the text table and summary (each view, memory and
// roofline columns on), CSV (each view) and the page's data (HtmlData).
// The reports (tests/fixtures/golden/*.json) were written by profile_graph:
//   --zoo=mlp --backward --memory --warmup=1 --runs=3        mlp_backward
//   --zoo=control_flow --memory --warmup=1 --runs=3          control_flow
//   --zoo=gcn --memory --roofline --warmup=1 --runs=2        gcn_roofline
//   merge of --zoo=mlp --seed=1..4 --warmup=1 --runs=3       mlp_merged
// (each with --format=json). Rendering reads nothing but the report, so the
// output is the same on every machine and LibTorch. The diff's renderings
// (text, CSV, JSON and the page's data) are checked the same way, on diffs
// of these reports: diff_mlp (mlp_merged -> mlp_backward: four processes
// against one, a training step's columns on one side) and diff_gcn
// (gcn_roofline against itself: every row the same, work columns).
//
// A change to a rendering changes these files on purpose: run the test with
// GRAPHPROF_GOLDEN_OUT=DIR to get what it renders now in DIR, look at the
// difference (diff -r tests/fixtures/golden DIR), copy what is right and say
// why in the commit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/html_report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "tools/cli_option_names.h"

namespace graphprof {
namespace {

const char kDir[] = "tests/fixtures/golden/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string Render(const Report& report, const std::string& what) {
  if (what == "page.json") return HtmlData(report);
  std::string out = what == "txt" ? RenderSummary(report) : "";
  for (GroupBy group_by : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    absl::StatusOr<View> view = MakeView(report, ViewOptions{group_by, "", 0});
    if (!view.ok()) return std::string(view.status().message());
    if (what == "txt") {
      TableOptions options;
      options.memory = true;
      options.roofline = true;
      options.title = absl::StrCat("by ", GroupByName(group_by));
      out += RenderTable(report, *view, options);
    } else {
      absl::StrAppend(&out, "# by ", GroupByName(group_by), "\n", RenderCsv(report, *view));
    }
  }
  return out;
}

// The first line where `got` and `want` differ, both sides.
std::string FirstDifference(const std::string& want, const std::string& got) {
  const std::vector<std::string> a = absl::StrSplit(want, '\n'), b = absl::StrSplit(got, '\n');
  for (size_t i = 0; i < a.size() || i < b.size(); ++i) {
    const std::string x = i < a.size() ? a[i] : "(end)", y = i < b.size() ? b[i] : "(end)";
    if (x != y) return absl::StrCat("line ", i + 1, ":\n  golden: ", x.substr(0, 300), "\n  now:    ", y.substr(0, 300));
  }
  return "";
}

// Compares `got` with the golden file `name`; with GRAPHPROF_GOLDEN_OUT,
// also writes it there.
void ExpectGolden(const std::string& name, const std::string& got) {
  SCOPED_TRACE(name);
  if (const char* out_dir = std::getenv("GRAPHPROF_GOLDEN_OUT"); out_dir != nullptr) {
    std::ofstream(absl::StrCat(out_dir, "/", name), std::ios::binary) << got;
  }
  const std::string want = Slurp(absl::StrCat(kDir, name));
  EXPECT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want) << kDir << name << " differs (GRAPHPROF_GOLDEN_OUT=DIR writes what it is now), at "
                           << FirstDifference(want, got);
}

Report Read(const std::string& name) {
  absl::StatusOr<Report> report = ReadReportFile(absl::StrCat(kDir, name, ".json"));
  EXPECT_TRUE(report.ok()) << name << ": " << report.status();
  return report.ok() ? *std::move(report) : Report();
}

TEST(ReportGoldenTest, EveryRenderingOfSavedReportsIsUnchanged) {
  for (const char* name : {"mlp_backward", "control_flow", "gcn_roofline", "mlp_merged"}) {
    const Report report = Read(name);
    for (const char* what : {"txt", "csv", "page.json"}) ExpectGolden(absl::StrCat(name, ".", what), Render(report, what));
  }
}

TEST(ReportGoldenTest, EveryRenderingOfDiffsOfSavedReportsIsUnchanged) {
  for (const auto& [name, base, current] : {std::tuple{"diff_mlp", "mlp_merged", "mlp_backward"},
                                            std::tuple{"diff_gcn", "gcn_roofline", "gcn_roofline"}}) {
    const Report current_report = Read(current);
    // profile_graph's renderings: its flags in the notes (the noise note's --workers).
    DiffOptions options;
    options.names = CliOptionNames();
    const ReportDiff diff = DiffReports(Read(base), current_report, options);
    ExpectGolden(absl::StrCat(name, ".txt"), RenderDiff(diff, 0));
    ExpectGolden(absl::StrCat(name, ".csv"), DiffToCsv(diff));
    ExpectGolden(absl::StrCat(name, ".json"), DiffToJson(diff));
    ExpectGolden(absl::StrCat(name, ".page.json"), HtmlData(current_report, &diff));
  }
}

}  // namespace
}  // namespace graphprof
