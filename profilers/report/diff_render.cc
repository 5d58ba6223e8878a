// The diff's renderings: text, CSV and JSON (report_diff.h). The HTML page
// writes its own data (html_report.cc).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/terminal_text.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/format.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/text_table.h"

namespace graphprof {
namespace {

double Ratio(double base, double current) { return base > 0 && current > 0 ? base / current : 0; }

// The statistics fields of one row, `prefix`ed ("" or "backward_").
void WriteStats(JsonWriter& w, const RowComparison& s, const std::string& prefix) {
  w.Key(prefix + "verdict"); w.String(VerdictName(s.verdict));
  w.Key(prefix + "change"); w.Approx(s.change);
  w.Key(prefix + "change_low"); w.Approx(s.change_low);
  w.Key(prefix + "change_high"); w.Approx(s.change_high);
  w.Key(prefix + "p"); w.Approx(s.p);
  w.Key(prefix + "q"); w.Approx(s.q);
  w.Key(prefix + "base_median_us"); w.Approx(s.base_median / 1e3);
  w.Key(prefix + "current_median_us"); w.Approx(s.current_median / 1e3);
  if (!s.reason.empty()) {
    w.Key(prefix + "reason");
    w.String(s.reason);
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

void WriteGroups(JsonWriter& w, const char* key, const char* name_key, const std::vector<GroupDelta>& groups,
                 bool backward) {
  w.Key(key);
  w.BeginArray();
  for (const GroupDelta& g : groups) {
    w.Newline();
    w.BeginObject();
    w.Key(name_key); w.String(g.name);
    w.Key("base_nodes"); w.Int(g.base_nodes);
    w.Key("current_nodes"); w.Int(g.current_nodes);
    w.Key("base_us"); w.Approx(g.base_ns / 1e3);
    w.Key("current_us"); w.Approx(g.current_ns / 1e3);
    w.Key("delta_us"); w.Approx(g.delta_ns() / 1e3);
    w.Key("speedup"); w.Approx(g.speedup());
    w.Key("base_flops"); w.Approx(g.base_flops);
    w.Key("current_flops"); w.Approx(g.current_flops);
    WriteStats(w, g.stats, "");
    if (backward) {
      w.Key("base_backward_us"); w.Approx(g.base_backward_ns / 1e3);
      w.Key("current_backward_us"); w.Approx(g.current_backward_ns / 1e3);
      WriteStats(w, g.backward_stats, "backward_");
    }
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

std::string ChangeLine(const char* label, double base_ns, double current_ns, const RowComparison& s) {
  return absl::StrCat("  ", label, FormatMicros(base_ns), " us -> ", FormatMicros(current_ns), " us  (",
                      FormatSignedMicros(current_ns - base_ns), " us, speedup ",
                      FormatSpeedup(Ratio(base_ns, current_ns)), "); median ", FormatChange(s),
                      s.reason.empty() ? "" : absl::StrCat(" (", s.reason, ")"), "\n");
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
  if (diff.backward) {
    out += ChangeLine("backward   ", diff.base_backward_total_ns, diff.current_backward_total_ns, diff.backward_total);
  }
  absl::StrAppend(&out, "  nodes      ", diff.same, " same, ", diff.kind_and_module, " kind+module, ", diff.replaced,
                  " replaced, ", diff.merged, " merged, ", diff.added, " added, ", diff.removed, " removed",
                  diff.unexecuted > 0 ? absl::StrCat("; ", diff.unexecuted, " never executed, not shown (--diff_all)")
                                      : "",
                  "\n");
  absl::StrAppendFormat(&out, "  matched    %.1f%% of the base's executed time\n", 100 * diff.matched_time_fraction);
  if (diff.base_flops > 0 || diff.current_flops > 0) {
    absl::StrAppendFormat(&out, "  work       %.4g GFLOP -> %.4g GFLOP per run (%+.1f%%)", diff.base_flops / 1e9,
                          diff.current_flops / 1e9,
                          diff.base_flops > 0 ? 100 * (diff.current_flops / diff.base_flops - 1) : 0.0);
    if (diff.base_uncounted_percent > 0 || diff.current_uncounted_percent > 0) {
      absl::StrAppendFormat(&out, "; not counted: %.1f%% -> %.1f%% of the run time", diff.base_uncounted_percent,
                            diff.current_uncounted_percent);
    }
    out += "\n";
  }
  absl::StrAppend(&out, "  verdicts   nodes: ", FormatVerdictCounts(diff.node_verdicts),
                  "; modules: ", FormatVerdictCounts(diff.module_verdicts),
                  "; kinds: ", FormatVerdictCounts(diff.kind_verdicts), "\n");
  absl::StrAppendFormat(
      &out, "  noise      %s (base %d, current %d process%s); |change| <= %.3g%% is the same; q < %.3g\n",
      diff.noise_model == NoiseModel::kPairedProcesses ? "processes are the unit, paired: t on per-process differences"
      : diff.noise_model == NoiseModel::kProcesses     ? "processes (or --ab's copies) are the unit: Welch's t on their medians"
                                                       : "runs are the unit: Mann-Whitney U, Hodges-Lehmann interval",
      diff.base_processes, diff.current_processes, diff.current_processes == 1 ? "" : "es",
      100 * diff.verdict_options.min_effect, diff.verdict_options.alpha);
  if (!diff.noise_note.empty()) absl::StrAppend(&out, "  note       ", diff.noise_note, "\n");
  auto cut = [top](size_t n) { return top > 0 ? std::min<size_t>(n, top) : n; };
  auto note = [&](size_t shown, size_t all, const char* what) {
    if (shown < all) absl::StrAppend(&out, "(top ", shown, " of ", all, " ", what, " by impact)\n");
  };

  using C = TextTable::Column;
  auto group_table = [&](const std::vector<GroupDelta>& groups, const char* header, bool indent) {
    std::vector<C> columns = {C{header, TextTable::kLeft, 60}, C{"nodes", TextTable::kRight},
                              C{"->", TextTable::kRight},   C{"base_us", TextTable::kRight},
                              C{"current_us", TextTable::kRight}, C{"delta_us", TextTable::kRight},
                              C{"speedup", TextTable::kRight}, C{"change (median) [95% interval] verdict", TextTable::kLeft}};
    if (diff.backward) {
      columns.push_back(C{"base_bwd_us", TextTable::kRight});
      columns.push_back(C{"current_bwd_us", TextTable::kRight});
      columns.push_back(C{"backward change", TextTable::kLeft});
    }
    TextTable t(std::move(columns));
    const size_t n = cut(groups.size());
    for (size_t i = 0; i < n; ++i) {
      const GroupDelta& g = groups[i];
      std::vector<std::string> row = {indent ? std::string(2 * g.depth, ' ') + g.name : g.name,
                                      absl::StrCat(g.base_nodes),
                                      absl::StrCat(g.current_nodes),
                                      FormatMicros(g.base_ns),
                                      FormatMicros(g.current_ns),
                                      FormatSignedMicros(g.delta_ns()),
                                      FormatSpeedup(g.speedup()),
                                      FormatChange(g.stats)};
      if (diff.backward) {
        row.push_back(FormatMicros(g.base_backward_ns));
        row.push_back(FormatMicros(g.current_backward_ns));
        row.push_back(FormatChange(g.backward_stats));
      }
      t.AddRow(std::move(row));
    }
    out += "\n" + t.Render();
    note(n, groups.size(), header);
  };
  group_table(diff.modules, "module", false);
  group_table(diff.kinds, "kind", false);

  std::vector<C> node_columns = {C{"node", TextTable::kLeft, 60}, C{"match", TextTable::kLeft},
                                 C{"base", TextTable::kRight},       C{"cur", TextTable::kRight},
                                 C{"base_us", TextTable::kRight},    C{"current_us", TextTable::kRight},
                                 C{"delta_us", TextTable::kRight},   C{"speedup", TextTable::kRight},
                                 C{"change (median) [95% interval] verdict", TextTable::kLeft}};
  if (diff.backward) {
    node_columns.push_back(C{"base_bwd_us", TextTable::kRight});
    node_columns.push_back(C{"current_bwd_us", TextTable::kRight});
    node_columns.push_back(C{"backward change", TextTable::kLeft});
  }
  TextTable nodes(std::move(node_columns));
  const size_t n = cut(diff.nodes.size());
  for (size_t i = 0; i < n; ++i) {
    const NodeDelta& d = diff.nodes[i];
    std::vector<std::string> row = {d.name,
                                    MatchName(d.match),
                                    d.base_id >= 0 ? absl::StrCat(d.base_id) : "-",
                                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "-",
                                    FormatMicros(d.base_ns),
                                    FormatMicros(d.current_ns),
                                    FormatSignedMicros(d.delta_ns()),
                                    FormatSpeedup(d.speedup()),
                                    FormatChange(d.stats)};
    if (diff.backward) {
      row.push_back(FormatMicros(d.base_backward_ns));
      row.push_back(FormatMicros(d.current_backward_ns));
      row.push_back(FormatChange(d.backward_stats));
    }
    nodes.AddRow(std::move(row));
  }
  out += "\n" + nodes.Render();
  note(n, diff.nodes.size(), "nodes");
  return out;
}

std::string DiffToCsv(const ReportDiff& diff) {
  const char* stats = "verdict,change,change_low,change_high,p,q,base_median_us,current_median_us,base_flops,current_flops";
  std::string out =
      absl::StrCat("name,kind,module,match,base_id,current_id,base_us,current_us,delta_us,speedup,", stats,
                   diff.backward ? ",base_backward_us,current_backward_us,backward_verdict,backward_change,"
                                   "backward_change_low,backward_change_high,backward_p,backward_q,"
                                   "backward_base_median_us,backward_current_median_us"
                                 : "",
                   "\n");
  for (const NodeDelta& d : diff.nodes) {
    absl::StrAppend(&out, CsvField(d.name), ",", CsvField(d.kind), ",", CsvField(d.module), ",",
                    MatchName(d.match), ",", d.base_id >= 0 ? absl::StrCat(d.base_id) : "", ",",
                    d.current_id >= 0 ? absl::StrCat(d.current_id) : "", ",",
                    absl::StrFormat("%.3f,%.3f,%.3f,%.4f", d.base_ns / 1e3, d.current_ns / 1e3, d.delta_ns() / 1e3,
                                    d.speedup()),
                    ",", CsvStats(d.stats), ",", CsvNumber(d.base_flops), ",", CsvNumber(d.current_flops),
                    diff.backward ? absl::StrCat(absl::StrFormat(",%.3f,%.3f", d.base_backward_ns / 1e3,
                                                                 d.current_backward_ns / 1e3),
                                                 ",", CsvStats(d.backward_stats))
                                  : "",
                    "\n");
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
  w.Key("base_flops"); w.Approx(diff.base_flops);
  w.Key("current_flops"); w.Approx(diff.current_flops);
  w.Key("base_uncounted_percent"); w.Approx(diff.base_uncounted_percent);
  w.Key("current_uncounted_percent"); w.Approx(diff.current_uncounted_percent);
  if (diff.backward) {
    w.Key("base_backward_us"); w.Approx(diff.base_backward_total_ns / 1e3);
    w.Key("current_backward_us"); w.Approx(diff.current_backward_total_ns / 1e3);
    w.Key("backward_total"); WriteTotal(w, diff.backward_total);
  }
  w.Key("min_effect"); w.Approx(diff.verdict_options.min_effect);
  w.Key("alpha"); w.Approx(diff.verdict_options.alpha);
  w.Key("noise_model"); w.String(NoiseModelName(diff.noise_model));
  w.Key("base_processes"); w.Int(diff.base_processes);
  w.Key("current_processes"); w.Int(diff.current_processes);
  if (!diff.noise_note.empty()) {
    w.Key("noise_note");
    w.String(diff.noise_note);
  }
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
  WriteGroups(w, "modules", "module", diff.modules, diff.backward);
  WriteGroups(w, "kinds", "kind", diff.kinds, diff.backward);
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
    w.Key("base_us"); w.Approx(d.base_ns / 1e3);
    w.Key("current_us"); w.Approx(d.current_ns / 1e3);
    w.Key("delta_us"); w.Approx(d.delta_ns() / 1e3);
    w.Key("speedup"); w.Approx(d.speedup());
    w.Key("base_flops"); w.Approx(d.base_flops);
    w.Key("current_flops"); w.Approx(d.current_flops);
    WriteStats(w, d.stats, "");
    if (diff.backward) {
      w.Key("base_backward_us"); w.Approx(d.base_backward_ns / 1e3);
      w.Key("current_backward_us"); w.Approx(d.current_backward_ns / 1e3);
      WriteStats(w, d.backward_stats, "backward_");
    }
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
