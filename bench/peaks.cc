// The roofline's ceilings on this machine, and what a GEMM node reaches
// against them (issue: FLOPs, bytes and the roofline).
//
//   ./bazelw run -c opt //bench:peaks
//   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 bazel-bin/bench/peaks
//                                    # an optimized BLAS without switching
//                                    # the system's libblas.so.3 alternative
//
// For each thread count (1 and every core): the FMA peak, the triad's
// bandwidth at each working set, a GEMM and a convolution through LibTorch
// (profilers/work/peaks.h measures all of them; nothing is cached here), then
// a 1024x1024x1024 aten::mm node profiled like any node: its GFLOP/s, the
// share of the FMA peak and of attainable, and the BLAS LibTorch's sgemm_
// resolved to. With an optimized BLAS the node should reach half the peak.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/bench_util.h"
#include "interpreter/graph_plan.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"
#include "profilers/machine.h"
#include "profilers/profiler.h"
#include "profilers/report/roofline.h"
#include "profilers/report/views.h"
#include "profilers/work/peaks.h"

ABSL_FLAG(int, n, 1024, "the GEMM node's size (n x n by n x n)");
ABSL_FLAG(int, runs, 10, "timed runs of the GEMM node");

namespace graphprof {
namespace {

std::string Ladder(const std::vector<BandwidthLevel>& levels) {
  std::vector<std::string> parts;
  for (const BandwidthLevel& level : levels) {
    parts.push_back(level.bytes >= (1 << 20) ? absl::StrFormat("%dM %.1f", level.bytes >> 20, level.gbps)
                                             : absl::StrFormat("%dK %.1f", level.bytes >> 10, level.gbps));
  }
  return absl::StrJoin(parts, ", ");
}

void Measure(int threads) {
  at::set_num_threads(threads);
  const bool blas_threads_set = MatchBlasThreads(threads);
  const Machine machine = DescribeMachine();
  const double fma = FmaPeakGflops(threads);
  bool steady = false;
  const std::vector<BandwidthLevel> bandwidth = BandwidthLadder(threads, &steady);
  const double gemm = GemmGflops();
  const double conv = ConvGflops();
  std::printf("threads %d (BLAS threads %d%s)\n", threads, machine.blas_threads,
              blas_threads_set ? ", set to match" : ", the library does not say or set them");
  std::printf("  machine   FMA peak %.1f GFLOP/s; triad GB/s by working set: %s%s\n", fma, Ladder(bandwidth).c_str(),
              steady ? "" : " (repeats disagreed by over 10%)");
  std::printf("  LibTorch  GEMM (at::mm, best of 128..1024) %.1f GFLOP/s = %.0f%% of the FMA peak; conv (oneDNN) %.1f "
              "GFLOP/s = %.0f%%\n",
              gemm, 100 * gemm / fma, conv, 100 * conv / fma);

  // The same GEMM as a node of a profiled graph.
  const int n = absl::GetFlag(FLAGS_n);
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph =
      ParseGraph("graph(%a : Tensor, %b : Tensor):\n  %c : Tensor = aten::mm(%a, %b)\n  return (%c)\n");
  absl::StatusOr<PreparedGraph> prepared = PrepareGraph(**graph, "gemm");
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
  if (!plan.ok()) {
    std::fprintf(stderr, "plan: %s\n", plan.status().ToString().c_str());
    std::exit(1);
  }
  ProfileOptions options;
  options.warmup = 2;
  options.runs = absl::GetFlag(FLAGS_runs);
  options.trace = false;
  absl::StatusOr<Report> report = Profile(*plan, {torch::randn({n, n}), torch::randn({n, n})}, options);
  if (!report.ok()) {
    std::fprintf(stderr, "profile: %s\n", report.status().ToString().c_str());
    std::exit(1);
  }
  report->machine = machine;
  Ceilings ceilings;
  ceilings.peak_gflops = fma;
  ceilings.peak_gbps = bandwidth.back().gbps;
  ceilings.bandwidth = bandwidth;
  ceilings.threads = threads;
  report->ceilings = ceilings;
  absl::StatusOr<View> nodes = MakeView(*report, ViewOptions{GroupBy::kNode, "", 0});
  for (const ViewRow& row : nodes->rows) {
    if (row.kind != "aten::mm") continue;
    const RooflinePoint p = RooflineOf(*report, row);
    std::printf("  node      aten::mm %dx%d by %dx%d: %.1f GFLOP/s = %.0f%% of the FMA peak, %.0f%% of attainable (%s)\n",
                n, n, n, n, p.gflops, 100 * p.gflops / fma, 100 * p.fraction, p.bound);
  }
  const std::string note = BlasNote(*report);
  std::printf("  BLAS      %s%s%s%s%s\n", machine.blas.c_str(), machine.blas_core.empty() ? "" : ", kernels ",
              machine.blas_core.c_str(), note.empty() ? "" : "\n  note      ", note.c_str());
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  const graphprof::Machine machine = graphprof::DescribeMachine();
  std::printf("%s, %d cores, LibTorch %s\n", machine.cpu.c_str(), machine.cores, machine.libtorch.c_str());
  std::vector<int> counts = {1};
  if (machine.cores > 1) counts.push_back(machine.cores);
  for (int threads : counts) graphprof::Measure(threads);
  return 0;
}
