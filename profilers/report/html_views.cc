// The page's view tables (html_table.h): each view's columns are
// table_columns.h's for the page.
#include <string>
#include <vector>

#include "profilers/report/html_table.h"
#include "profilers/report/table_columns.h"
#include "profilers/report/views.h"

namespace graphprof::html_internal {
namespace {

// The page's type of a column (report.js formats by it).
const char* PageType(ColumnType type) {
  switch (type) {
    case ColumnType::kInt: return "int";
    case ColumnType::kBytes: return "bytes";
    case ColumnType::kMicros: return "us";
    case ColumnType::kPercent: return "pct";
    case ColumnType::kText: return "text";
    case ColumnType::kCount:
    case ColumnType::kNumber:
    case ColumnType::kFraction: return "num";
  }
  return "num";
}

void WriteCell(JsonWriter& w, ColumnType type, const TableCell& cell) {
  if (cell.empty) return w.Null();
  switch (type) {
    case ColumnType::kInt:
    case ColumnType::kBytes: return w.Int(cell.integer);
    case ColumnType::kMicros: return Us(w, cell.number);
    case ColumnType::kPercent: return w.Fixed(cell.number, 4);
    case ColumnType::kText: return w.String(cell.text);
    case ColumnType::kCount:
    case ColumnType::kNumber:
    case ColumnType::kFraction: return w.Approx(cell.number);
  }
}

}  // namespace

absl::StatusOr<View> PageView(const Report& report, GroupBy group_by) {
  return MakeView(report, ViewOptions{group_by, group_by == GroupBy::kModule ? "order" : "", 0});
}

void WriteView(JsonWriter& w, const Report& report, const View& view) {
  const GroupBy group_by = view.group_by;
  std::vector<PageColumn<ViewRow>> columns;
  for (TableColumn& c : TableColumns(report, group_by, Rendering::kHtml)) {
    columns.push_back({c.key, c.heading, PageType(c.type), [c](JsonWriter& w, const ViewRow& r, bool sums) {
                         if (sums && !c.in_sums) return w.Null();
                         WriteCell(w, c.type, c.cell(r));
                       }});
  }
  const bool modules = group_by == GroupBy::kModule;
  WriteTable(w, columns, view.rows, modules ? nullptr : &view.sums, modules ? nullptr : "mean_us", true,
             group_by == GroupBy::kNode || modules ? "depth" : nullptr);
}

}  // namespace graphprof::html_internal
