// The profiler's own cost on an AOTInductor package: a plain run of the
// package (a fresh copy of its inputs, CompiledProgram::Run) against a
// profiled one (CompiledRunner::TimedRun: the same, with the kernel-scope
// recorder on and the run cut into rows), side by side in one process,
// interleaved with rotating order (bench_util.h).
//
//   compiled_overhead --model=m.aoti.pt2 [--rounds=N] [--warmup=N]
//
// Built by CMake on LibTorch 2.6 (target compiled_overhead, not built by
// default); bench/compiled_overhead.sh runs it on torchvision packages in
// the Debian 13 root. The last line is
//   ratio_profiled_vs_plain <x>
// the profiled run's median time over the plain run's, and the median of
// the per-step differences (what profiling adds to a run, machine phases
// cancelled).
#include <torch/script.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bench/bench_util.h"
#include "ir/ivalue_util.h"
#include "profilers/compiled/compiled_profile.h"
#include "sources/model_source.h"

ABSL_FLAG(std::string, model, "", "an AOTInductor package written by graphprof.compile_aoti");
ABSL_FLAG(int, rounds, 60, "timed steps per candidate");
ABSL_FLAG(int, warmup, 5, "untimed steps per candidate first");

namespace graphprof {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "compiled_overhead: %s\n", what.c_str());
  std::exit(1);
}

int Main() {
  const std::string path = absl::GetFlag(FLAGS_model);
  if (path.empty()) Die("give --model=PACKAGE");
  absl::StatusOr<std::unique_ptr<ModelSource>> source = OpenModelSource(path, SourceRequest{});
  if (!source.ok()) Die(std::string(source.status().message()));
  CompiledProgram* program = (*source)->compiled();
  if (program == nullptr) Die(path + ": not an AOTInductor package");
  absl::StatusOr<SuppliedInputs> supplied = (*source)->SupplyInputs(0);
  if (!supplied.ok()) Die(std::string(supplied.status().message()));
  std::string note;
  absl::StatusOr<std::vector<c10::IValue>> inputs = (*source)->CompleteInputs(supplied->values, &note);
  if (!inputs.ok()) Die(std::string(inputs.status().message()));

  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const int warmup = absl::GetFlag(FLAGS_warmup);
  ProfileOptions options;
  options.warmup = 0;
  options.runs = rounds + warmup + 1;  // every step a timed run; its buffers sized up front
  absl::StatusOr<std::unique_ptr<CompiledRunner>> runner = CompiledRunner::Create(*program, *inputs, options);
  if (!runner.ok()) Die(std::string(runner.status().message()));

  auto plain = [&] {
    absl::StatusOr<std::vector<c10::IValue>> fresh = CopyInputs(*inputs);
    if (!fresh.ok() || !program->Run(*fresh).ok()) Die("a plain run failed");
  };
  auto profiled = [&] {
    if (absl::Status done = (*runner)->TimedRun(); !done.ok()) Die(std::string(done.message()));
  };
  const std::vector<BenchmarkRow> rows =
      bench::TimeSideBySide({bench::Candidate("plain", plain), bench::Candidate("profiled", profiled)}, warmup, rounds);
  const double plain_ns = rows[0].forward_ns.median, profiled_ns = rows[1].forward_ns.median;
  std::printf("%s rows=%zu plain=%.1f us profiled=%.1f us paired_difference=%.1f us\n", path.c_str(),
              program->plan().rows().size(), plain_ns / 1e3, profiled_ns / 1e3,
              bench::MedianPairedDifferenceNs(rows[1], rows[0]) / 1e3);
  std::printf("ratio_profiled_vs_plain %.4f\n", profiled_ns / plain_ns);
  return 0;
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return graphprof::Main();
}
