// What profiling costs, side by side in one process: native module.forward,
// the plain Interpreter, the ProfilingInterpreter (per-node timing with trace
// events, as Profile() runs it) and LibTorch's own profiler (Kineto/autograd
// profiler, CPU activities, what torch.profiler uses) around module.forward.
//
//   ./bazelw run -c opt //bench:profiler_overhead [-- --rounds=N]
//
// The last line is
//   ratio_vs_native resnet18=<x> tiny1000=<y> autograd_tiny1000=<z> coverage_resnet18=<c>
// where x and y are the ProfilingInterpreter's median time over native's, z is
// the autograd profiler's on tiny1000, and c is the fraction of resnet18's run
// time the profiler attributes to top-level nodes.
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/script.h>

#include <cstdio>

#include "absl/flags/flag.h"
#include "bench/bench_util.h"
#include "bench/zoo_workload.h"
#include "interpreter/interpreter.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"

ABSL_FLAG(int, rounds, 0, "timed rounds per workload (0: 60 for resnet18, 300 for tiny1000)");

namespace graphprof {
namespace {

namespace prof = torch::autograd::profiler;

void EnableAutogradProfiler() {
  prof::enableProfiler(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::KINETO),
                       {torch::profiler::impl::ActivityType::CPU});
}

void DisableAutogradProfiler() { prof::disableProfiler(); }

struct Result {
  double native_ns, interpreter_ns, profiling_ns, autograd_ns, coverage;
};

Result Measure(const std::string& zoo_name, int rounds) {
  constexpr int kWarmup = 5;
  bench::ZooWorkload w = bench::LoadZooWorkload(zoo_name);
  const std::vector<c10::IValue>& inputs = w.inputs;
  torch::jit::Module& module = w.module;
  Interpreter interpreter(w.plan);
  ProfilingInterpreter profiler(w.plan);
  const int calls = kWarmup + rounds;
  profiler.BeginTimedRuns(calls, w.plan->nodes().size() * static_cast<size_t>(calls));

  std::vector<double> ns = bench::MedianTimesNs(
      {
          bench::Candidate("native", [&] { module.forward(inputs); }),
          bench::Candidate("interpreter", [&] { (void)interpreter.Run(inputs); }),
          bench::Candidate("profiling", [&] { (void)profiler.Run(inputs); }),
          bench::Candidate("autograd", [&] { module.forward(inputs); }, EnableAutogradProfiler,
                           DisableAutogradProfiler),
      },
      kWarmup, rounds);
  profiler.EndRecording();
  const double coverage = BuildReport(profiler, kWarmup, 0).coverage();
  std::printf(
      "%-9s nodes=%-5zu native=%9.1f us  interpreter=%9.1f us (%.3f)  profiling=%9.1f us (%.3f)  "
      "autograd_profiler=%9.1f us (%.3f)  coverage=%.4f\n",
      zoo_name.c_str(), w.plan->nodes().size(), ns[0] / 1e3, ns[1] / 1e3, ns[1] / ns[0], ns[2] / 1e3,
      ns[2] / ns[0], ns[3] / 1e3, ns[3] / ns[0], coverage);
  return Result{ns[0], ns[1], ns[2], ns[3], coverage};
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const graphprof::Result resnet = graphprof::Measure("resnet18", rounds > 0 ? rounds : 60);
  const graphprof::Result tiny = graphprof::Measure("tiny1000", rounds > 0 ? rounds : 300);
  std::printf("ratio_vs_native resnet18=%.3f tiny1000=%.3f autograd_tiny1000=%.3f coverage_resnet18=%.4f\n",
              resnet.profiling_ns / resnet.native_ns, tiny.profiling_ns / tiny.native_ns,
              tiny.autograd_ns / tiny.native_ns, resnet.coverage);
  return 0;
}
