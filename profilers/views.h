// Views: a Report aggregated into rows, by node, op kind, module or shape.
//
//   node    one row per node: time is inclusive (If/Loop include their
//           blocks), self excludes direct children
//   kind    one row per op kind: sum of its nodes' self times
//   module  one row per module path prefix, as a tree in execution order:
//           time = self time of every node inside the module (submodules
//           included), self = of nodes directly in it (torch_geometric's
//           layer-wise view)
//   shape   one row per (kind, input shapes): sum of self times
//
// Every row's statistics are over runs of its per-run value, so std/p90 are
// real run-to-run variation. percent = mean / mean run time. Rows can be
// sorted by any column and cut to the top N; the sums row always covers all
// rows (for nodes: top-level nodes only, so nested time is not counted twice).
#ifndef GRAPHPROF_PROFILERS_VIEWS_H_
#define GRAPHPROF_PROFILERS_VIEWS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "profilers/report.h"
#include "profilers/stats.h"

namespace graphprof {

enum class GroupBy { kNode, kKind, kModule, kShape };

absl::StatusOr<GroupBy> ParseGroupBy(absl::string_view name);  // node|kind|module|shape
const char* GroupByName(GroupBy group_by);

struct ViewRow {
  std::string name;    // node label, kind, module path or "kind shapes"
  int id = -1;         // node view: the node id
  int depth = 0;       // node: block nesting; module: path depth
  int members = 1;     // nodes aggregated into the row
  std::string kind;
  std::string module;
  std::string shapes;  // input shapes
  std::string source;
  double calls = 0;    // executions per run (mean)
  Summary time;        // ns, per run
  Summary self;        // ns, per run
  double percent = 0;
  double self_percent = 0;
  std::optional<NodeMemory> memory;  // grouped rows: sums (peak: max)
  Summary device;                    // ns per run, from CUDA events (count 0: none)
  int64_t kernels = 0;               // device operations per run (CUPTI)
  int64_t kernel_ns = 0;             // their device time per run
};

struct View {
  GroupBy group_by = GroupBy::kNode;
  std::vector<ViewRow> rows;
  size_t total_rows = 0;  // before top-N
  ViewRow sums;
};

struct ViewOptions {
  GroupBy group_by = GroupBy::kNode;
  // Column to sort by: mean (default; module view: execution order), self,
  // std, median, p90, min, max, calls, percent, alloc, peak, device,
  // kernels, id, name, order.
  std::string sort;
  int top = 0;  // 0: all rows
};

// The sort keys MakeView accepts.
const std::vector<std::string>& SortKeys();

absl::StatusOr<View> MakeView(const Report& report, const ViewOptions& options);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_VIEWS_H_
