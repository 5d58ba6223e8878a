// The diff's renderings: text, CSV and JSON (report_diff.h). The HTML page
// writes its own data (html_report.cc).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "common/terminal_text.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/format.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/text_table.h"

namespace graphprof {
namespace {

// The statistics fields of one row, `prefix`ed ("" or a column's "backward_").
void WriteStats(JsonWriter& w, const RowComparison& s, const std::string& prefix) {
  w.Key(prefix + "verdict"); w.String(VerdictName(s.verdict));
  w.Key(prefix + "change"); w.Approx(s.change);
  w.Key(prefix + "change_low"); w.Approx(s.change_low);
  w.Key(prefix + "change_high"); w.Approx(s.change_high);
  w.Key(prefix + "p"); w.Approx(s.p);
  w.Key(prefix + "q"); w.Approx(s.q);
  w.Key(prefix + "base_median_us"); w.Approx(s.base_median / 1e3);
  w.Key(prefix + "current_median_us"); w.Approx(s.current_median / 1e3);
  w.OptionalString(prefix + "reason", s.reason);
  if (s.allowance > 0) {
    w.Key(prefix + "process_allowance"); w.Approx(s.allowance);
  }
}

void WriteTotal(JsonWriter& w, const RowComparison& s) {
  w.BeginObject();
  WriteStats(w, s, "");
  w.Key("base_mean_us"); w.Approx(s.base_mean / 1e3);
  w.Key("current_mean_us"); w.Approx(s.current_mean / 1e3);
  w.EndObject();
}

void WriteCounts(JsonWriter& w, const VerdictCounts& counts) {
  w.BeginObject();
  for (int v = 0; v < kNumVerdicts; ++v) {
    w.Key(VerdictName(static_cast<Verdict>(v)));
    w.Int(counts.counts[v]);
  }
  w.EndObject();
}

// A row's times and their comparison, then its columns (ReportDiff::columns):
// base, current and delta under the column's keys, and a compared column's
// statistics prefixed with its name.
void WriteRow(JsonWriter& w, const ReportDiff& diff, const DiffRow& row) {
  w.Key("base_us"); w.Approx(row.base_ns / 1e3);
  w.Key("current_us"); w.Approx(row.current_ns / 1e3);
  w.Key("delta_us"); w.Approx(row.delta_ns() / 1e3);
  w.Key("speedup"); w.Approx(row.speedup());
  WriteStats(w, row.stats, "");
  for (size_t k = 0; k < diff.columns.size() && k < row.values.size(); ++k) {
    const DiffColumn& c = diff.columns[k];
    w.Key(c.Key("base")); w.Approx(c.Written(row.values[k].base));
    w.Key(c.Key("current")); w.Approx(c.Written(row.values[k].current));
    w.Key(c.Key("delta")); w.Approx(c.Written(row.values[k].delta()));
    if (c.compared() && k < row.column_stats.size()) WriteStats(w, row.column_stats[k], c.name + "_");
  }
}

void WriteGroups(JsonWriter& w, const ReportDiff& diff, const char* key, const char* name_key,
                 const std::vector<GroupDelta>& groups) {
  w.Key(key);
  w.BeginArray();
  for (const GroupDelta& g : groups) {
    w.Newline();
    w.BeginObject();
    w.Key(name_key); w.String(g.name);
    w.Key("base_nodes"); w.Int(g.base_nodes);
    w.Key("current_nodes"); w.Int(g.current_nodes);
    WriteRow(w, diff, g);
    w.EndObject();
  }
  w.EndArray();
}

// CSV numbers: empty for NaN, "inf" for an added row's change.
std::string CsvNumber(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.6g", v);
}

std::string CsvStats(const RowComparison& s) {
  return absl::StrCat(VerdictName(s.verdict), ",", CsvNumber(s.change), ",", CsvNumber(s.change_low), ",",
                      CsvNumber(s.change_high), ",", CsvNumber(s.p), ",", CsvNumber(s.q), ",",
                      absl::StrFormat("%.3f,%.3f", s.base_median / 1e3, s.current_median / 1e3));
}

std::string ChangeLine(const std::string& label, double base_ns, double current_ns, const RowComparison& s) {
  return absl::StrCat("  ", label, FormatMicros(base_ns), " us -> ", FormatMicros(current_ns), " us  (",
                      FormatSignedMicros(current_ns - base_ns), " us, speedup ",
                      FormatSpeedup(Speedup(base_ns, current_ns)), "); median ", FormatChange(s),
                      s.reason.empty() ? "" : absl::StrCat(" (", s.reason, ")"), "\n");
}

}  // namespace

std::string FormatSpeedLine(const ReportDiff& diff) {
  if (!diff.speed_removed()) return "";
  return absl::StrCat("  speed      ", FormatChange(diff.speed), ": the machine's speed, from ", diff.reference_nodes,
                      " nodes both sides timed; the run time above and every row are compared at equal speed\n");
}

namespace {

// A column's value for text: microseconds, GFLOP, bytes or a count.
std::string FormatColumnValue(const DiffColumn& c, double value) {
  switch (c.unit) {
    case Unit::kNanoseconds: return absl::StrCat(FormatMicros(value), " us");
    case Unit::kFlops: return absl::StrFormat("%.4g GFLOP", value / 1e9);
    case Unit::kBytes: return FormatBytes(static_cast<int64_t>(value));
    case Unit::kCount: break;
  }
  return absl::StrFormat("%.4g", value);
}

// A column's whole-run line: "  flops      4.1 GFLOP -> 4.0 GFLOP per run (-2.4%)"
// or, for a compared metric, the same line as the run time's.
std::string ColumnTotalLine(const DiffColumn& c) {
  const std::string label = absl::StrFormat("%-10s ", c.name);
  if (c.has_total_stats) return ChangeLine(label, c.total.base, c.total.current, c.total_stats);
  return absl::StrCat("  ", label, FormatColumnValue(c, c.total.base), " -> ", FormatColumnValue(c, c.total.current),
                      " per run",
                      c.total.base > 0 ? absl::StrFormat(" (%+.1f%%)", 100 * (c.total.current / c.total.base - 1)) : "",
                      "\n");
}

// Text table columns: a compared column is three (base, current and its
// change); another column is one ("base -> current", or the value where
// both are equal), and only where some row of the table differs.
bool ShownInTable(const ReportDiff& diff, size_t k, const std::vector<const std::vector<Sides>*>& rows) {
  if (diff.columns[k].compared()) return true;
  for (const std::vector<Sides>* values : rows) {
    if (k < values->size() && (*values)[k].base != (*values)[k].current) return true;
  }
  return false;
}

// The headers of a row's times and of its shown columns.
void AddColumnHeaders(const ReportDiff& diff, const std::vector<bool>& shown, std::vector<TextTable::Column>& columns) {
  for (const char* header : {"base_us", "current_us", "delta_us", "speedup"}) columns.push_back({header, TextTable::kRight});
  columns.push_back({"change (median) [95% interval] verdict", TextTable::kLeft});
  for (size_t k = 0; k < diff.columns.size(); ++k) {
    if (!shown[k]) continue;
    const DiffColumn& c = diff.columns[k];
    if (c.compared()) {
      columns.push_back({c.Key("base"), TextTable::kRight});
      columns.push_back({c.Key("current"), TextTable::kRight});
      columns.push_back({absl::StrCat(c.name, " change"), TextTable::kLeft});
    } else {
      columns.push_back({c.name, TextTable::kRight});
    }
  }
}

// A row's times, their change, and its shown columns' values.
void AddColumnCells(const ReportDiff& diff, const std::vector<bool>& shown, const DiffRow& r,
                    std::vector<std::string>& row) {
  row.insert(row.end(), {FormatMicros(r.base_ns), FormatMicros(r.current_ns), FormatSignedMicros(r.delta_ns()),
                         FormatSpeedup(r.speedup()), FormatChange(r.stats)});
  for (size_t k = 0; k < diff.columns.size(); ++k) {
    if (!shown[k]) continue;
    const DiffColumn& c = diff.columns[k];
    const Sides v = k < r.values.size() ? r.values[k] : Sides{};
    if (c.compared()) {
      row.push_back(FormatMicros(v.base));
      row.push_back(FormatMicros(v.current));
      row.push_back(k < r.column_stats.size() ? FormatChange(r.column_stats[k]) : "");
    } else if (v.base == v.current) {
      row.push_back(FormatColumnValue(c, v.current));
    } else {
      row.push_back(absl::StrCat(FormatColumnValue(c, v.base), " -> ", FormatColumnValue(c, v.current)));
    }
  }
}

}  // namespace

std::string FormatVerdictCounts(const VerdictCounts& counts) {
  return absl::StrCat(counts.of(Verdict::kSlower), " slower, ", counts.of(Verdict::kFaster), " faster, ",
                      counts.of(Verdict::kSame), " same, ", counts.of(Verdict::kInconclusive), " inconclusive");
}

std::string RenderDiff(const ReportDiff& diff, int top) {
  std::string out = absl::StrCat("graphprof diff: ", EscapeForTerminal(diff.base_model), " (base) -> ",
                                 EscapeForTerminal(diff.current_model), " (current)\n");
  out += ChangeLine("run time   ", diff.base_total_ns, diff.current_total_ns, diff.total);
  out += FormatSpeedLine(diff);
  for (const DiffColumn& c : diff.columns) {
    if (!c.quantity) out += ColumnTotalLine(c);
  }
  absl::StrAppend(&out, "  nodes      ", diff.same, " same, ", diff.kind_and_module, " kind+module, ", diff.replaced,
                  " replaced, ", diff.merged, " merged, ", diff.added, " added, ", diff.removed, " removed",
                  diff.unexecuted > 0 ? absl::StrCat("; ", diff.unexecuted, " never executed, not shown", NamedAfter(diff.names.diff_all))
                                      : "",
                  "\n");
  absl::StrAppendFormat(&out, "  matched    %.1f%% of the base's executed time\n", 100 * diff.matched_time_fraction);
  bool work = false;
  for (const DiffColumn& c : diff.columns) {
    if (!c.quantity || (c.total.base == 0 && c.total.current == 0)) continue;
    out += ColumnTotalLine(c);
    work = true;
  }
  if (work && (diff.base_uncounted_percent > 0 || diff.current_uncounted_percent > 0)) {
    absl::StrAppendFormat(&out, "  uncounted  work of some kinds is not counted: %.1f%% -> %.1f%% of the run time\n",
                          diff.base_uncounted_percent, diff.current_uncounted_percent);
  }
  absl::StrAppend(&out, "  verdicts   nodes: ", FormatVerdictCounts(diff.node_verdicts),
                  "; modules: ", FormatVerdictCounts(diff.module_verdicts),
                  "; kinds: ", FormatVerdictCounts(diff.kind_verdicts), "\n");
  absl::StrAppendFormat(
      &out, "  noise      %s (base %d, current %d process%s); |change| <= %.3g%% is the same; q < %.3g\n",
      diff.noise_model == NoiseModel::kPairedProcesses ? "processes are the unit, paired: t on per-process differences"
      : diff.noise_model == NoiseModel::kProcesses     ? "processes (or an A/B's copies) are the unit: Welch's t on their medians"
      : diff.noise_model == NoiseModel::kRunsBetweenProcesses
          ? "runs at equal speed: the run total alone is tested, Hodges-Lehmann widened by the process allowance"
          : "runs are the unit: Mann-Whitney U, Hodges-Lehmann interval",
      diff.base_processes, diff.current_processes, diff.current_processes == 1 ? "" : "es",
      100 * diff.verdict_options.min_effect, diff.verdict_options.alpha);
  if (!diff.noise_note.empty()) absl::StrAppend(&out, "  note       ", diff.noise_note, "\n");
  auto cut = [top](size_t n) { return top > 0 ? std::min<size_t>(n, top) : n; };
  auto note = [&](size_t shown, size_t all, const char* what) {
    if (shown < all) absl::StrAppend(&out, "(top ", shown, " of ", all, " ", what, " by impact)\n");
  };

  using C = TextTable::Column;
  // One table: its first columns (`cells` of a row), then each row's times
  // and the columns some of its first `top` rows show.
  auto table = [&](const auto& rows, std::vector<C> columns, auto cells, const char* what) {
    const size_t n = cut(rows.size());
    std::vector<const std::vector<Sides>*> values;
    for (size_t i = 0; i < n; ++i) values.push_back(&rows[i].values);
    std::vector<bool> shown(diff.columns.size());
    for (size_t k = 0; k < shown.size(); ++k) shown[k] = ShownInTable(diff, k, values);
    AddColumnHeaders(diff, shown, columns);
    TextTable t(std::move(columns));
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> row = cells(rows[i]);
      AddColumnCells(diff, shown, rows[i], row);
      t.AddRow(std::move(row));
    }
    out += "\n" + t.Render();
    note(n, rows.size(), what);
  };
  auto group = [](const GroupDelta& g) {
    return std::vector<std::string>{g.name, absl::StrCat(g.base_nodes), absl::StrCat(g.current_nodes)};
  };
  for (const auto& [header, groups] : {std::pair{"module", &diff.modules}, std::pair{"kind", &diff.kinds}}) {
    table(*groups, {C{header, TextTable::kLeft, 60}, C{"nodes", TextTable::kRight}, C{"->", TextTable::kRight}}, group,
          header);
  }
  auto id = [](int id) { return id >= 0 ? absl::StrCat(id) : "-"; };
  table(diff.nodes,
        {C{"node", TextTable::kLeft, 60}, C{"match", TextTable::kLeft}, C{"base", TextTable::kRight},
         C{"cur", TextTable::kRight}},
        [&](const NodeDelta& d) {
          return std::vector<std::string>{d.name, MatchName(d.match), id(d.base_id), id(d.current_id)};
        },
        "nodes");
  return out;
}

std::string DiffToCsv(const ReportDiff& diff) {
  const char* stats[] = {"verdict", "change", "change_low", "change_high", "p", "q", "base_median_us",
                         "current_median_us"};
  std::string out = absl::StrCat("name,kind,module,match,base_id,current_id,base_us,current_us,delta_us,speedup,",
                                 absl::StrJoin(stats, ","));
  for (const DiffColumn& c : diff.columns) {
    absl::StrAppend(&out, ",", c.Key("base"), ",", c.Key("current"), ",", c.Key("delta"));
    for (const char* field : c.compared() ? absl::MakeConstSpan(stats) : absl::Span<const char* const>()) {
      absl::StrAppend(&out, ",", c.name, "_", field);
    }
  }
  out += "\n";
  for (const NodeDelta& d : diff.nodes) {
    absl::StrAppend(&out, CsvField(d.name), ",", CsvField(d.kind), ",", CsvField(d.module), ",",
                    MatchName(d.match), ",", d.base_id >= 0 ? absl::StrCat(d.base_id) : "", ",",
                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "", ",",
                    absl::StrFormat("%.3f,%.3f,%.3f,%.4f", d.base_ns / 1e3, d.current_ns / 1e3, d.delta_ns() / 1e3,
                                    d.speedup()),
                    ",", CsvStats(d.stats));
    for (size_t k = 0; k < diff.columns.size(); ++k) {
      const DiffColumn& c = diff.columns[k];
      const Sides v = k < d.values.size() ? d.values[k] : Sides{};
      absl::StrAppend(&out, ",", CsvNumber(c.Written(v.base)), ",", CsvNumber(c.Written(v.current)), ",",
                      CsvNumber(c.Written(v.delta())));
      if (c.compared()) absl::StrAppend(&out, ",", CsvStats(k < d.column_stats.size() ? d.column_stats[k] : RowComparison{}));
    }
    out += "\n";
  }
  return out;
}

void WriteDiffJson(const ReportDiff& diff, JsonWriter& w) {
  w.BeginObject();
  w.Key("base_model"); w.String(diff.base_model);
  w.Key("current_model"); w.String(diff.current_model);
  w.Key("base_total_us"); w.Approx(diff.base_total_ns / 1e3);
  w.Key("current_total_us"); w.Approx(diff.current_total_ns / 1e3);
  w.Key("speedup"); w.Approx(diff.speedup());
  w.Key("matched_time_fraction"); w.Approx(diff.matched_time_fraction);
  w.Key("total"); WriteTotal(w, diff.total);
  if (diff.speed_removed()) {
    w.Key("speed"); WriteTotal(w, diff.speed);
    w.Key("reference_nodes"); w.Int(diff.reference_nodes);
  }
  w.Key("base_uncounted_percent"); w.Approx(diff.base_uncounted_percent);
  w.Key("current_uncounted_percent"); w.Approx(diff.current_uncounted_percent);
  // Each column's whole-run values (base_flops, base_backward_us, ...), its
  // total's comparison as <name>_total, and the columns' descriptions.
  for (const DiffColumn& c : diff.columns) {
    w.Key(c.Key("base")); w.Approx(c.Written(c.total.base));
    w.Key(c.Key("current")); w.Approx(c.Written(c.total.current));
    if (c.has_total_stats) {
      w.Key(c.name + "_total");
      WriteTotal(w, c.total_stats);
    }
  }
  w.Key("columns");
  w.BeginArray();
  for (const DiffColumn& c : diff.columns) {
    w.BeginObject();
    w.Key("name"); w.String(c.name);
    w.Key("description"); w.String(c.description);
    w.Key("source"); w.String(c.quantity ? "quantity" : "metric");
    w.Key("unit"); w.String(c.ns() ? "us" : UnitName(c.unit));
    w.Key("compared"); w.Bool(c.compared());
    w.EndObject();
  }
  w.EndArray();
  w.Key("min_effect"); w.Approx(diff.verdict_options.min_effect);
  w.Key("alpha"); w.Approx(diff.verdict_options.alpha);
  w.Key("noise_model"); w.String(NoiseModelName(diff.noise_model));
  w.Key("base_processes"); w.Int(diff.base_processes);
  w.Key("current_processes"); w.Int(diff.current_processes);
  w.OptionalString("noise_note", diff.noise_note);
  w.Key("verdict_counts");
  w.BeginObject();
  w.Key("nodes"); WriteCounts(w, diff.node_verdicts);
  w.Key("modules"); WriteCounts(w, diff.module_verdicts);
  w.Key("kinds"); WriteCounts(w, diff.kind_verdicts);
  w.EndObject();
  const std::pair<const char*, int> counts[] = {{"same", diff.same},         {"kind_and_module", diff.kind_and_module},
                                                {"replaced", diff.replaced}, {"merged", diff.merged},
                                                {"added", diff.added},       {"removed", diff.removed},
                                                {"unexecuted", diff.unexecuted}};
  for (const auto& [key, value] : counts) {
    w.Key(key);
    w.Int(value);
  }
  WriteGroups(w, diff, "modules", "module", diff.modules);
  WriteGroups(w, diff, "kinds", "kind", diff.kinds);
  w.Key("nodes");
  w.BeginArray();
  for (const NodeDelta& d : diff.nodes) {
    w.Newline();
    w.BeginObject();
    w.Key("name"); w.String(d.name);
    w.Key("kind"); w.String(d.kind);
    w.Key("module"); w.String(d.module);
    w.Key("match"); w.String(MatchName(d.match));
    w.Key("base_id"); w.Int(d.base_id);
    w.Key("current_id"); w.Int(d.current_id);
    WriteRow(w, diff, d);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

std::string DiffToJson(const ReportDiff& diff) {
  std::string out;
  JsonWriter w(&out);
  WriteDiffJson(diff, w);
  out += "\n";
  return out;
}

}  // namespace graphprof
