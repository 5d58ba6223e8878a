// Fuzzes the --compare path: the bytes are the saved base report; what loads
// is diffed against a small valid current report and rendered as text and
// JSON, as profile_graph --compare does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const graphprof::Report& current = Current();
  const std::string json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphprof::Report> base = graphprof::ReportFromJson(json);
  if (!base.ok()) return 0;
  for (bool all : {false, true}) {
    graphprof::DiffOptions options;
    options.include_unexecuted = all;
    graphprof::ReportDiff diff = graphprof::DiffReports(*base, current, options);
    std::string text = graphprof::RenderDiff(diff, all ? 0 : 20);
    text += graphprof::DiffToJson(diff);
    text += graphprof::DiffToCsv(diff);
  }
  return 0;
}
