#include "profilers/report/csv_report.h"


#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "profilers/report/table_columns.h"

namespace graphprof {

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\n\r") == absl::string_view::npos) return std::string(text);
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string RenderCsv(const Report& report, const View& view) {
  const std::vector<TableColumn> columns = TableColumns(report, view.group_by, Rendering::kCsv);
  std::vector<std::string> fields;
  for (const TableColumn& c : columns) fields.push_back(CsvField(c.key));
  std::string out = absl::StrCat(absl::StrJoin(fields, ","), "\n");
  for (const ViewRow& row : view.rows) {
    fields.clear();
    for (const TableColumn& c : columns) {
      const TableCell cell = c.cell(row);
      if (cell.empty) {
        fields.emplace_back();
        continue;
      }
      switch (c.type) {
        case ColumnType::kInt:
        case ColumnType::kBytes: fields.push_back(absl::StrCat(cell.integer)); break;
        case ColumnType::kMicros: fields.push_back(absl::StrFormat("%.3f", cell.number / 1e3)); break;
        case ColumnType::kPercent: fields.push_back(absl::StrFormat("%.4f", cell.number)); break;
        case ColumnType::kCount:
        case ColumnType::kNumber:
        case ColumnType::kFraction: fields.push_back(absl::StrFormat("%g", cell.number)); break;
        case ColumnType::kText: fields.push_back(CsvField(cell.text)); break;
      }
    }
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

}  // namespace graphprof
