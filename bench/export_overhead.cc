// What profiling costs on a torch.export program (.pt2), against the same
// model as TorchScript, side by side in one process. An exported program
// has no executor of its own in LibTorch (NativeRT is 2.8+ and internal), so
// its unprofiled baseline is graphprof's plain Interpreter over the
// program's graph; the TorchScript copy gives the bounds profiling keeps
// there (profiled / interpreter, and / module.forward).
//
//   bench/export_overhead.sh [--rounds=N]      (makes the pairs, then runs this)
//   bazel-bin/bench/export_overhead --pairs=NAME=PROGRAM.pt2:SCRIPT.pt[,...] [--rounds=N]
//
// Candidates, interleaved (bench_util.h): the script's module.forward, the
// Interpreter and the ProfilingInterpreter (TSC, trace events, as Profile()
// runs it) on the script's graph and on the program's graph, every one on
// the program's example inputs. Per pair it prints each median as a ratio to
// module.forward, profiled / interpreter for each form, and the profiler's
// cost per node execution for each form (the median of paired differences
// of rounds, profiled - interpreter, over node executions). The last line:
//   export_overhead <name>: program_profiled/interpreter=<p> script_profiled/interpreter=<s>
//     program_interpreter/native=<i> ...   (one such line per pair)
#include <torch/script.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "bench/bench_util.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/export/exported_program.h"
#include "ir/prepared_graph.h"
#include "profilers/profiler.h"
#include "profilers/profiling_interpreter.h"
#include "profilers/time_source.h"

ABSL_FLAG(std::string, pairs, "", "NAME=PROGRAM.pt2:SCRIPT.pt[,...]: each program with the TorchScript of its model");
ABSL_FLAG(int, rounds, 100, "timed rounds per pair");

namespace graphprof {
namespace {

[[noreturn]] void Fail(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "export_overhead: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

std::shared_ptr<const GraphPlan> Plan(const std::string& what, absl::StatusOr<PreparedGraph> prepared) {
  if (!prepared.ok()) Fail(what, prepared.status());
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*prepared);
  if (!plan.ok()) Fail(what, plan.status());
  return *std::move(plan);
}

// Node executions per run, and the profiled per-node cost over the plain
// interpreter (the median of paired differences, per execution).
double PerExecutionNs(const ProfilingInterpreter& profiled, int warmup, const BenchmarkRow& with,
                      const BenchmarkRow& without, double* executions) {
  const Report report = BuildReport(profiled, warmup);
  *executions = static_cast<double>(report.executions_per_run());
  return bench::MedianPairedDifferenceNs(with, without) / *executions;
}

void Measure(const std::string& name, const std::string& program_path, const std::string& script_path, int rounds) {
  constexpr int kWarmup = 5;
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(program_path);
  if (!program.ok()) Fail(program_path, program.status());
  std::vector<c10::IValue> inputs;
  if (program->example_inputs) {
    inputs = *program->example_inputs;
  } else if (program->reference) {
    inputs = program->reference->inputs;
  } else {
    Fail(program_path, absl::InvalidArgumentError("the archive has no example inputs"));
  }
  const std::shared_ptr<const GraphPlan> program_plan = Plan(program_path, std::move(program->prepared));
  torch::jit::Module module = torch::jit::load(script_path);
  module.eval();
  const std::shared_ptr<const GraphPlan> script_plan = Plan(script_path, PrepareMethod(module));

  std::shared_ptr<TimeSource> tsc = *MakeTimeSource("tsc");
  Interpreter script_interpreter(script_plan);
  Interpreter program_interpreter(program_plan);
  ProfilingInterpreter script_profiled(script_plan, tsc);
  ProfilingInterpreter program_profiled(program_plan, tsc);
  const int calls = kWarmup + rounds;
  script_profiled.BeginTimedRuns(calls, script_plan->nodes().size() * static_cast<size_t>(calls) * 4);
  program_profiled.BeginTimedRuns(calls, program_plan->nodes().size() * static_cast<size_t>(calls) * 4);
  const std::vector<BenchmarkRow> t = bench::TimeSideBySide(
      {
          bench::Candidate("native", [&] { module.forward(inputs); }),
          bench::Candidate("script_interpreter", [&] { (void)script_interpreter.Run(inputs); }),
          bench::Candidate("script_profiled", [&] { (void)script_profiled.Run(inputs); }),
          bench::Candidate("program_interpreter", [&] { (void)program_interpreter.Run(inputs); }),
          bench::Candidate("program_profiled", [&] { (void)program_profiled.Run(inputs); }),
      },
      kWarmup, rounds);
  script_profiled.EndRecording();
  program_profiled.EndRecording();
  const double native = t[0].forward_ns.median;
  auto ratio = [&](int i, double base) { return t[i].forward_ns.median / base; };
  double script_exec = 0, program_exec = 0;
  const double script_ns = PerExecutionNs(script_profiled, kWarmup, t[2], t[1], &script_exec);
  const double program_ns = PerExecutionNs(program_profiled, kWarmup, t[4], t[3], &program_exec);
  std::printf(
      "%-10s native=%9.1f us  script: nodes=%zu exec=%.0f interpreter=%.3f profiled=%.3f  "
      "program: nodes=%zu exec=%.0f interpreter=%.3f profiled=%.3f\n"
      "%-10s per node execution: script %.1f ns, program %.1f ns\n",
      name.c_str(), native / 1e3, script_plan->nodes().size(), script_exec, ratio(1, native), ratio(2, native),
      program_plan->nodes().size(), program_exec, ratio(3, native), ratio(4, native), "", script_ns, program_ns);
  std::printf(
      "export_overhead %s: program_profiled/interpreter=%.3f script_profiled/interpreter=%.3f "
      "program_interpreter/native=%.3f program_ns_per_node=%.1f script_ns_per_node=%.1f\n",
      name.c_str(), ratio(4, t[3].forward_ns.median), ratio(2, t[1].forward_ns.median), ratio(3, native), program_ns,
      script_ns);
  std::fflush(stdout);
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  const std::string pairs = absl::GetFlag(FLAGS_pairs);
  if (pairs.empty()) {
    std::fprintf(stderr, "export_overhead: --pairs=NAME=PROGRAM.pt2:SCRIPT.pt[,...] is required\n");
    return 2;
  }
  for (absl::string_view pair : absl::StrSplit(pairs, ',')) {
    std::vector<std::string> name_files = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    std::vector<std::string> files =
        name_files.size() == 2 ? absl::StrSplit(name_files[1], ':') : std::vector<std::string>{};
    if (files.size() != 2) {
      std::fprintf(stderr, "export_overhead: --pairs: '%s' is not NAME=PROGRAM.pt2:SCRIPT.pt\n",
                   std::string(pair).c_str());
      return 2;
    }
    graphprof::Measure(name_files[0], files[0], files[1], absl::GetFlag(FLAGS_rounds));
  }
  return 0;
}
