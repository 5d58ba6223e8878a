// Views: a Report aggregated into rows, by node, op kind, module or shape.
//
//   node    one row per node: total is inclusive (If/Loop include their
//           blocks), self excludes them
//   kind    one row per op kind: its nodes' self values added up
//   module  one row per module path prefix, as a tree in execution order:
//           total = self values of every node inside the module (submodules
//           included), self = of nodes directly in it (torch_geometric's
//           layer-wise view); quantities likewise
//   shape   one row per (kind, input shapes): self values added up
//
// A merged report's rows also say which merged report (process, rank) was
// slowest and whether it is a straggler (ViewRow::straggler).
//
// Every metric of the report (host time, device time, backward time, ...)
// gets the same treatment: a row holds one MetricStats per metric, whose
// statistics are over runs of the row's per-run value, so std/p90 are real
// run-to-run variation. Quantities (work, memory) add their self values
// (levels such as peak bytes: the maximum).
// A metric's unattributed part (Column::unattributed: backward work of no
// node, kernels launched outside nodes) is a row of its own, named
// "(unattributed)" (id -1, no members), in every view not limited to
// modules. Rows can be sorted by any column and cut to the top N; the sums
// row always covers all rows (for nodes: top-level totals, so nested time is
// not counted twice).
#ifndef GRAPHPROF_PROFILERS_REPORT_VIEWS_H_
#define GRAPHPROF_PROFILERS_REPORT_VIEWS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/module_path.h"  // InModule
#include "profilers/report/rank_stragglers.h"
#include "profilers/report/report.h"
#include "profilers/report/stats.h"

namespace graphprof {

enum class GroupBy { kNode, kKind, kModule, kShape };

absl::StatusOr<GroupBy> ParseGroupBy(absl::string_view name);  // node|kind|module|shape
const char* GroupByName(GroupBy group_by);

// One metric of one row.
struct MetricStats {
  Summary total;  // per run; see the grouping rules above
  Summary self;
  double percent = 0;       // total mean as a share of the metric's run total
  double self_percent = 0;
};

struct ViewRow {
  std::string name;    // node label, kind, module path or "kind (shapes)"
  int id = -1;         // node view: the node id
  int depth = 0;       // node: block nesting; module: path depth
  int members = 1;     // nodes aggregated into the row
  std::string kind;
  std::string module;
  std::string shapes;  // input shapes
  std::string source;
  // Calls: executions of a node, per run (mean), as NodeRecord::calls and
  // the "calls" column count them: of the row's own nodes (a module: those
  // directly in it) ...
  double calls = 0;
  // ... and of every node in the row (a module: its whole subtree): the
  // roofline's working set is the row's bytes per call.
  double subtree_calls = 0;
  // Each parallel to Report::columns. Metrics: their statistics (default
  // for a quantity). Quantities: node rows the node's values and self
  // values; grouped rows the self values of their nodes added up (modules:
  // total of every node inside, self of those directly in it), levels
  // (Column::Scope::kLevel) their maximum; 0 for a metric. work_counted:
  // every executed node's work was.
  std::vector<MetricStats> metrics;
  std::vector<double> quantities;
  std::vector<double> self_quantities;
  bool work_counted = true;
  // Module rows: the quantities cover the whole subtree, so rates divide by
  // the row's total time (its subtree's), not its self time.
  bool inclusive_work = false;
  // Merged reports (Report::run_sources): the row's mean time (total) in
  // each merged report's runs, in run_sources order; empty otherwise.
  std::vector<double> source_means;
  // The same with each report's median (what straggler() compares).
  std::vector<double> source_medians;

  const MetricStats& time() const { return metrics[0]; }
  // Index of the merged report with the largest source mean (-1 without).
  int slowest_source() const;
  // A merged report slower than the others beyond their spread: its median
  // is more than 3.5 robust standard deviations (1.4826 x the median
  // absolute deviation of the reports' medians) above the median report,
  // and more than kStragglerMinExcess slower. Needs 3 reports; source -1
  // when there is none.
  struct Straggler {
    int source = -1;
    double excess = 0;  // its median / the median report's - 1
  };
  static constexpr double kStragglerMinExcess = 0.02;
  // Ranks of one program (rank_stragglers.h: RanksAligned) are compared run
  // by run instead: the rank is a straggler when its test, corrected for
  // the view's `rank_comparisons` (row, rank) tests, is significant.
  Straggler straggler() const;
  RankTest rank_test;
  int rank_comparisons = 0;  // 0: the ranks are not aligned (the rule above)
  // Aligned ranks: the mean over steps of the least rank's time (ns;
  // StepFloorMean: a collective's transfer), -1 otherwise.
  double step_floor = -1;
};

struct View {
  GroupBy group_by = GroupBy::kNode;
  std::vector<ViewRow> rows;
  size_t total_rows = 0;  // before top-N
  ViewRow sums;
};

struct ViewOptions {
  GroupBy group_by = GroupBy::kNode;
  // Column to sort by (SortKeys); default: mean (module view: order).
  std::string sort;
  int top = 0;  // 0: all rows
  // Only these module paths and their submodules (module rows), or the nodes
  // inside them (other views). Empty: everything. A path with no node in it
  // is an error (InvalidArgument, listing the top-level modules).
  std::vector<std::string> modules;
};

// The sort keys for `report`: mean, self, std, median, p90, min, max, calls,
// percent (host time), id, every quantity by its name (flops, bytes; memory
// by its column heading: alloc, peak, output, and saved for training steps),
// gflops (with flops),
// for every other metric M: M (mean of total) and M_self, name, order.
std::vector<std::string> SortKeys(const Report& report);

absl::StatusOr<View> MakeView(const Report& report, const ViewOptions& options);

// OK when every path in `modules` is, or contains, one of `node_modules`
// (the module paths of a graph's nodes); else InvalidArgument naming the
// first unknown one and `model`'s top-level modules. MakeView checks its
// ViewOptions::modules this way; profile_graph checks --modules against the
// plan before profiling, so a typo costs no run.
absl::Status CheckModules(const std::vector<std::string>& node_modules, absl::string_view model,
                          const std::vector<std::string>& modules);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_VIEWS_H_
