// Comparing two reports of (versions of) the same graph: what got faster or
// slower, per module, per op kind and per node, sorted by impact. The view a
// compiler engineer needs before and after a pass.
//
// Matching. Only nodes that ran (calls > 0) take part unless
// DiffOptions::include_unexecuted: scripted models carry never-taken
// branches (a conv's padding_mode twin) that must not pair with live nodes.
// Nodes are matched, in execution order, by a key that survives passes:
//   same         kind, module path and source line
//   kind+module  kind and module path (the pass moved the source line)
//   replaced     module path only: the pass changed the op (aten::conv2d ->
//                prim::mkldnn_convolution)
//   merged       a base node that disappeared inside a module (or its
//                parent module) where the pass created or changed a node:
//                the pass fused it into that node (batch norm folded into
//                the conv); of several, the one whose time grew most
//   removed / added   the rest
// A current row that names the modules whose nodes it computes
// (NodeIdentity::fused_modules: a compiled kernel fusing several modules'
// nodes) takes the base nodes of those modules as merged before the rule
// above (a row naming the node's module itself before one naming a module
// holding it; then the one charged to the deepest module): it computes
// them. Base rows' fused_modules are not used for matching (a compiled
// program is the current side of a migration). A module part of whose time
// one side charges to a kernel of a module above it, and the other side
// not alike, is not compared in the module table (reason "fused into a
// kernel of <module>: compared there"): that module's row compares the
// whole. An A/A of a package charges alike: compared. When a side has such
// rows, a module with rows on one side only is not compared either.
// Times are self times, means per run. Every other per-node value the
// reports carry is a DiffColumn (ReportDiff::columns), compared row by row
// the same way: each metric both reports have (backward time of training
// steps, device time, kernel counts: mean self value per run) and each
// quantity of work either has (flops, bytes: per run; memory quantities are
// not compared). Matching stays by forward
// nodes and host time. Renderings iterate the columns, so a metric or
// quantity added to reports is in every diff rendering with no edit here.
//
// matched_time_fraction is the share of the base's executed self time that
// was matched (same, kind+module, replaced or merged): how much of "before"
// the diff can account for after the pass.
//
// Verdicts. Every row (and the run's total) compares the two sides' per-run
// values, not only their means: a RowComparison (verdict.h) with the
// change's interval, p, q (Benjamini-Hochberg over the rows of its table)
// and faster / slower / same / inconclusive. A row's per-run value is its
// self time in that run (groups: the sum over their nodes). When both
// reports merge several processes (run_sources: --workers, or `merge` of
// separate runs), processes are the unit of variation
// (NoiseModel::kProcesses); otherwise runs are. Reports of different
// processes (not paired) are compared at equal machine speed, the speed a
// row of its own (process_speed.h); with one process a side
// (kRunsBetweenProcesses) only the run total is tested, with an allowance
// for what processes differ by, and `noise_note` says so. Columns of metrics
// in nanoseconds get the same comparison (not at equal speed), their
// q-values over their own column of the table.
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/option_names.h"
#include "profilers/report/report.h"
#include "profilers/report/verdict.h"

namespace graphprof {

struct DiffOptions {
  // Also match and list nodes that never ran (--diff_all).
  bool include_unexecuted = false;
  // --min_effect, --alpha.
  VerdictOptions verdict;
  // The front end's names for the options the diff's notes point to.
  OptionNames names;
};

// Rows per verdict in one table, indexed by Verdict.
struct VerdictCounts {
  int counts[kNumVerdicts] = {};
  int of(Verdict v) const { return counts[static_cast<int>(v)]; }
  int total() const;
};

// One value of a row on both sides (0 on a side that lacks it).
struct Sides {
  double base = 0;
  double current = 0;
  double delta() const { return current - base; }
};

// A per-node value the diff compares besides host time (see above).
struct DiffColumn {
  std::string name;  // the metric's or quantity's name: "backward", "flops"
  std::string description;
  bool quantity = false;  // a quantity (measured once); else a metric
  Unit unit = Unit::kCount;
  int base = -1;  // index in the base's Report::columns; -1: the base lacks it
  int current = -1;
  // Per run: the metric's run totals where both reports have them, else the
  // sum over the participating nodes.
  Sides total;
  // ns metrics with run totals on both sides: the totals compared run by run.
  bool has_total_stats = false;
  RowComparison total_stats;

  // A metric in nanoseconds: written in microseconds (keys end in _us), and
  // compared run by run with a verdict (RowComparison) per row.
  bool ns() const { return unit == Unit::kNanoseconds; }
  bool compared() const { return ns(); }
  // The key of one side in JSON, CSV and pandas: "base_backward_us",
  // "current_flops", "delta_flops" (side: "base", "current" or "delta").
  std::string Key(const char* side) const;
  // A value as written under Key(): microseconds for ns metrics.
  double Written(double value) const { return ns() ? value / 1e3 : value; }
};

// base / current: > 1 is faster now; 0 when one side is absent.
inline double Speedup(double base, double current) { return base > 0 && current > 0 ? base / current : 0; }

// What every row of the diff has: host self time per run on both sides,
// compared run by run, and its values of ReportDiff::columns.
struct DiffRow {
  double base_ns = 0;
  double current_ns = 0;
  // Per-run self times compared (groups: the sums over their nodes; a
  // merged node: the base node against nothing).
  RowComparison stats;
  // Parallel to ReportDiff::columns: the row's values (a pass that changes
  // FLOPs, folding batch norm, shows as such; groups: sums over the nodes)
  // and, for compared columns, their per-run comparison.
  std::vector<Sides> values;
  std::vector<RowComparison> column_stats;

  double delta_ns() const { return current_ns - base_ns; }
  double speedup() const { return Speedup(base_ns, current_ns); }
};

struct NodeDelta : DiffRow {
  enum class Match { kSame, kKindAndModule, kReplaced, kMerged, kAdded, kRemoved };
  Match match = Match::kSame;
  std::string name;    // label of the current node (the base node when removed or merged)
  std::string kind;    // likewise; "base_kind -> kind" when replaced
  std::string module;
  int base_id = -1;     // -1 when added
  int current_id = -1;  // -1 when removed; for merged: the node it merged into
                        // (its current_ns is 0: its time is the other node's)
};

// A group of nodes on both sides (a kind, or a module and its submodules).
struct GroupDelta : DiffRow {
  std::string name;
  int depth = 0;  // modules: path depth
  int base_nodes = 0;
  int current_nodes = 0;
};

struct ReportDiff {
  std::string base_model;
  std::string current_model;
  double base_total_ns = 0;
  double current_total_ns = 0;
  // Every value compared besides host time (DiffColumn): the quantities
  // either report has, then the metrics other than time both have, each in
  // the base's order. Rows' values are parallel to it.
  std::vector<DiffColumn> columns;
  std::vector<NodeDelta> nodes;     // by |delta| descending
  std::vector<GroupDelta> modules;  // by |delta| descending
  std::vector<GroupDelta> kinds;    // by |delta| descending
  int same = 0;
  int kind_and_module = 0;
  int replaced = 0;
  int merged = 0;
  int added = 0;
  int removed = 0;
  int unexecuted = 0;  // nodes left out because they never ran (both sides)
  double matched_time_fraction = 0;

  // Share of each side's run time in kinds whose work is not counted
  // (Report::uncounted): a drop in FLOPs may be work that stopped being counted.
  double base_uncounted_percent = 0;
  double current_uncounted_percent = 0;
  // The run time compared run by run (between processes: at equal speed).
  RowComparison total;
  // Between processes (speed_removed()): each run's machine speed, from
  // reference_nodes nodes timed on both sides (process_speed.h), compared
  // as a row (a change of +10%: the current side's runs took 10% longer on
  // the nodes that did not change); tested only with several processes a
  // side (reason "one process a side"). 0 reference nodes: no speed.
  int reference_nodes = 0;
  RowComparison speed;
  VerdictOptions verdict_options;
  OptionNames names;  // DiffOptions::names, for the renderings' hints
  NoiseModel noise_model = NoiseModel::kRuns;
  // Processes on each side (1 unless merged from several).
  int base_processes = 1;
  int current_processes = 1;
  // One line on what the statistics cannot see for reports of different
  // processes with one process a side; empty otherwise.
  std::string noise_note;
  VerdictCounts node_verdicts;
  VerdictCounts module_verdicts;
  VerdictCounts kind_verdicts;

  int matched() const { return same + kind_and_module + replaced + merged; }
  bool speed_removed() const { return reference_nodes > 0; }
  // Index of the column named `name` in `columns`, or -1.
  int FindColumn(absl::string_view name) const { return IndexByName(columns, name); }
  double speedup() const { return Speedup(base_total_ns, current_total_ns); }
};

ReportDiff DiffReports(const Report& base, const Report& current, const DiffOptions& options = {});

// Text: totals, per-module, per-kind and per-node tables, each cut to `top`
// rows by impact (0: all).
std::string RenderDiff(const ReportDiff& diff, int top = 20);

std::string DiffToJson(const ReportDiff& diff);
void WriteDiffJson(const ReportDiff& diff, JsonWriter& writer);

// One row per node delta: name,kind,module,match,base_id,current_id,base_us,
// current_us,delta_us,speedup,verdict,change,change_low,change_high,p,q,
// base_median_us,current_median_us, then per column base_<key>,
// current_<key>, delta_<key> (and a compared column's <name>_verdict ...
// <name>_current_median_us).
std::string DiffToCsv(const ReportDiff& diff);

// Between processes, the speed row's line of the text rendering
// ("  speed      +3.1% [...] inconclusive (one process a side): ..."); else "".
std::string FormatSpeedLine(const ReportDiff& diff);

// "3 slower, 1 faster, 250 same, 40 inconclusive".
std::string FormatVerdictCounts(const VerdictCounts& counts);

const char* MatchName(NodeDelta::Match match);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_
