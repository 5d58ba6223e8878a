// What profiling costs, side by side in one process: native module.forward,
// the plain Interpreter, the ProfilingInterpreter (per-node timing with trace
// events, as Profile() runs it) with each clock (TSC and steady_clock), and
// LibTorch's own profiler (Kineto/autograd profiler, CPU activities, what
// torch.profiler uses) around module.forward.
//
//   ./bazelw run -c opt //bench:profiler_overhead [-- --rounds=N]
//
// Per workload it prints the ratios of medians to native, and the timer's
// cost per node execution for each clock ((profiled - interpreter) / node
// executions: the median of differences of rounds run side by side, and the
// difference of medians), with trace events, and for the TSC without them. For control_flow (small ops under loops and ifs) it also
// prints how close the compensated profile comes to the plain interpreter:
// the sum of top-level nodes' compensated times over the interpreter's
// median run time. The last line is
//   ratio_vs_native resnet18=<x> tiny1000=<y> autograd_tiny1000=<z> coverage_resnet18=<c>
//     tsc_ns_per_node=<t> steady_ns_per_node=<s> control_flow_compensated=<q>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/script.h>

#include <cstdio>

#include "absl/flags/flag.h"
#include "bench/bench_util.h"
#include "bench/zoo_workload.h"
#include "interpreter/interpreter.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/time_source.h"

ABSL_FLAG(int, rounds, 0, "timed rounds per workload (0: 60 for resnet18, 300 for the others)");

namespace graphprof {
namespace {

namespace prof = torch::autograd::profiler;

void EnableAutogradProfiler() {
  prof::enableProfiler(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::KINETO),
                       {torch::profiler::impl::ActivityType::CPU});
}

void DisableAutogradProfiler() { prof::disableProfiler(); }

struct Result {
  double native_ns, interpreter_ns, tsc_ns, steady_ns, autograd_ns, coverage;
  double tsc_per_node, steady_per_node, compensated_ratio, untraced_per_node;
};

Result Measure(const std::string& zoo_name, int rounds) {
  constexpr int kWarmup = 5;
  bench::ZooWorkload w = bench::LoadZooWorkload(zoo_name);
  const std::vector<c10::IValue>& inputs = w.inputs;
  torch::jit::Module& module = w.module;
  Interpreter interpreter(w.plan);
  std::shared_ptr<TimeSource> tsc = *MakeTimeSource("tsc");
  std::shared_ptr<TimeSource> steady = *MakeTimeSource("steady");
  ProfilingInterpreter tsc_profiler(w.plan, tsc);
  ProfilingInterpreter steady_profiler(w.plan, steady);
  ProfilingInterpreter untraced_profiler(w.plan, tsc);
  const int calls = kWarmup + rounds;
  const size_t events = w.plan->nodes().size() * static_cast<size_t>(calls) * 4;
  tsc_profiler.BeginTimedRuns(calls, events);
  steady_profiler.BeginTimedRuns(calls, events);
  untraced_profiler.BeginTimedRuns(calls, 0);

  const std::vector<BenchmarkRow> times = bench::TimeSideBySide(
      {
          bench::Candidate("native", [&] { module.forward(inputs); }),
          bench::Candidate("interpreter", [&] { (void)interpreter.Run(inputs); }),
          bench::Candidate("profiling_tsc", [&] { (void)tsc_profiler.Run(inputs); }),
          bench::Candidate("profiling_steady", [&] { (void)steady_profiler.Run(inputs); }),
          bench::Candidate("profiling_tsc_untraced", [&] { (void)untraced_profiler.Run(inputs); }),
          bench::Candidate("autograd", [&] { module.forward(inputs); }, EnableAutogradProfiler,
                           DisableAutogradProfiler),
      },
      kWarmup, rounds);
  std::vector<double> ns;
  for (const BenchmarkRow& t : times) ns.push_back(t.forward_ns.median);
  tsc_profiler.EndRecording();
  steady_profiler.EndRecording();
  untraced_profiler.EndRecording();
  const TimerCost timer = MeasureTimerCost(tsc, /*trace=*/true);
  const Report report = BuildReport(tsc_profiler, kWarmup, timer, /*compensate=*/true);
  const double executions = static_cast<double>(report.executions_per_run());
  // Sum of top-level nodes' compensated times, median over runs.
  std::vector<int64_t> top_level(report.runs, 0);
  for (const NodeRecord& node : report.nodes) {
    if (node.identity.parent >= 0) continue;
    for (int r = 0; r < report.runs; ++r) top_level[r] += node.time().total[r];
  }
  std::sort(top_level.begin(), top_level.end());
  const double compensated_median = top_level.empty() ? 0 : static_cast<double>(top_level[top_level.size() / 2]);
  // Per-node cost from differences of rounds run side by side (slow phases
  // of the machine cancel out); the difference of medians is printed too.
  Result result{ns[0],
                ns[1],
                ns[2],
                ns[3],
                ns[5],
                report.coverage(),
                bench::MedianPairedDifferenceNs(times[2], times[1]) / executions,
                bench::MedianPairedDifferenceNs(times[3], times[1]) / executions,
                compensated_median / ns[1],
                bench::MedianPairedDifferenceNs(times[4], times[1]) / executions};
  std::printf(
      "%-12s nodes=%-5zu exec=%-5.0f native=%9.1f us  interpreter=%.3f  profiling_tsc=%.3f  profiling_steady=%.3f  "
      "autograd_profiler=%.3f  coverage=%.4f  compensated/interpreter=%.4f\n"
      "%-12s per node: tsc %.1f ns (medians %.1f)  steady %.1f ns (medians %.1f)  tsc without trace %.1f ns  "
      "start-up measurement: tsc %.1f ns, inner %.1f ns\n",
      zoo_name.c_str(), w.plan->nodes().size(), executions, ns[0] / 1e3, ns[1] / ns[0], ns[2] / ns[0], ns[3] / ns[0],
      ns[5] / ns[0], result.coverage, result.compensated_ratio, "", result.tsc_per_node,
      (ns[2] - ns[1]) / executions, result.steady_per_node, (ns[3] - ns[1]) / executions, result.untraced_per_node,
      timer.per_execution_ns,
      timer.inner_ns);
  std::fflush(stdout);
  return result;
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const graphprof::Result resnet = graphprof::Measure("resnet18", rounds > 0 ? rounds : 60);
  const graphprof::Result tiny = graphprof::Measure("tiny1000", rounds > 0 ? rounds : 300);
  const graphprof::Result control = graphprof::Measure("control_flow", rounds > 0 ? rounds : 300);
  std::printf(
      "ratio_vs_native resnet18=%.3f tiny1000=%.3f autograd_tiny1000=%.3f coverage_resnet18=%.4f "
      "tsc_ns_per_node=%.1f steady_ns_per_node=%.1f control_flow_compensated=%.4f\n",
      resnet.tsc_ns / resnet.native_ns, tiny.tsc_ns / tiny.native_ns, tiny.autograd_ns / tiny.native_ns,
      resnet.coverage, tiny.tsc_per_node, tiny.steady_per_node, control.compensated_ratio);
  return 0;
}
