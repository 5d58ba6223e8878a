// Comparing two reports of (versions of) the same graph: what got faster or
// slower, per node and per op kind, sorted by impact. The view a compiler
// engineer needs before and after a pass.
//
// Nodes are matched by identity: first by (id, kind, module path); nodes a
// pass shifted are then matched by (kind, module path) in execution order.
// What is left over was removed (only in base) or added (only in current).
// Node times are self times (a Loop's body is not counted twice), as means
// per run.
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_

#include <string>
#include <vector>

#include "profilers/report/report.h"

namespace graphprof {

struct NodeDelta {
  enum class Match { kById, kByKindAndModule, kAdded, kRemoved };
  Match match = Match::kById;
  std::string name;
  std::string kind;
  std::string module;
  int base_id = -1;     // -1 when added
  int current_id = -1;  // -1 when removed
  double base_ns = 0;
  double current_ns = 0;

  double delta_ns() const { return current_ns - base_ns; }
  // base / current: > 1 is faster now; 0 when one side is absent.
  double speedup() const;
};

struct KindDelta {
  std::string kind;
  int base_nodes = 0;
  int current_nodes = 0;
  double base_ns = 0;
  double current_ns = 0;
  double delta_ns() const { return current_ns - base_ns; }
  double speedup() const;
};

struct ReportDiff {
  std::string base_model;
  std::string current_model;
  double base_total_ns = 0;
  double current_total_ns = 0;
  std::vector<NodeDelta> nodes;  // by |delta| descending
  std::vector<KindDelta> kinds;  // by |delta| descending
  int matched_by_id = 0;
  int matched_by_kind_and_module = 0;
  int added = 0;
  int removed = 0;

  double speedup() const { return current_total_ns > 0 ? base_total_ns / current_total_ns : 0; }
};

ReportDiff DiffReports(const Report& base, const Report& current);

// Text: totals, per-kind table, top `top` nodes (0: all), counts of matches.
std::string RenderDiff(const ReportDiff& diff, int top = 20);

std::string DiffToJson(const ReportDiff& diff);

// One row per node delta: name,kind,module,match,base_id,current_id,base_us,
// current_us,delta_us,speedup.
std::string DiffToCsv(const ReportDiff& diff);

const char* MatchName(NodeDelta::Match match);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_DIFF_H_
