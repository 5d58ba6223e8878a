// Fuzzes what reads two reports: --compare, `merge` and `check`. The bytes
// are the base report, or two reports separated by kSeparator (the second
// then replaces the small valid current report below). What loads is diffed
// and rendered as text, JSON and CSV, as profile_graph --compare does;
// merged in both orders, the merged report rendered and read back (the
// reader must accept what merge writes); and gated as `profile_graph check`
// gates, with and without accepting another graph or inputs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "profilers/report/gate.h"
#include "profilers/report/merge.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"

namespace {

// A two-node report of graph(%x): relu then add, three timed runs.
constexpr char kCurrent[] = R"json({
  "schema_version": 2, "model": "fuzz", "clock": "steady_clock", "runs": 3, "warmup": 1,
  "timer_overhead_ns": 50, "run_ns": [1000, 1100, 900],
  "metrics": [{"name": "time", "unit": "ns", "recorded": "inclusive", "run_total": [1000, 1100, 900]}],
  "nodes": [
    {"id": 0, "parent": -1, "depth": 0, "name": "relu", "kind": "aten::relu", "module": "",
     "source": "", "input_shapes": "f32[4]", "output_shapes": "f32[4]",
     "calls": [1, 1, 1], "total_ns": [400, 450, 350]},
    {"id": 1, "parent": -1, "depth": 0, "name": "add", "kind": "aten::add", "module": "block",
     "source": "", "input_shapes": "f32[4], f32[4], int", "output_shapes": "f32[4]",
     "calls": [1, 1, 1], "total_ns": [300, 350, 250]}
  ]
})json";

const graphprof::Report& Current() {
  static const graphprof::Report* report = [] {
    absl::StatusOr<graphprof::Report> parsed = graphprof::ReportFromJson(kCurrent);
    if (!parsed.ok()) __builtin_trap();  // the fixed report must load
    return new graphprof::Report(*std::move(parsed));
  }();
  return *report;
}

constexpr char kSeparator[] = "\n--graphprof-next-report--\n";

void Merge(const graphprof::Report& a, const graphprof::Report& b) {
  graphprof::ReportMerger merger;
  if (!merger.Add(a, "a").ok() || !merger.Add(b, "b").ok()) return;
  absl::StatusOr<graphprof::Report> merged = merger.Finish();
  if (!merged.ok()) return;
  std::string text = graphprof::RenderSummary(*merged);
  // What merge writes, the reader takes back.
  if (!graphprof::ReportFromJson(graphprof::ReportToJson(*merged)).ok()) __builtin_trap();
}

void Gate(const graphprof::Report& base, const graphprof::Report& current) {
  for (bool allow : {false, true}) {
    graphprof::GateOptions options;
    options.fail_on = {"total", "module", "node"};
    options.allow_graph_change = options.allow_input_change = allow;
    absl::StatusOr<graphprof::GateResult> gate = graphprof::RunGate(base, current, options);
    if (gate.ok()) std::string text = graphprof::RenderDiff(gate->diff, 5);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find(kSeparator);
  absl::StatusOr<graphprof::Report> base = graphprof::ReportFromJson(input.substr(0, split));
  if (!base.ok()) return 0;
  std::optional<absl::StatusOr<graphprof::Report>> second;
  if (split != std::string::npos) {
    second = graphprof::ReportFromJson(input.substr(split + sizeof(kSeparator) - 1));
    if (!second->ok()) return 0;
  }
  const graphprof::Report& current = second.has_value() ? **second : Current();
  for (bool all : {false, true}) {
    graphprof::DiffOptions options;
    options.include_unexecuted = all;
    graphprof::ReportDiff diff = graphprof::DiffReports(*base, current, options);
    std::string text = graphprof::RenderDiff(diff, all ? 0 : 20);
    text += graphprof::DiffToJson(diff);
    text += graphprof::DiffToCsv(diff);
  }
  Merge(*base, current);
  Merge(current, *base);
  Gate(*base, current);
  Gate(current, *base);
  return 0;
}
