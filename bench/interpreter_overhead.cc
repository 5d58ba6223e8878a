// Native module.forward vs Interpreter::Run, side by side in one process.
//
//   ./bazelw run -c opt //bench:interpreter_overhead [-- --rounds=N]
//
// Workloads: zoo resnet18 on 1x3x224x224 and tiny1000 (1000 chained x = x + 1
// on a 1-element tensor), one intra-op thread, no grad. The last line is
//   ratio_vs_native resnet18=<x> tiny1000=<y>
// where a ratio is the interpreter's median time over native's.
#include <torch/script.h>

#include <cstdio>

#include "absl/flags/flag.h"
#include "bench/bench_util.h"
#include "bench/zoo_workload.h"
#include "interpreter/interpreter.h"

ABSL_FLAG(int, rounds, 0, "timed rounds per workload (0: 30 for resnet18, 300 for tiny1000)");

namespace graphprof {
namespace {

double Compare(const std::string& zoo_name, int rounds) {
  bench::ZooWorkload w = bench::LoadZooWorkload(zoo_name);
  Interpreter interpreter(w.plan);
  const std::vector<c10::IValue>& inputs = w.inputs;
  torch::jit::Module& module = w.module;
  std::vector<double> ns = bench::MedianTimesNs(
      {bench::Candidate("native", [&] { module.forward(inputs); }),
       bench::Candidate("interpreter", [&] { (void)interpreter.Run(inputs); })},
      /*warmup=*/5, rounds);
  const double ratio = ns[1] / ns[0];
  std::printf("%-10s nodes=%-5zu native=%10.1f us  interpreter=%10.1f us  ratio=%.3f\n",
              zoo_name.c_str(), w.plan->nodes().size(), ns[0] / 1e3, ns[1] / 1e3, ratio);
  return ratio;
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const double resnet = graphprof::Compare("resnet18", rounds > 0 ? rounds : 30);
  const double tiny = graphprof::Compare("tiny1000", rounds > 0 ? rounds : 300);
  std::printf("ratio_vs_native resnet18=%.3f tiny1000=%.3f\n", resnet, tiny);
  return 0;
}
