#include "profilers/report/report_diff.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/module_path.h"
#include "profilers/report/diff_matching.h"
#include "profilers/report/process_speed.h"
#include "profilers/report/stats.h"

namespace graphprof {
namespace {

using diff_internal::ColumnValue;
using diff_internal::MeanSelf;

// A group's per-run values on both sides (sums of its nodes' self times;
// column_runs: of each compared column's self values) and its executions
// per run, for its RowComparisons.
struct GroupRuns {
  std::vector<double> runs[2];  // base, current
  std::vector<std::vector<double>> column_runs[2];  // parallel to ReportDiff::columns
  double calls[2] = {0, 0};
  double largest_ns[2] = {0, 0};  // its largest node's mean self time
};

// Adds each participating node's self time and column values to its
// group(s) on one side.
void AddGroups(const Report& report, const DiffOptions& options, bool base, const std::vector<DiffColumn>& columns,
               const std::function<std::vector<std::string>(const NodeRecord&)>& groups_of,
               std::map<std::string, GroupDelta>& groups, std::map<std::string, GroupRuns>& runs) {
  const int side = base ? 0 : 1;
  std::vector<double> values(columns.size());
  for (const NodeRecord& node : report.nodes) {
    if (!options.include_unexecuted && !node.executed()) continue;
    const double ns = MeanSelf(node);
    const double calls = Mean(node.calls);
    for (size_t k = 0; k < columns.size(); ++k) values[k] = ColumnValue(report, node, columns[k], base);
    for (const std::string& name : groups_of(node)) {
      GroupDelta& g = groups[name];
      g.name = name;
      (base ? g.base_nodes : g.current_nodes) += 1;
      (base ? g.base_ns : g.current_ns) += ns;
      g.values.resize(columns.size());
      for (size_t k = 0; k < columns.size(); ++k) (base ? g.values[k].base : g.values[k].current) += values[k];
      GroupRuns& r = runs[name];
      AddPerRun(r.runs[side], node.time().self);
      r.column_runs[side].resize(columns.size());
      for (size_t k = 0; k < columns.size(); ++k) {
        const int m = base ? columns[k].base : columns[k].current;
        if (columns[k].compared() && m >= 0) AddPerRun(r.column_runs[side][k], node.metrics[m].self);
      }
      r.calls[side] += calls;
      r.largest_ns[side] = std::max(r.largest_ns[side], ns);
    }
  }
}

// The columns of `base` and `current` (ReportDiff::columns): every quantity
// either has, then every metric other than time both have.
std::vector<DiffColumn> Columns(const Report& base, const Report& current) {
  std::vector<DiffColumn> columns;
  for (const Report* report : {&base, &current}) {
    for (int q : report->Quantities()) {
      const Column& c = report->columns[q];
      // Memory is not compared (yet): the diff compares work and metrics.
      if (c.memory || IndexByName(columns, c.name) >= 0) continue;
      columns.push_back({c.name, c.description, true, c.unit, base.FindQuantity(c.name), current.FindQuantity(c.name)});
    }
  }
  for (int m : base.Metrics()) {
    const Column& c = base.columns[m];
    const int theirs = m == 0 ? -1 : current.FindMetric(c.name);  // time: the diff's own columns
    if (theirs >= 0) columns.push_back({c.name, c.description, false, c.unit, m, theirs});
  }
  return columns;
}

std::vector<GroupDelta> ByImpact(std::map<std::string, GroupDelta>& groups) {
  std::vector<GroupDelta> out;
  for (auto& [name, g] : groups) out.push_back(g);
  std::stable_sort(out.begin(), out.end(), [](const GroupDelta& a, const GroupDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });
  return out;
}

std::vector<std::string> ModulePrefixes(const NodeRecord& node) {
  std::vector<std::string> prefixes = {"(root)"};
  std::string path;
  for (absl::string_view part : absl::StrSplit(node.identity.module, '.', absl::SkipEmpty())) {
    path = path.empty() ? std::string(part) : absl::StrCat(path, ".", part);
    prefixes.push_back(path);
  }
  return prefixes;
}

// Modules whose nodes a row of `report` computes together with other
// modules' nodes (a compiled kernel's fused_modules), each with the module
// that row is charged to (of several, the shallowest): only there does the
// report hold all of their time.
std::map<std::string, std::string> FusedModules(const Report& report) {
  std::map<std::string, std::string> fused;  // module -> the module it is compared at ("" the root)
  for (const NodeRecord& node : report.nodes) {
    const std::string& at = node.identity.module;
    for (std::string module : node.identity.fused_modules) {
      while (module != at && InModule(module, at)) {
        auto [it, added] = fused.emplace(module, at);
        if (!added && InModule(it->second, at)) it->second = at;
        const size_t dot = module.rfind('.');
        module = dot == std::string::npos ? "" : module.substr(0, dot);
      }
    }
  }
  return fused;
}

// Why a module row of a diff is not comparable, or "": its time lies partly
// in a kernel of a module above it on one side and not alike on the other
// (an A/A of a package charges alike: compared); or, when a side is a
// compiled program (rows with fused_modules), it has rows on one side only
// (nodes folded into other modules' kernels, or not placed).
std::map<std::string, std::string> IncomparableModules(const Report& base, const Report& current,
                                                       const std::map<std::string, GroupDelta>& modules) {
  const std::map<std::string, std::string> fused[2] = {FusedModules(base), FusedModules(current)};
  auto compiled = [](const Report& r) {
    return std::any_of(r.nodes.begin(), r.nodes.end(), [](const NodeRecord& n) { return !n.identity.fused_modules.empty(); });
  };
  const bool one_compiled = compiled(base) || compiled(current);
  std::map<std::string, std::string> why;
  for (const auto& [name, g] : modules) {
    const auto b = fused[0].find(name), c = fused[1].find(name);
    const bool in_b = b != fused[0].end(), in_c = c != fused[1].end();
    if ((in_b || in_c) && !(in_b && in_c && b->second == c->second)) {
      const std::string& at = in_c ? c->second : b->second;
      why[name] = absl::StrCat("fused into a kernel of ", at.empty() ? "(root)" : at, ": compared there");
    } else if (one_compiled && (g.base_nodes == 0) != (g.current_nodes == 0)) {
      why[name] = "rows on one side only: a compiled program places none of its time here";
    }
  }
  return why;
}

// A row whose sides are not comparable: no test, no verdict, `reason`.
void Untested(RowComparison& row, std::string reason) {
  row.tested = false;
  row.p = std::numeric_limits<double>::quiet_NaN();
  row.change_low = -1;
  row.change_high = std::numeric_limits<double>::infinity();
  row.reason = std::move(reason);
}

// Every row's RowComparison: the per-run series of both sides, the noise
// model, and the floor below which a row is too fast to time. Between
// processes (reports of different processes, not paired), rows are compared
// at equal speed (process_speed.h); with one process a side only the run
// total is tested, its interval widened by the process allowance.
class Significance {
 public:
  // Rows whose medians are both below this many timer costs per execution
  // are too fast to time.
  static constexpr double kFewTimerCosts = 3;
  // Between processes with several a side (not paired), a node row both
  // sides have is tested only with at least this many processes a side: one
  // node's time from process to process is heavy-tailed, often two-moded
  // (measured, nn.TransformerEncoder A/As, a baseline of 5 processes made a
  // minute before a check of 3-4: prim::If 0.65 -> 1.28 us, prim::Constant
  // 1.7 -> 0.98 us, aten::len 0.65 -> 0.37 us called changed; node rows
  // falsely called in 5 of 20 A/As), and with a few processes a side all of
  // one side can fall in one mode. Modules, kinds and the run time sum
  // many nodes and are tested with 2 or more, unless one node holds at
  // least kOneNodeShare of the row's time on a side: such a row is that
  // node, and needs kProcessesForNodes too (measured: resnet18 A/As, a
  // baseline of 5 processes against a check of 8, module layer1.1.bn1 -- one
  // batch_norm -- 48.6 -> 63.1 us called slower, q 0.0007, in 1 of 30).
  static constexpr int kProcessesForNodes = 8;
  static constexpr double kOneNodeShare = 0.5;

  Significance(const Report& base, const Report& current, const DiffOptions& options, ReportDiff& diff)
      : base_(base), current_(current), options_(options.verdict), diff_(diff) {
    base_processes_ = Processes(base);
    current_processes_ = Processes(current);
    diff.base_processes = std::max<int>(1, static_cast<int>(base_processes_.size()));
    diff.current_processes = std::max<int>(1, static_cast<int>(current_processes_.size()));
    model_ = diff.base_processes >= 2 && diff.current_processes >= 2 ? NoiseModel::kProcesses : NoiseModel::kRuns;
    if (model_ == NoiseModel::kProcesses && SameProcesses(base, current)) model_ = NoiseModel::kPairedProcesses;
    diff.verdict_options = options_;
    diff.names = options.names;
    names_ = options.names;
    timer_ns_ = std::max(base.timer_overhead_ns, current.timer_overhead_ns);
    between_processes_ = !(!base.process.empty() && base.process == current.process) &&
                         model_ != NoiseModel::kPairedProcesses;
  }

  // Estimates the speed from the matched nodes (between processes only) and
  // settles the noise model.
  void Speed(const std::vector<NodeDelta>& nodes) {
    if (between_processes_) {
      std::vector<SpeedNode> reference;
      for (const NodeDelta& d : nodes) {
        // Nodes a pass left alone: a replaced or merged node changed by design.
        if (d.match != NodeDelta::Match::kSame && d.match != NodeDelta::Match::kKindAndModule) continue;
        const NodeRecord& b = base_.nodes[d.base_id];
        const NodeRecord& c = current_.nodes[d.current_id];
        const double floor = Floor(std::max(Mean(b.calls), Mean(c.calls)));
        const std::vector<double>& br = series_.emplace_back(SelfRuns(&b, 0));
        const std::vector<double>& cr = series_.emplace_back(SelfRuns(&c, 0));
        if (Median(br) < floor || Median(cr) < floor) continue;
        reference.push_back(SpeedNode{br, cr, d.base_id});
      }
      speed_ = std::make_unique<ProcessSpeed>(reference);
      if (!speed_->valid()) speed_.reset();
    }
    if (speed_ != nullptr && model_ == NoiseModel::kRuns) model_ = NoiseModel::kRunsBetweenProcesses;
    diff_.noise_model = model_;
    if (speed_ != nullptr) diff_.reference_nodes = speed_->reference_nodes();
    one_process_a_side_ = between_processes_ && model_ != NoiseModel::kProcesses;
    if (model_ == NoiseModel::kRuns && between_processes_) {
      diff_.noise_note = absl::StrCat(
          "one process a side (base: ", diff_.base_processes, " process", diff_.base_processes == 1 ? "" : "es",
          ", current: ", diff_.current_processes, ") and fewer than ", ProcessSpeed::kMinReferenceNodes,
          " nodes timed on both: the machine's speed cannot be told from a change, so nothing is tested; profile both ",
          "sides ", names_.workers.empty() ? "in several processes and merge each side's reports"
                                           : absl::StrCat("with ", names_.workers));
    } else if (model_ == NoiseModel::kRunsBetweenProcesses) {
      diff_.noise_note = absl::StrCat(
          "one process a side: rows are compared at equal machine speed and only the run total is tested, its ",
          "interval widened by what processes differ by (from ", speed_->reference_nodes(), " nodes); to test nodes, ",
          "modules, kinds and a change that slows every node alike, profile both sides ",
          names_.workers.empty() ? "in several processes and merge each side's reports"
                                 : absl::StrCat("with ", names_.workers));
    }
  }

  void Nodes(std::vector<NodeDelta>& nodes) {
    for (NodeDelta& d : nodes) {
      const NodeRecord* b = d.base_id >= 0 ? &base_.nodes[d.base_id] : nullptr;
      // A merged node's time went into another node: it compares against nothing.
      const NodeRecord* c =
          d.current_id >= 0 && d.match != NodeDelta::Match::kMerged ? &current_.nodes[d.current_id] : nullptr;
      const double calls = std::max(b != nullptr ? Mean(b->calls) : 0, c != nullptr ? Mean(c->calls) : 0);
      const std::vector<double> br = SelfRuns(b, 0), cr = SelfRuns(c, 0);
      d.stats = Compare(b != nullptr ? &br : nullptr, c != nullptr ? &cr : nullptr, calls, true);
      if (FewProcessesForNodes() && b != nullptr && c != nullptr && d.stats.tested) {
        Untested(d.stats, absl::StrCat("fewer than ", kProcessesForNodes, " processes a side for a node"));
      }
      d.column_stats.resize(diff_.columns.size());
      for (size_t k = 0; k < diff_.columns.size(); ++k) {
        const DiffColumn& column = diff_.columns[k];
        if (!column.compared()) continue;
        const std::vector<double> bk = SelfRuns(b, column.base), ck = SelfRuns(c, column.current);
        d.column_stats[k] = Compare(b != nullptr ? &bk : nullptr, c != nullptr ? &ck : nullptr, calls, false);
      }
    }
  }

  void Groups(std::map<std::string, GroupDelta>& groups, std::map<std::string, GroupRuns>& runs) {
    for (auto& [name, g] : groups) {
      GroupRuns& r = runs[name];
      const double calls = std::max(r.calls[0], r.calls[1]);
      g.stats = Compare(g.base_nodes > 0 ? &r.runs[0] : nullptr, g.current_nodes > 0 ? &r.runs[1] : nullptr, calls,
                        true);
      const bool one_node = (g.base_ns > 0 && r.largest_ns[0] >= kOneNodeShare * g.base_ns) ||
                            (g.current_ns > 0 && r.largest_ns[1] >= kOneNodeShare * g.current_ns);
      if (FewProcessesForNodes() && one_node && g.base_nodes > 0 && g.current_nodes > 0 && g.stats.tested) {
        Untested(g.stats, absl::StrCat("one node holds most of its time: fewer than ", kProcessesForNodes,
                                       " processes a side, as for a node"));
      }
      g.values.resize(diff_.columns.size());
      g.column_stats.resize(diff_.columns.size());
      for (size_t k = 0; k < diff_.columns.size(); ++k) {
        if (!diff_.columns[k].compared()) continue;
        for (std::vector<std::vector<double>>& side : r.column_runs) side.resize(diff_.columns.size());
        g.column_stats[k] = Compare(g.base_nodes > 0 ? &r.column_runs[0][k] : nullptr,
                                    g.current_nodes > 0 ? &r.column_runs[1][k] : nullptr, calls, false);
      }
    }
  }

  // The run total at equal speed (one process a side: with its allowance),
  // and the speed itself.
  void Total() {
    const std::vector<double> b = ToDoubles(base_.run_ns()), c = ToDoubles(current_.run_ns());
    diff_.total = Compare(&b, &c, 1, true, /*run_total=*/true);
    RowComparison* one[] = {&diff_.total};
    DecideVerdicts(one, options_);
    if (speed_ != nullptr) SpeedRow();
    for (DiffColumn& column : diff_.columns) {
      if (!column.has_total_stats) continue;
      const std::vector<double> b = ToDoubles(base_.columns[column.base].run_total);
      const std::vector<double> c = ToDoubles(current_.columns[column.current].run_total);
      column.total_stats = Compare(&b, &c, 1, false);
      RowComparison* total[] = {&column.total_stats};
      DecideVerdicts(total, options_);
    }
  }

  // q-values over one table's rows (time and each compared column apart),
  // verdicts, counts (of time's verdicts).
  template <typename Row>
  void Decide(std::vector<Row>& rows, VerdictCounts& counts) {
    std::vector<RowComparison*> forward;
    for (Row& row : rows) forward.push_back(&row.stats);
    DecideVerdicts(forward, options_);
    for (size_t k = 0; k < diff_.columns.size(); ++k) {
      if (!diff_.columns[k].compared()) continue;
      std::vector<RowComparison*> column;
      for (Row& row : rows) column.push_back(&row.column_stats[k]);
      DecideVerdicts(column, options_);
    }
    for (const RowComparison* row : forward) ++counts.counts[static_cast<int>(row->verdict)];
  }

 private:
  // The speed compared as a row of its own: per run, the base's median run
  // time at that run's speed (what the run would have taken had only the
  // machine's speed changed). Tested over processes only.
  void SpeedRow() {
    const double scale = Median(ToDoubles(base_.run_ns()));
    std::vector<double> b, c;
    for (double s : speed_->base_log_speed()) b.push_back(scale * std::exp(s));
    for (double s : speed_->current_log_speed()) c.push_back(scale * std::exp(s));
    diff_.speed = CompareRow(RowSample{b, base_processes_}, RowSample{c, current_processes_},
                             model_ == NoiseModel::kProcesses ? model_ : NoiseModel::kRuns, 0, options_);
    if (model_ != NoiseModel::kProcesses) {
      diff_.speed.tested = false;
      diff_.speed.p = std::numeric_limits<double>::quiet_NaN();
      diff_.speed.change_low = -1;
      diff_.speed.change_high = std::numeric_limits<double>::infinity();
      diff_.speed.reason = "one process a side";
    }
    RowComparison* one[] = {&diff_.speed};
    DecideVerdicts(one, options_);
  }

  static std::vector<RunRange> Processes(const Report& report) {
    std::vector<RunRange> ranges;
    if (report.run_sources.size() < 2) return ranges;
    for (const RunSource& source : report.run_sources) {
      ranges.push_back(RunRange{source.first_run, source.first_run + source.runs});
    }
    return ranges;
  }

  // Each process ran both sides (--ab --workers): their sources name the
  // same processes in the same order, and there are several. The sources of
  // one process alone are copies of the module that ran side by side in it
  // (--ab's copies, before_after.h): two copies share nothing a pairing
  // would remove, so they are compared unpaired (more degrees of freedom).
  static bool SameProcesses(const Report& base, const Report& current) {
    if (base.run_sources.size() != current.run_sources.size()) return false;
    bool several = false;
    for (size_t i = 0; i < base.run_sources.size(); ++i) {
      const std::string& p = base.run_sources[i].process;
      if (p.empty() || p != current.run_sources[i].process) return false;
      several |= p != base.run_sources[0].process;
    }
    return several;
  }

  static std::vector<double> ToDoubles(const std::vector<int64_t>& values) {
    return std::vector<double>(values.begin(), values.end());
  }

  static std::vector<double> SelfRuns(const NodeRecord* node, int metric) {
    if (node == nullptr || metric < 0 || static_cast<size_t>(metric) >= node->metrics.size()) return {};
    return ToDoubles(node->metrics[metric].self);
  }

  double Floor(double calls) const { return kFewTimerCosts * timer_ns_ * calls; }

  // Node rows between processes (kProcesses, not paired) need
  // kProcessesForNodes processes a side.
  bool FewProcessesForNodes() const {
    return between_processes_ && model_ == NoiseModel::kProcesses &&
           std::min(diff_.base_processes, diff_.current_processes) < kProcessesForNodes;
  }

  // Absent sides (nullptr) are rows the other report lacks. Host times
  // (`host_time`) are compared at equal speed when the speed is known; with
  // one process a side only the run time's total (with the process
  // allowance, when the speed is known) and rows absent on a side are tested.
  RowComparison Compare(const std::vector<double>* base, const std::vector<double>* current, double calls,
                        bool host_time, bool run_total = false) const {
    const double allowance = run_total && speed_ != nullptr ? speed_->total_allowance() : 0;
    std::vector<double> scaled[2];
    if (host_time && speed_ != nullptr) {
      if (base != nullptr) base = &(scaled[0] = ProcessSpeed::AtEqualSpeed(*base, speed_->base_log_speed()));
      if (current != nullptr) {
        current = &(scaled[1] = ProcessSpeed::AtEqualSpeed(*current, speed_->current_log_speed()));
      }
    }
    RowSample b{base != nullptr ? absl::MakeConstSpan(*base) : absl::Span<const double>(), base_processes_,
                base != nullptr};
    RowSample c{current != nullptr ? absl::MakeConstSpan(*current) : absl::Span<const double>(), current_processes_,
                current != nullptr};
    // Several processes a side at equal speed: the processes' speed is a
    // covariate (verdict.h), for rows both sides have.
    if (host_time && speed_ != nullptr && model_ == NoiseModel::kProcesses && b.present && c.present) {
      b.log_speed = speed_->base_log_speed();
      c.log_speed = speed_->current_log_speed();
    }
    RowComparison row = CompareRow(b, c, host_time ? model_ : RunsModel(), Floor(calls), options_, allowance);
    // Columns other than host time (backward, device time) have neither a
    // speed nor an allowance: with one process a side they are not tested.
    const bool testable = host_time && run_total && speed_ != nullptr;
    if (one_process_a_side_ && !testable && b.present && c.present && row.tested) Untested(row, "one process a side");
    return row;
  }

  // Columns other than host time are not at equal speed: one process a side
  // compares their runs as within one process.
  NoiseModel RunsModel() const { return model_ == NoiseModel::kRunsBetweenProcesses ? NoiseModel::kRuns : model_; }

  const Report& base_;
  const Report& current_;
  const VerdictOptions options_;
  ReportDiff& diff_;
  OptionNames names_;
  std::vector<RunRange> base_processes_;
  std::vector<RunRange> current_processes_;
  NoiseModel model_ = NoiseModel::kRuns;
  double timer_ns_ = 0;
  bool between_processes_ = false;
  bool one_process_a_side_ = false;  // between processes, not several a side
  std::unique_ptr<ProcessSpeed> speed_;
  std::deque<std::vector<double>> series_;  // the reference nodes' runs (stable addresses)
};

}  // namespace

int VerdictCounts::total() const {
  int sum = 0;
  for (int c : counts) sum += c;
  return sum;
}

std::string DiffColumn::Key(const char* side) const { return absl::StrCat(side, "_", name, ns() ? "_us" : ""); }

const char* MatchName(NodeDelta::Match match) {
  switch (match) {
    case NodeDelta::Match::kSame: return "same";
    case NodeDelta::Match::kKindAndModule: return "kind+module";
    case NodeDelta::Match::kReplaced: return "replaced";
    case NodeDelta::Match::kMerged: return "merged";
    case NodeDelta::Match::kAdded: return "added";
    case NodeDelta::Match::kRemoved: return "removed";
  }
  return "?";
}

ReportDiff DiffReports(const Report& base, const Report& current, const DiffOptions& options) {
  ReportDiff diff;
  diff.base_model = base.model;
  diff.current_model = current.model;
  diff.base_total_ns = base.total_us() * 1e3;
  diff.current_total_ns = current.total_us() * 1e3;
  for (const UncountedKind& u : base.uncounted) diff.base_uncounted_percent += u.percent;
  for (const UncountedKind& u : current.uncounted) diff.current_uncounted_percent += u.percent;
  diff.columns = Columns(base, current);
  for (DiffColumn& column : diff.columns) {
    for (const Report* report : {&base, &current}) {
      const bool is_base = report == &base;
      const int index = is_base ? column.base : column.current;
      double& total = is_base ? column.total.base : column.total.current;
      if (!column.quantity && !report->columns[index].run_total.empty()) {
        total = Summarize(report->columns[index].run_total).mean;
        continue;
      }
      for (const NodeRecord& node : report->nodes) {
        if (options.include_unexecuted || node.executed()) total += ColumnValue(*report, node, column, is_base);
      }
    }
    column.has_total_stats = column.compared() && !base.columns[column.base].run_total.empty() &&
                             !current.columns[column.current].run_total.empty();
  }
  const double matched_base_ns = diff_internal::MatchNodes(base, current, options, diff);
  std::stable_sort(diff.nodes.begin(), diff.nodes.end(), [](const NodeDelta& a, const NodeDelta& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });
  double base_ns = 0;
  for (const NodeRecord& node : base.nodes) {
    if (options.include_unexecuted || node.executed()) base_ns += MeanSelf(node);
  }
  diff.matched_time_fraction = base_ns > 0 ? std::min(1.0, matched_base_ns / base_ns) : 1.0;

  std::map<std::string, GroupDelta> modules, kinds;
  std::map<std::string, GroupRuns> module_runs, kind_runs;
  AddGroups(base, options, true, diff.columns, ModulePrefixes, modules, module_runs);
  AddGroups(current, options, false, diff.columns, ModulePrefixes, modules, module_runs);
  for (auto& [name, g] : modules) g.depth = name == "(root)" ? 0 : ModuleDepth(name);
  auto kind_of = [](const NodeRecord& n) { return std::vector<std::string>{n.identity.kind}; };
  AddGroups(base, options, true, diff.columns, kind_of, kinds, kind_runs);
  AddGroups(current, options, false, diff.columns, kind_of, kinds, kind_runs);
  Significance significance(base, current, options, diff);
  significance.Speed(diff.nodes);
  significance.Nodes(diff.nodes);
  significance.Groups(modules, module_runs);
  for (const auto& [module, reason] : IncomparableModules(base, current, modules)) {
    GroupDelta& row = modules.at(module);
    Untested(row.stats, reason);
    for (RowComparison& column : row.column_stats) Untested(column, reason);
  }
  significance.Groups(kinds, kind_runs);
  significance.Total();
  diff.modules = ByImpact(modules);
  diff.kinds = ByImpact(kinds);
  significance.Decide(diff.nodes, diff.node_verdicts);
  significance.Decide(diff.modules, diff.module_verdicts);
  significance.Decide(diff.kinds, diff.kind_verdicts);
  return diff;
}


}  // namespace graphprof
