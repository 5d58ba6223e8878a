// Reports as Python data (ext_reports.h).
#include "python/ext_reports.h"

#include <pybind11/stl.h>

#include <iterator>
#include <limits>

#include "absl/strings/str_cat.h"
#include "profilers/report/text_report.h"
#include "profilers/report/table_columns.h"
#include "python/ext_errors.h"

namespace graphprof::python {
namespace {

// A comparison's statistics as Python sees them, one table for both shapes:
// a dict per row (StatsDict) and a column per field in diff tables
// (StatsColumns, the same names as the CSV and JSON; only `in_columns`).
struct StatsField {
  const char* name;
  py::object (*value)(const RowComparison&);
  bool in_columns;
};
const StatsField kStatsFields[] = {
    {"verdict", [](const RowComparison& s) -> py::object { return py::str(VerdictName(s.verdict)); }, true},
    {"change", [](const RowComparison& s) -> py::object { return py::float_(s.change); }, true},
    {"change_low", [](const RowComparison& s) -> py::object { return py::float_(s.change_low); }, true},
    {"change_high", [](const RowComparison& s) -> py::object { return py::float_(s.change_high); }, true},
    {"p", [](const RowComparison& s) -> py::object { return py::float_(s.p); }, true},
    {"q", [](const RowComparison& s) -> py::object { return py::float_(s.q); }, true},
    {"base_median_us", [](const RowComparison& s) -> py::object { return py::float_(s.base_median / 1e3); }, true},
    {"current_median_us", [](const RowComparison& s) -> py::object { return py::float_(s.current_median / 1e3); }, true},
    {"base_mean_us", [](const RowComparison& s) -> py::object { return py::float_(s.base_mean / 1e3); }, false},
    {"current_mean_us", [](const RowComparison& s) -> py::object { return py::float_(s.current_mean / 1e3); }, false},
    {"reason", [](const RowComparison& s) -> py::object { return py::str(s.reason); }, false},
};

// The verdict columns of a diff table.
struct StatsColumns {
  py::list columns[std::size(kStatsFields)];
  void Append(const RowComparison& s) {
    for (size_t f = 0; f < std::size(kStatsFields); ++f) {
      if (kStatsFields[f].in_columns) columns[f].append(kStatsFields[f].value(s));
    }
  }
  void Into(py::dict& out, const std::string& prefix = "") const {
    for (size_t f = 0; f < std::size(kStatsFields); ++f) {
      if (kStatsFields[f].in_columns) out[py::str(prefix + kStatsFields[f].name)] = columns[f];
    }
  }
};

// The diff's columns (ReportDiff::columns) of node or group rows, under the
// CSV's and JSON's keys: base, current, delta, and a compared column's
// statistics prefixed with its name.
template <typename Row>
void DiffColumnsInto(const ReportDiff& diff, const std::vector<Row>& rows, py::dict& out) {
  for (size_t k = 0; k < diff.columns.size(); ++k) {
    const DiffColumn& c = diff.columns[k];
    py::list base, current, delta;
    StatsColumns stats;
    for (const Row& row : rows) {
      const Sides v = k < row.values.size() ? row.values[k] : Sides{};
      base.append(c.Written(v.base));
      current.append(c.Written(v.current));
      delta.append(c.Written(v.delta()));
      if (c.compared()) stats.Append(k < row.column_stats.size() ? row.column_stats[k] : RowComparison{});
    }
    out[py::str(c.Key("base"))] = base;
    out[py::str(c.Key("current"))] = current;
    out[py::str(c.Key("delta"))] = delta;
    if (c.compared()) stats.Into(out, c.name + "_");
  }
}

}  // namespace

OptionNames PythonOptionNames() {
  OptionNames names;
  names.backward = "backward=True";
  names.method = "method=";
  names.allow_graph_change = "allow_graph_change=True";
  names.allow_input_change = "allow_input_change=True";
  names.diff_all = "diff_all=True";
  return names;
}

double Nan() { return std::numeric_limits<double>::quiet_NaN(); }

py::dict ViewColumns(const Report& report, const View& view) {
  const std::vector<TableColumn> table = TableColumns(report, view.group_by, Rendering::kCsv);
  std::vector<py::list> columns(table.size());
  for (const ViewRow& row : view.rows) {
    for (size_t c = 0; c < table.size(); ++c) {
      const TableCell cell = table[c].cell(row);
      if (cell.empty) {
        // Text columns (the slowest report, the bound) get None, number columns NaN.
        columns[c].append(table[c].type == ColumnType::kText ? py::object(py::none()) : py::float_(Nan()));
        continue;
      }
      switch (table[c].type) {
        case ColumnType::kInt:
        case ColumnType::kBytes: columns[c].append(py::int_(cell.integer)); break;
        case ColumnType::kMicros: columns[c].append(py::float_(cell.number / 1e3)); break;
        case ColumnType::kCount:
        case ColumnType::kPercent:
        case ColumnType::kNumber:
        case ColumnType::kFraction: columns[c].append(py::float_(cell.number)); break;
        case ColumnType::kText: columns[c].append(py::str(cell.text)); break;
      }
    }
  }
  py::dict out;
  for (size_t c = 0; c < table.size(); ++c) out[py::str(table[c].key)] = columns[c];
  return out;
}

View MakeViewOrThrow(const Report& report, const std::string& group_by, const std::string& sort, int top,
                     const std::vector<std::string>& modules) {
  if (top < 0) Throw(absl::InvalidArgumentError("top must be 0 (all rows) or more"));
  ViewOptions options;
  options.group_by = Take(ParseGroupBy(group_by));
  options.sort = sort;
  options.top = top;
  options.modules = modules;
  return Take(MakeView(report, options));
}

// A node's memory object (as the JSON's "memory"), or None when its memory
// was not measured.
py::object MemoryDict(const Report& report, const NodeRecord& node) {
  if (!report.measures_memory()) return py::none();
  py::dict d;
  ForEachMemoryValue(report, node, [&d](const std::string& key, int64_t value) { d[py::str(key)] = value; });
  return d;
}

py::dict IdentityDict(const NodeIdentity& id) {
  py::dict d;
  d["id"] = id.id;
  d["parent"] = id.parent;
  d["depth"] = id.depth;
  d["name"] = id.label;
  d["kind"] = id.kind;
  d["schema"] = id.schema;
  d["module"] = id.module;
  d["source"] = id.source;
  d["archive_source"] = id.archive_source;
  d["fused_modules"] = id.fused_modules;
  return d;
}

py::list NodeRecords(const Report& report) {
  py::list out;
  for (const NodeRecord& node : report.nodes) {
    py::dict d = IdentityDict(node.identity);
    d["input_shapes"] = node.input_shapes;
    d["output_shapes"] = node.output_shapes;
    d["calls"] = node.calls;
    d["total_ns"] = node.time().total;
    d["self_ns"] = node.time().self;
    py::dict metrics;
    for (size_t m = 1; m < report.columns.size() && m < node.metrics.size(); ++m) {  // time: above
      if (!report.columns[m].per_run()) continue;
      py::dict series;
      series["total"] = node.metrics[m].total;
      series["self"] = node.metrics[m].self;
      metrics[py::str(report.columns[m].name)] = series;
    }
    d["metrics"] = metrics;
    d["memory"] = MemoryDict(report, node);
    d["top_kernels"] = node.top_kernels;
    d["executed"] = node.executed();
    // The work (flops, bytes, ...), by the report's quantities.
    for (size_t q = 0; q < report.columns.size(); ++q) {
      if (report.columns[q].per_run() || report.columns[q].memory) continue;  // memory: in "memory"
      d[py::str(report.columns[q].name)] = report.QuantityOf(node, static_cast<int>(q));
    }
    d["work_counted"] = node.work_counted;
    out.append(d);
  }
  return out;
}

py::object ComparisonDict(const std::optional<Verification>& verification) {
  if (!verification.has_value()) return py::none();
  const Verification& v = *verification;
  py::dict d;
  d["identical"] = v.identical;
  d["within_tolerance"] = v.within_tolerance;
  d["passed"] = v.passed();
  d["max_abs_error"] = v.max_abs_error;
  d["max_rel_error"] = v.max_rel_error;
  d["rtol"] = v.rtol;
  d["atol"] = v.atol;
  d["criterion"] = v.criterion == Verification::Criterion::kFloat64Scale ? "float64_scale" : "elementwise";
  d["detail"] = v.detail;
  d["reference"] = v.reference;
  return d;
}

py::object VerificationDict(const Report& report) { return ComparisonDict(report.verification); }
py::object GradientVerificationDict(const Report& report) { return ComparisonDict(report.gradient_verification); }

py::object MemorySummaryDict(const Report& report) {
  if (!report.memory.has_value()) return py::none();
  const MemorySummary& m = *report.memory;
  py::dict d;
  d["peak_bytes"] = m.peak_bytes;
  d["peak_node"] = m.peak_node;
  d["allocated_bytes"] = m.allocated_bytes;
  d["freed_bytes"] = m.freed_bytes;
  d["allocations"] = m.allocations;
  if (m.backward) {  // the JSON summary's backward keys
    d["backward_peak_bytes"] = m.backward_peak_bytes;
    d["backward_peak_node"] = m.backward_peak_node;
    d["saved_bytes"] = m.saved_bytes;
  }
  py::list timeline;
  for (const MemoryPoint& p : m.timeline) timeline.append(py::make_tuple(p.node, p.live_bytes));
  d["timeline"] = timeline;
  return d;
}

std::string RenderText(const Report& report, const std::string& group_by, int top, const std::string& sort,
                       bool memory, bool summary) {
  View main = MakeViewOrThrow(report, group_by, sort, top, {});
  std::string out = summary ? RenderSummary(report) + "\n" : "";
  const std::string title = main.group_by == GroupBy::kNode ? "top nodes" : absl::StrCat("by ", group_by);
  absl::StrAppend(&out, RenderTable(report, main, TableOptions{memory, title}));
  if (summary && main.group_by == GroupBy::kNode) {
    View kinds = MakeViewOrThrow(report, "kind", "", top, {});
    absl::StrAppend(&out, "\n", RenderTable(report, kinds, TableOptions{memory, "by kind (self time)"}));
  }
  return out;
}


py::dict StatsDict(const RowComparison& s) {
  py::dict out;
  for (const StatsField& field : kStatsFields) out[field.name] = field.value(s);
  return out;
}

py::dict CountsDict(const VerdictCounts& counts) {
  py::dict out;
  for (int v = 0; v < kNumVerdicts; ++v) out[VerdictName(static_cast<Verdict>(v))] = counts.counts[v];
  return out;
}

py::dict DiffNodeColumns(const ReportDiff& diff) {
  py::list name, kind, module, match, base_id, current_id, base_us, current_us, delta_us, speedup;
  StatsColumns stats;
  for (const NodeDelta& d : diff.nodes) {
    stats.Append(d.stats);
    name.append(d.name);
    kind.append(d.kind);
    module.append(d.module);
    match.append(MatchName(d.match));
    base_id.append(d.base_id >= 0 ? py::object(py::float_(static_cast<double>(d.base_id))) : py::float_(Nan()));
    current_id.append(d.current_id >= 0 ? py::object(py::float_(static_cast<double>(d.current_id))) : py::float_(Nan()));
    base_us.append(d.base_ns / 1e3);
    current_us.append(d.current_ns / 1e3);
    delta_us.append(d.delta_ns() / 1e3);
    speedup.append(d.speedup());
  }
  py::dict out;
  out["name"] = name;
  out["kind"] = kind;
  out["module"] = module;
  out["match"] = match;
  out["base_id"] = base_id;
  out["current_id"] = current_id;
  out["base_us"] = base_us;
  out["current_us"] = current_us;
  out["delta_us"] = delta_us;
  out["speedup"] = speedup;
  stats.Into(out);
  DiffColumnsInto(diff, diff.nodes, out);
  return out;
}

py::dict DiffGroupColumns(const ReportDiff& diff, const std::vector<GroupDelta>& groups, const char* key) {
  py::list name, depth, base_nodes, current_nodes, base_us, current_us, delta_us, speedup;
  StatsColumns stats;
  for (const GroupDelta& g : groups) {
    stats.Append(g.stats);
    name.append(g.name);
    depth.append(g.depth);
    base_nodes.append(g.base_nodes);
    current_nodes.append(g.current_nodes);
    base_us.append(g.base_ns / 1e3);
    current_us.append(g.current_ns / 1e3);
    delta_us.append(g.delta_ns() / 1e3);
    speedup.append(g.speedup());
  }
  py::dict out;
  out[key] = name;
  if (std::string(key) == "module") out["depth"] = depth;
  out["base_nodes"] = base_nodes;
  out["current_nodes"] = current_nodes;
  out["base_us"] = base_us;
  out["current_us"] = current_us;
  out["delta_us"] = delta_us;
  out["speedup"] = speedup;
  stats.Into(out);
  DiffColumnsInto(diff, groups, out);
  return out;
}

}  // namespace graphprof::python
