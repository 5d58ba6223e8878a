// What profiling a training step costs, side by side in one process, on the
// zoo resnet18 at batch 8 (and the zoo mlp), one intra-op thread:
//
//   native       module.forward, the loss (sum of outputs), backward
//   interpreter  the plain Interpreter instead of module.forward
//   profiled     what Profile(backward) does in a timed run: the
//                ProfilingInterpreter timing every node (with trace events)
//                and recording the autograd sequence numbers each node takes,
//                then backward with every autograd function timed and
//                attributed to its node (BackwardPass)
//
// Gradients are set to None before every step, outside the timed region.
//
//   ./bazelw run -c opt //bench:backward_overhead [-- --rounds=N]
//
// The last line is
//   backward_ratio_vs_native resnet18_b8=<x> mlp=<y> coverage_resnet18_b8=<c>
// where coverage is the share of the profiled backward time inside timed
// autograd functions (Report::CoverageOf for "backward").
#include <ATen/core/grad_mode.h>
#include <torch/script.h>

#include <cstdio>

#include "absl/flags/flag.h"
#include "bench/bench_util.h"
#include "bench/zoo_workload.h"
#include "interpreter/interpreter.h"
#include "profilers/autograd/training_step.h"
#include "profilers/backward_pass.h"
#include "profilers/collected.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/time_source.h"

ABSL_FLAG(int, rounds, 0, "timed rounds per workload (0: 20 for resnet18, 200 for mlp)");

namespace graphprof {
namespace {

struct Result {
  double ratio;     // profiled / native, medians
  double coverage;  // of the profiled backward
};

void Check(const absl::Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
  std::exit(1);
}

Result Measure(const std::string& zoo_name, std::vector<c10::IValue> inputs, int rounds) {
  constexpr int kWarmup = 3;
  bench::ZooWorkload w = bench::LoadZooWorkload(zoo_name);
  if (!inputs.empty()) w.inputs = std::move(inputs);
  const BackwardOptions backward{true, -1};
  const TrainingStep training(w.plan->self(), backward);
  auto step = [&](const std::function<absl::StatusOr<c10::IValue>()>& forward) {
    at::AutoGradMode grad_mode(true);
    absl::StatusOr<c10::IValue> output = forward();
    Check(output.status(), "forward");
    absl::StatusOr<at::Tensor> loss = training.Loss(*output);
    Check(loss.status(), "loss");
    Check(TrainingStep::Backward(*loss), "backward");
  };

  Interpreter interpreter(w.plan);
  std::shared_ptr<TimeSource> clock = DefaultTimeSource();
  ProfilingInterpreter profiler(w.plan, clock);
  profiler.RecordSequences(true);
  const int calls = kWarmup + rounds;
  BackwardPass pass(profiler, clock, backward, calls, /*trace=*/true);
  // The inspection step sizes the backward recorder, as in Profile().
  profiler.BeginInspection(/*memory=*/false);
  pass.BeforeForward(NodeObserver::Phase::kInspection);
  {
    at::AutoGradMode grad_mode(true);
    absl::StatusOr<c10::IValue> output = profiler.Run(w.inputs);
    Check(output.status(), "inspection");
    Check(pass.AfterForward(NodeObserver::Phase::kInspection, 0, *output), "inspection backward");
  }
  profiler.BeginTimedRuns(calls, w.plan->nodes().size() * static_cast<size_t>(calls) * 2);
  int timed_run = 0;

  auto reset = [&] { training.ResetGradients(); };
  std::vector<double> ns = bench::MedianTimesNs(
      {
          bench::Candidate("native", [&] { step([&] { return absl::StatusOr<c10::IValue>(w.module.forward(w.inputs)); }); },
                           reset),
          bench::Candidate("interpreter", [&] { step([&] { return interpreter.Run(w.inputs); }); }, reset),
          bench::Candidate("profiled",
                           [&] {
                             at::AutoGradMode grad_mode(true);
                             absl::StatusOr<c10::IValue> output = profiler.Run(w.inputs);
                             Check(output.status(), "profiled forward");
                             Check(pass.AfterForward(NodeObserver::Phase::kTimed, timed_run++, *output),
                                   "profiled backward");
                           },
                           reset),
      },
      kWarmup, rounds);
  profiler.EndRecording();
  const Report report = BuildReport(profiler, 0);
  Report with_backward = report;
  absl::StatusOr<Collected> collected = pass.Collect(with_backward.runs);
  Check(collected.status(), "backward values");
  Check(InsertCollected(pass.Columns(), *std::move(collected), with_backward), "backward values inserted");
  with_backward.Finalize();
  const double coverage = with_backward.CoverageOf(with_backward.FindMetric("backward"));
  std::printf("%-14s native=%9.1f us  interpreter=%.3f  profiled=%.3f  backward coverage=%.4f\n", zoo_name.c_str(),
              ns[0] / 1e3, ns[1] / ns[0], ns[2] / ns[0], coverage);
  std::fflush(stdout);
  return Result{ns[2] / ns[0], coverage};
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  // InitBenchmark turns gradients off for the process; the steps turn them on.
  const int rounds = absl::GetFlag(FLAGS_rounds);
  torch::manual_seed(0);
  const graphprof::Result resnet =
      graphprof::Measure("resnet18", {torch::randn({8, 3, 224, 224})}, rounds > 0 ? rounds : 20);
  const graphprof::Result mlp = graphprof::Measure("mlp", {}, rounds > 0 ? rounds : 200);
  std::printf("backward_ratio_vs_native resnet18_b8=%.3f mlp=%.3f coverage_resnet18_b8=%.4f\n", resnet.ratio,
              mlp.ratio, resnet.coverage);
  return 0;
}
