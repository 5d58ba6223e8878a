#include "profilers/report/csv_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "profilers/report/view_columns.h"

namespace graphprof {

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\n\r") == absl::string_view::npos) return std::string(text);
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string RenderCsv(const Report& report, const View& view) {
  std::string out = absl::StrCat(absl::StrJoin(ViewColumnNames(report), ","), "\n");
  std::vector<std::string> fields;
  for (const ViewRow& row : view.rows) {
    fields.clear();
    for (const ViewCell& cell : ViewRowCells(report, row)) {
      switch (cell.kind) {
        case ViewCell::Kind::kEmpty: fields.emplace_back(); break;
        case ViewCell::Kind::kInt: fields.push_back(absl::StrCat(cell.integer)); break;
        case ViewCell::Kind::kMicros: fields.push_back(absl::StrFormat("%.3f", cell.number / 1e3)); break;
        case ViewCell::Kind::kPercent: fields.push_back(absl::StrFormat("%.4f", cell.number)); break;
        case ViewCell::Kind::kNumber: fields.push_back(absl::StrFormat("%g", cell.number)); break;
        case ViewCell::Kind::kText: fields.push_back(CsvField(cell.text)); break;
      }
    }
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

}  // namespace graphprof
