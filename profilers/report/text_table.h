// An aligned plain-text table: header, rule, rows, optional rule + footer.
//
//   TextTable t({{"kind", TextTable::kLeft}, {"mean_us", TextTable::kRight}});
//   t.AddRow({"aten::conv2d", "36934"});
//   t.AddFooter({"(sum)", "43760"});
//   std::string text = t.Render();
#ifndef GRAPHPROF_PROFILERS_REPORT_TEXT_TABLE_H_
#define GRAPHPROF_PROFILERS_REPORT_TEXT_TABLE_H_

#include <string>
#include <utility>
#include <vector>

namespace graphprof {

class TextTable {
 public:
  enum Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = kLeft;
    size_t max_width = 0;  // longer cells are cut with "..."; 0: no limit
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // Cells in column order; missing cells are empty.
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Printed after a rule, below the rows.
  void AddFooter(std::vector<std::string> cells) { footer_ = std::move(cells); }

  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string> footer_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_TEXT_TABLE_H_
