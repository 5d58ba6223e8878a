// The page's tables as JSON (html_report.cc's data): a column model and
// the writer of a table in the shape report.js's TableView reads (columns,
// rows, sums, default sort, indent key). Private to //profilers/report:html_report.
#ifndef GRAPHPROF_PROFILERS_REPORT_HTML_TABLE_H_
#define GRAPHPROF_PROFILERS_REPORT_HTML_TABLE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof::html_internal {

// One column of a page table: its key, header, value type (the page formats
// by type: int, num, us, pct, bytes, text, delta_us, speedup) and how a
// row's cell is written.
template <typename Row>
struct PageColumn {
  std::string key;
  std::string label;
  std::string type;
  std::function<void(JsonWriter&, const Row&, bool sums)> write;
};

inline void Us(JsonWriter& w, double ns) { w.Fixed(ns / 1e3, 3); }

template <typename Row>
void WriteTable(JsonWriter& w, const std::vector<PageColumn<Row>>& columns, const std::vector<Row>& rows,
                const Row* sums, const char* default_sort, bool descending, const char* indent_key) {
  w.BeginObject();
  w.Key("columns");
  w.BeginArray();
  for (const PageColumn<Row>& c : columns) {
    w.BeginObject();
    w.Key("key"); w.String(c.key);
    w.Key("label"); w.String(c.label);
    w.Key("type"); w.String(c.type);
    w.EndObject();
  }
  w.EndArray();
  w.Key("rows");
  w.BeginArray();
  for (const Row& row : rows) {
    w.Newline();
    w.BeginArray();
    for (const PageColumn<Row>& c : columns) c.write(w, row, false);
    w.EndArray();
  }
  w.EndArray();
  w.Key("sums");
  w.OrNull(sums != nullptr, [&] {
    w.BeginArray();
    for (const PageColumn<Row>& c : columns) c.write(w, *sums, true);
    w.EndArray();
  });
  w.Key("default_sort");
  w.OrNull(default_sort != nullptr, [&] {
    w.BeginObject();
    w.Key("key"); w.String(default_sort);
    w.Key("desc"); w.Bool(descending);
    w.EndObject();
  });
  w.Key("indent_key"); w.OrNull(indent_key != nullptr, [&] { w.String(indent_key); });
  w.EndObject();
}

// The view of the report the page's table shows for `group_by` (node, kind,
// module or shape: the module view in module order, the others by mean).
absl::StatusOr<View> PageView(const Report& report, GroupBy group_by);

// The table of one view of the report (PageView), every column the page
// shows for it.
void WriteView(JsonWriter& w, const Report& report, const View& view);

}  // namespace graphprof::html_internal

#endif  // GRAPHPROF_PROFILERS_REPORT_HTML_TABLE_H_
