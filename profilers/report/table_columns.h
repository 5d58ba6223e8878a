// The columns of a view's table, declared once for every tabular rendering:
// the text table (text_report.h), the page's tables (html_report.h), CSV
// (csv_report.h) and pandas DataFrames (the Python extension). TableColumns
// lists them in one order; a rendering shows the columns it is given, in
// that order, and formats each cell by its column's type. A per-node value
// the report holds (a metric, a quantity, a memory field) has its column
// here and so in every table.
//
// The columns, in order. Those every table can have are declared in
// table_columns.cc with their Presence; FixedColumnsLegend() renders those
// rules, and report_formats_test's TableColumnsTest checks this legend
// against it (T text,
// H page, C CSV and pandas; "node" etc. the views that have them, all views
// otherwise; "grouped": every view but node):
//   id (T H: node; C)  depth (H: node, module; C)  name  kind (T: node; H: node, shape; C)
//   module (H: node; C)  nodes (T H: grouped; C)  count  mean_us  percent
//   self_us (T H: node, module; C)  self_percent (C)  std_us  min_us (C)
//   median_us (C)  p90_us  max_us (C)  total_us (C)
//   [the columns below, then:]  shapes (T H: node; C)  source (H: node; C)
// The name column is headed by the view ("kind", "module"); count is headed
// calls (executions per run, the JSON's "calls"); mean_us is headed total_us
// in the module view; total_us in CSV is the sum over runs.
// Columns that depend on the report, after total_us:
//   per metric after host time: <metric>_us (counts: <metric>), and
//   <metric>_self_us (C)
//   per quantity: its name (T H: those the roofline columns do not show)
//   the roofline (T with TableColumnsOptions::roofline, C; where work was
//   counted): GFLOP (T), gflops, gbps, intensity, bound, roof_gbps (C),
//   attainable_fraction (T: %roof), work_counted (C)
//   memory (T with TableColumnsOptions::memory, H where measured, C):
//   <heading>_bytes for each memory quantity with a heading (alloc, peak,
//   output, saved), the module view's self_alloc (T)
//   merged reports: min_report_us, median_report_us, max_report_us,
//   slowest_report, straggler (T: "r3.json +4.1%"), straggler_report and
//   straggler_excess (C)
#ifndef GRAPHPROF_PROFILERS_REPORT_TABLE_COLUMNS_H_
#define GRAPHPROF_PROFILERS_REPORT_TABLE_COLUMNS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

enum class Rendering { kText, kHtml, kCsv };  // kCsv: also pandas

// How a column's cells read; each rendering formats them its own way.
enum class ColumnType {
  kInt,       // exact integer (id, depth, nodes)
  kBytes,     // exact integer, a byte count
  kCount,     // a mean count (calls per run, count metrics)
  kMicros,    // nanoseconds, shown as microseconds
  kPercent,   // a percentage
  kNumber,    // any other number (work, rates)
  kFraction,  // 0..1 (text: as a percentage)
  kText,
};

// One cell: empty (no value: a grouped row's id, a row without memory, a
// node whose work was not counted), or a value of its column's type.
struct TableCell {
  bool empty = true;
  double number = 0;    // kCount, kMicros (ns), kPercent, kNumber, kFraction
  int64_t integer = 0;  // kInt, kBytes
  // kText: the text. An empty cell: what the text table shows for it ("?"
  // for work not counted), "" for nothing.
  std::string text;
};

struct TableColumn {
  std::string key;      // CSV and pandas header, the page's key: "mean_us", "alloc_bytes"
  std::string heading;  // the text table's header and the page's label: "mean_us", "%", "alloc"
  ColumnType type = ColumnType::kNumber;
  std::function<TableCell(const ViewRow&)> cell;
  bool in_sums = true;  // shown on the sums row (text, page)
  int digits = 4;       // kNumber in text: significant digits
  size_t width = 0;     // text: longer cells are cut (0: no limit)
};

// A set of views (GroupBy values).
class ViewSet {
 public:
  static constexpr ViewSet None() { return ViewSet(0); }
  static constexpr ViewSet All() { return ViewSet(0xF); }
  static constexpr ViewSet Of(GroupBy g) { return ViewSet(Bit(g)); }
  constexpr ViewSet With(GroupBy g) const { return ViewSet(bits_ | Bit(g)); }
  constexpr ViewSet Without(GroupBy g) const { return ViewSet(bits_ & ~Bit(g)); }
  constexpr bool Has(GroupBy g) const { return (bits_ & Bit(g)) != 0; }
  constexpr bool operator==(ViewSet other) const { return bits_ == other.bits_; }

 private:
  constexpr explicit ViewSet(unsigned bits) : bits_(bits) {}
  static constexpr unsigned Bit(GroupBy g) { return 1u << static_cast<unsigned>(g); }
  unsigned bits_;
};

// Where a column is shown: for each rendering, the views that have it.
struct Presence {
  ViewSet text, html, csv;
  constexpr ViewSet In(Rendering r) const {
    return r == Rendering::kText ? text : r == Rendering::kHtml ? html : csv;
  }
};

// A column every table can have: what TableColumn holds, and where it is shown.
struct FixedColumn {
  const char* key;
  const char* heading;
  ColumnType type;
  Presence shown;
  bool in_sums;
  TableCell (*cell)(const ViewRow&);
};

// The fixed columns in order, each with where it is shown unless everywhere:
// "id (T H: node; C)  depth (H: node, module; C)  name ...".
std::string FixedColumnsLegend();

// What only the text table chooses (profile_graph's --memory, --roofline).
// The page shows memory where measured and no roofline columns (its
// roofline section does); CSV shows both.
struct TableColumnsOptions {
  bool memory = true;
  bool roofline = true;
};

std::vector<TableColumn> TableColumns(const Report& report, GroupBy group_by, Rendering rendering,
                                      const TableColumnsOptions& options = {});

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_TABLE_COLUMNS_H_
