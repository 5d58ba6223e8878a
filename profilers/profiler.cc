#include "profilers/profiler.h"

#include <ATen/core/grad_mode.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"
#include "ir/graph_text.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"
#include "profilers/backward_pass.h"
#include "profilers/node_observer.h"
#include "profilers/profile_runner.h"
#include "interpreter/interpreter.h"

namespace graphprof {

namespace {

// 1,000 constants (nodes whose own work is a few nanoseconds, so that timing
// them measures the instrumentation), kept alive by one tuple of them all.
std::shared_ptr<const GraphPlan> CalibrationPlan() {
  static const std::shared_ptr<const GraphPlan>* plan = [] {
    std::string ir = "graph():\n";
    std::string names;
    for (int i = 0; i < kCalibrationNodes; ++i) {
      absl::StrAppend(&ir, "  %c", i, " : int = prim::Constant[value=", i, "]()\n");
      absl::StrAppend(&names, i == 0 ? "" : ", ", "%c", i);
    }
    absl::StrAppend(&ir, "  %all : (", absl::StrJoin(std::vector<std::string>(kCalibrationNodes, "int"), ", "),
                    ") = prim::TupleConstruct(", names, ")\n  return (%all)\n");
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(ir);
    absl::StatusOr<PreparedGraph> prepared =
        graph.ok() ? PrepareOwnedGraph(*graph, "calibration") : absl::StatusOr<PreparedGraph>(graph.status());
    absl::StatusOr<std::shared_ptr<const GraphPlan>> built =
        prepared.ok() ? GraphPlan::Build(*std::move(prepared)) : prepared.status();
    std::shared_ptr<const GraphPlan> result = built.ok() ? *built : nullptr;
    // Every constant must survive preparation, or the cost is per run, not per node.
    if (result != nullptr && result->nodes().size() != static_cast<size_t>(kCalibrationNodes) + 1) result = nullptr;
    return new std::shared_ptr<const GraphPlan>(result);
  }();
  return *plan;
}

}  // namespace

std::string NewReportId() {
  static std::atomic<int64_t> reports{0};
  return absl::StrCat(ProcessIdentity(), "/", ++reports);
}

const std::string& ProcessIdentity() {
  static const std::string* id = [] {
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
    const int64_t start = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    return new std::string(absl::StrCat(getpid(), "@", host, ":", start));
  }();
  return *id;
}

TimerCost MeasureTimerCost(const std::shared_ptr<TimeSource>& clock, bool trace, bool two_reads) {
  std::shared_ptr<const GraphPlan> plan = CalibrationPlan();
  if (plan == nullptr) return {};
  constexpr int kRounds = 21;
  const size_t num_nodes = plan->nodes().size();
  Interpreter plain(plan);
  ProfilingInterpreter timed(plan, clock);
  // An observer that does nothing puts the nodes on the two-read path.
  struct Nothing final : NodeObserver {
    bool ObservesNodes() const override { return true; }
  } nothing;
  if (two_reads) timed.AddObserver(&nothing);
  timed.BeginTimedRuns(kRounds, trace ? static_cast<size_t>(kRounds) * num_nodes : 0);
  // Interleaved, best of each, in the clock's own time: a clock that does
  // not tick by itself (ManualClock) measures no cost.
  int64_t best_plain = INT64_MAX, best_timed = INT64_MAX;
  for (int round = 0; round < kRounds; ++round) {
    int64_t t0 = clock->NowNs();
    (void)plain.Run({});
    int64_t t1 = clock->NowNs();
    (void)timed.Run({});
    int64_t t2 = clock->NowNs();
    if (round == 0) continue;  // warm-up
    best_plain = std::min(best_plain, t1 - t0);
    best_timed = std::min(best_timed, t2 - t1);
  }
  timed.EndRecording();
  // Inner: what a node that does (almost) nothing measures itself, the
  // smallest mean over the constants (not the tuple) of a timed round.
  int64_t best_inner = INT64_MAX;
  for (int run = 1; run < timed.completed_runs(); ++run) {
    int64_t sum = 0;
    for (int node = 0; node < kCalibrationNodes; ++node) sum += timed.sample(run, node).total;
    best_inner = std::min(best_inner, timed.UnitsToNs(sum));
  }
  // Chained, the timed run read the clock once per node, and three more
  // times: at its start and end, and on entering its block; a block entry's
  // read is taken to cost what a node's does (one read in the flow of the
  // run; back-to-back reads cost more than either). With two reads per node,
  // the run's own two reads count as one node's.
  TimerCost cost;
  const double reads_like_nodes = static_cast<double>(num_nodes) + (two_reads ? 1 : 3);
  cost.per_execution_ns = std::max(0.0, static_cast<double>(best_timed - best_plain) / reads_like_nodes);
  cost.per_block_ns = two_reads ? 0 : cost.per_execution_ns;
  cost.inner_ns =
      best_inner == INT64_MAX ? 0.0 : static_cast<double>(best_inner) / static_cast<double>(kCalibrationNodes);
  cost.inner_ns = std::min(cost.inner_ns, cost.per_execution_ns);
  return cost;
}

void DeclareWork(Report& report) {
  report.AddQuantity(
      Column{"flops", "floating-point operations per run (a multiply-add is 2)", Unit::kFlops, Column::Scope::kOwn});
  report.AddQuantity(
      Column{"bytes", "bytes read and written per run (each storage once)", Unit::kBytes, Column::Scope::kOwn});
}

Report OwnColumns(bool memory) {
  Report report;
  DeclareWork(report);
  if (memory) report.DeclareMemory();
  return report;
}

Report DeclaredReport(const ProfileOptions& options) {
  Report report = OwnColumns(options.memory);
  if (options.backward.enabled) {
    for (const Column& column : BackwardPass::MetricColumns()) AddDeclaredColumn(column, report);
  }
  for (const NodeObserver* observer : options.observers) {
    for (const Column& column : observer->Columns()) AddDeclaredColumn(column, report);
  }
  return report;
}

Report BuildReport(const ProfilingInterpreter& interpreter, int warmup, TimerCost timer, bool compensate) {
  const GraphPlan& plan = interpreter.plan();
  Report report;
  report.model = plan.name();
  report.process = ProcessIdentity();
  report.report_id = NewReportId();
  report.clock = std::string(interpreter.clock().name());
  report.warmup = warmup;
  report.runs = interpreter.completed_runs();
  report.timer_overhead_ns = timer.per_execution_ns;
  report.timer_inner_ns = timer.inner_ns;
  report.columns[0].run_total.assign(interpreter.run_ns().begin(), interpreter.run_ns().end());
  const std::vector<NodeInspection>& inspection = interpreter.inspection();
  report.nodes.resize(plan.nodes().size());
  for (const NodePlan& node : plan.nodes()) {
    NodeRecord& record = report.nodes[node.id];
    record.identity = node.identity;
    if (node.id < static_cast<int>(inspection.size())) {
      record.input_shapes = inspection[node.id].input_shapes;
      record.output_shapes = inspection[node.id].output_shapes;
    }
    report.FitNode(record);
    std::vector<int64_t>& total = record.metrics[0].total;
    total.reserve(report.runs);
    record.calls.reserve(report.runs);
    for (int r = 0; r < report.runs; ++r) {
      total.push_back(interpreter.UnitsToNs(interpreter.sample(r, node.id).total));
      record.calls.push_back(interpreter.sample(r, node.id).calls);
    }
  }
  // The work each node did, from the inspection run.
  DeclareWork(report);
  const int flops = report.FindQuantity("flops");
  const int bytes = report.FindQuantity("bytes");
  for (const NodePlan& node : plan.nodes()) {
    if (node.id >= static_cast<int>(inspection.size())) continue;
    NodeRecord& record = report.nodes[node.id];
    record.quantities[flops] = inspection[node.id].flops;
    record.quantities[bytes] = inspection[node.id].bytes;
    record.work_counted = inspection[node.id].work_counted;
  }
  // The memory each node used, from the inspection run.
  if (interpreter.memory_inspected()) {
    report.DeclareMemory();
    using M = NodeInspection::Memory;
    for (const auto& [name, field] : {std::pair{"allocated_bytes", &M::allocated_bytes},
                                      {"freed_bytes", &M::freed_bytes},
                                      {"allocations", &M::allocations},
                                      {"peak_bytes", &M::peak_bytes},
                                      {"live_after_bytes", &M::live_after_bytes},
                                      {"output_bytes", &M::output_bytes}}) {
      const int q = report.FindQuantity(name);
      if (q < 0) continue;  // not in MemoryQuantities() (its tests would fail)
      for (size_t id = 0; id < inspection.size() && id < report.nodes.size(); ++id) {
        report.nodes[id].quantities[q] = static_cast<double>(inspection[id].memory.*field);
      }
    }
  }
  report.ir = GraphLines(plan.graph());
  report.graph_hash = GraphHash(report.ir);
  if (interpreter.memory_inspected()) report.memory = interpreter.memory_summary();
  const int64_t origin = report.runs > 0 ? interpreter.run_start_ns()[0] : 0;
  for (int64_t start : interpreter.run_start_ns()) report.run_start_ns.push_back(start - origin);
  report.events.reserve(interpreter.events().size());
  for (const TraceEvent& event : interpreter.events()) {
    report.events.push_back(TraceEvent{event.node, event.run, interpreter.UnitsToNs(event.start_ns) - origin,
                                       interpreter.UnitsToNs(event.duration_ns)});
  }
  report.dropped_events = interpreter.dropped_events();
  if (!interpreter.chained_reads()) timer.per_block_ns = 0;  // two reads per node, none per block
  report.timer_block_ns = timer.per_block_ns;
  if (compensate) Compensate(report, timer, BlockStarts(plan));
  report.Finalize();
  return report;
}

std::vector<BlockStart> BlockStarts(const GraphPlan& plan) {
  std::vector<BlockStart> starts;
  if (!plan.root().nodes.empty()) starts.push_back(BlockStart{-1, plan.root().nodes[0]});
  for (const NodePlan& node : plan.nodes()) {
    for (int b : node.blocks) {
      const BlockPlan& block = plan.blocks()[b];
      if (!block.nodes.empty()) starts.push_back(BlockStart{node.id, block.nodes[0]});
    }
  }
  return starts;
}

void Compensate(Report& report, const TimerCost& timer, const std::vector<BlockStart>& blocks) {
  // A node's inclusive time holds the outer cost of every execution and
  // block entry nested in it, at any depth (a Loop's time holds its body's
  // entries and children's reads, and their children's), and the run holds
  // every execution's and entry's. Children come after their parent in id
  // order, so one backward pass counts each node's nested executions.
  const int num_nodes = static_cast<int>(report.nodes.size());
  std::vector<int64_t>& run_ns = report.columns[0].run_total;
  std::vector<int64_t> nested(num_nodes), nested_blocks(num_nodes);
  auto calls_in = [&](int id, size_t r) -> int64_t {
    if (id < 0 || id >= num_nodes) return 0;
    const std::vector<int64_t>& calls = report.nodes[id].calls;
    return r < calls.size() ? calls[r] : 0;
  };
  for (size_t r = 0; r < run_ns.size(); ++r) {
    std::fill(nested.begin(), nested.end(), 0);
    std::fill(nested_blocks.begin(), nested_blocks.end(), 0);
    int64_t all = 0, all_blocks = 0;
    for (const BlockStart& block : blocks) {
      const int64_t entries = calls_in(block.first, r);
      all_blocks += entries;
      if (block.owner >= 0 && block.owner < num_nodes) nested_blocks[block.owner] += entries;
    }
    for (int id = num_nodes - 1; id >= 0; --id) {
      NodeRecord& node = report.nodes[id];
      const int64_t calls = calls_in(id, r);
      all += calls;
      const int parent = node.identity.parent;
      if (parent >= 0 && parent < id) {
        nested[parent] += nested[id] + calls;
        nested_blocks[parent] += nested_blocks[id];
      }
      if (r >= node.metrics[0].total.size()) continue;
      int64_t& total = node.metrics[0].total[r];
      total -= std::llround(timer.inner_ns * static_cast<double>(calls) +
                            timer.per_execution_ns * static_cast<double>(nested[id]) +
                            timer.per_block_ns * static_cast<double>(nested_blocks[id]));
      total = std::max<int64_t>(total, 0);
    }
    // The run is timed like a node: its own start read lands inside it.
    run_ns[r] = std::max<int64_t>(
        run_ns[r] - std::llround(timer.inner_ns + timer.per_execution_ns * static_cast<double>(all) +
                                 timer.per_block_ns * static_cast<double>(all_blocks)),
        0);
  }
  report.timer_overhead_ns = timer.per_execution_ns;
  report.timer_inner_ns = timer.inner_ns;
  report.timer_block_ns = blocks.empty() ? 0 : timer.per_block_ns;
  report.compensated = true;
}

absl::StatusOr<Report> Profile(std::shared_ptr<const GraphPlan> plan,
                               const std::vector<c10::IValue>& inputs, const ProfileOptions& options,
                               c10::IValue* output) {
  absl::StatusOr<std::unique_ptr<ProfileRunner>> created = ProfileRunner::Create(std::move(plan), inputs, options);
  if (!created.ok()) return created.status();
  ProfileRunner& runner = **created;
  if (absl::Status warm = runner.Warmup(); !warm.ok()) return warm;
  if (absl::Status inspected = runner.Inspect(); !inspected.ok()) return inspected;
  if (!options.adaptive.enabled) {
    for (int i = 0; i < options.runs; ++i) {
      absl::Status timed = runner.TimedRun(i + 1 == options.runs ? output : nullptr);
      if (!timed.ok()) return timed;
    }
    return runner.Finish();
  }
  // --runs=auto: until the intervals are narrow, the budget is spent, or `runs` runs.
  const auto start = std::chrono::steady_clock::now();
  const ProfileOptions::Adaptive& a = options.adaptive;
  std::string why = absl::StrCat("the most runs (", runner.timed_runs_wanted(), ")");
  std::vector<std::string> wide;
  for (int i = 0; i < runner.timed_runs_wanted(); ++i) {
    absl::Status timed = runner.TimedRun(output);
    if (!timed.ok()) return timed;
    const int done = i + 1;
    // The budget after every run (a run of 30 s with --max_time=60 stops
    // after two, not after min_runs); the intervals every few runs.
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent >= a.max_time_s) {
      why = absl::StrFormat("the time budget (%.3g s) is spent", a.max_time_s);
      if (done < a.min_runs) absl::StrAppend(&why, ", before ", a.min_runs, " runs");
      break;
    }
    if (done < a.min_runs || (done - a.min_runs) % 5 != 0) continue;
    if (a.stop) {
      absl::StatusOr<Report> so_far = runner.Snapshot();
      if (!so_far.ok()) return so_far.status();
      if (std::optional<std::string> reason = a.stop(*so_far); reason.has_value()) {
        why = *std::move(reason);
        break;
      }
      continue;
    }
    wide.clear();
    if (runner.Converged(a.width, &wide)) {
      why = absl::StrFormat(
          "the 95%% intervals of the median run time and of the top-level nodes holding 80%% of it were each "
          "narrower than %.3g%% of their median",
          100 * a.width);
      break;
    }
  }
  absl::StatusOr<Report> report = runner.Finish();
  if (!report.ok()) return report;
  wide.clear();
  if (!a.stop) runner.Converged(a.width, &wide);  // the caller's rule: its own verdicts say what is open
  std::string note = absl::StrCat("--runs=auto: ", report->runs, " timed runs, stopped when ", why);
  if (!wide.empty()) {
    constexpr size_t kListed = 8;
    std::vector<std::string> shown(wide.begin(), wide.begin() + std::min(wide.size(), kListed));
    absl::StrAppend(&note, absl::StrFormat("; still wider than %.3g%% (inconclusive in a diff): ", 100 * a.width),
                    absl::StrJoin(shown, ", "), wide.size() > kListed ? absl::StrCat(" and ", wide.size() - kListed, " more") : "");
  }
  report->notes.push_back(note);
  return report;
}

}  // namespace graphprof
