#include "tools/command_line.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/interrupt.h"
#include "tools/check_command.h"
#include "tools/flag_parser.h"
#include "tools/merge_command.h"

ABSL_FLAG(std::string, model, "", "TorchScript module file (.pt) saved by torch.jit.save or Module::save");
ABSL_FLAG(std::string, load_library, "",
          "operator libraries (.so) to load before the model, as torch.ops.load_library: comma-separated, and the flag "
          "may be repeated (torchvision's detection models need torchvision's _C extension); also "
          "GRAPHPROF_LOAD_LIBRARIES (':'-separated)");
ABSL_FLAG(bool, allow_side_effects, false,
          "run operators that act outside the process (aten::save writes a file, torch.distributed collectives talk "
          "to other processes): refused by default, as profiling runs the model many times");
ABSL_FLAG(std::string, zoo, "", "built-in model: resnet18 (default), mlp, gcn, transformer, control_flow, tiny1000");
ABSL_FLAG(std::string, ir, "", "file with TorchScript IR text (graph(%x : Tensor): ...)");
ABSL_FLAG(std::string, method, "forward", "method of the module to profile");
ABSL_FLAG(bool, freeze, false, "freeze the module first (torch.jit.freeze; needs eval mode)");
ABSL_FLAG(bool, list_zoo, false, "list the zoo models with their default inputs and exit");
ABSL_FLAG(std::string, passes, "", "LibTorch passes to apply before profiling, in order: freeze,optimize_for_inference,...");
ABSL_FLAG(bool, list_passes, false, "list the passes --passes and --ab accept and exit");
ABSL_FLAG(std::string, ab, "",
          "A/B: profile the module as loaded (A) and after these passes (B), print B and the diff");
ABSL_FLAG(std::string, compare_model, "",
          "the migration diff: profile --model (TorchScript) and this torch.export program (.pt2) of the same model, "
          "interleaved as --ab does, and diff them per node, module and kind with verdicts");
ABSL_FLAG(int, ab_copies, 3,
          "--ab: run each side on this many separately prepared copies of the module (own weights and plan), "
          "timed runs spread over them; the diff takes the copies as its unit of variation (1: one copy a side)");
ABSL_FLAG(double, rtol, 1e-4, "--verify after passes: relative tolerance");
ABSL_FLAG(double, atol, 1e-5, "--verify after passes: absolute tolerance");
ABSL_FLAG(bool, diff_all, false, "diffs (--compare, --ab) also list nodes that never ran");
ABSL_FLAG(double, min_effect, 0.02,
          "diffs: a row whose time changed by less than this fraction is 'same'; beyond it and significant, "
          "'faster' or 'slower'");
ABSL_FLAG(double, alpha, 0.05, "diffs: significance level on Benjamini-Hochberg q-values across each table's rows");
ABSL_FLAG(std::string, input, "",
          "random inputs, comma-separated: 1x3x224x224:float32, 2x5000:int64[0:1000], =3 (an int)");
ABSL_FLAG(std::string, inputs, "", "inputs saved in Python with torch.save(tensor | tuple | list, FILE)");
ABSL_FLAG(uint64_t, seed, 0, "seed for random inputs (and zoo weights)");
ABSL_FLAG(int, warmup, 3, "untimed warm-up runs");
ABSL_FLAG(std::string, runs, "10",
          "timed runs, or auto: until the intervals of the run and of the nodes holding 80% of it are narrower than "
          "--min_effect (at most --max_time seconds of runs)");
ABSL_FLAG(double, max_time, 60, "with --runs=auto: the most seconds spent in timed runs");
ABSL_FLAG(std::string, clock, "",
          "time source: tsc (the CPU's invariant time-stamp counter) or steady (steady_clock); default tsc where "
          "available");
ABSL_FLAG(bool, compensate, true,
          "take the timer's measured cost off the times (each node's own reads, and each child's off its parent and "
          "the run)");
ABSL_FLAG(bool, backward, false,
          "training step: forward with gradients, then backward of the loss; per-node backward time, saved memory, "
          "gradients verified");
ABSL_FLAG(int, loss_output, -1,
          "with --backward: differentiate output K (a one-element tensor) instead of the sum of all floating outputs");
ABSL_FLAG(int, threads, 1, "intra-op threads (at::set_num_threads); memory is measured on one thread");
ABSL_FLAG(std::string, format, "table", "output format: table, csv or json");
ABSL_FLAG(std::string, group_by, "node", "rows: node, kind, module or shape");
ABSL_FLAG(std::string, sort, "",
          "sort column: mean, self, std, median, p90, min, max, calls, percent, alloc, peak, id, name, order; with "
          "--backward also backward, backward_self, backward_fns, backward_fns_self");
ABSL_FLAG(int, top, -1, "rows to show (0: all; default 20 in tables, all in CSV)");
ABSL_FLAG(std::string, modules, "",
          "only these module paths and their submodules, comma-separated (layer1,layer2.0): module rows, or the "
          "nodes inside them in other views");
ABSL_FLAG(std::string, output, "", "write the report to this file (atomically) instead of stdout");
ABSL_FLAG(std::string, trace, "",
          "write a Chrome trace (chrome://tracing, Perfetto) to this file; placeholders {model}, {date} (UTC "
          "yyyymmdd-hhmmss), {pid}, {n} (first free number) make a new file every run, never replacing one");
ABSL_FLAG(std::string, annotate, "", "write the graph's IR annotated with per-node times to this file");
ABSL_FLAG(std::string, html, "", "write a self-contained HTML report (tables, module icicle, timeline, IR) to this file");
ABSL_FLAG(bool, memory, false, "add per-node memory columns (allocated, peak, output bytes)");
ABSL_FLAG(bool, roofline, false,
          "add GFLOP, GFLOP/s, GB/s, FLOP/B, bound and % of attainable columns; measure this machine's ceilings "
          "(FMA peak, streaming bandwidth, LibTorch's GEMM and conv; about 2 s, then cached)");
ABSL_FLAG(std::string, peaks, "", "the roofline's ceilings given instead of measured: GFLOPS,GBPS (e.g. 90,12)");
ABSL_FLAG(bool, remeasure_peaks, false, "measure the roofline's ceilings again instead of using the cached ones");
ABSL_FLAG(std::string, compare, "", "diff against a report saved with --format=json (per node and per kind)");
ABSL_FLAG(bool, verify, true, "run native forward too; exit 3 if the outputs are not identical");
ABSL_FLAG(bool, nvtx, false, "wrap every node in an NVTX range (build with --config=cuda)");
ABSL_FLAG(int, nvtx_warmup, 0, "with --nvtx_iters: timed runs to skip before the recorded ones");
ABSL_FLAG(int, nvtx_iters, 0,
          "record this many timed runs (after --nvtx_warmup) as NVTX ranges named after the graph (MLP.forward_0, "
          "MLP.forward_1, ...) between cudaProfilerStart/Stop, for nsys --capture-range=cudaProfilerApi; with --nvtx, "
          "node ranges only there");
ABSL_FLAG(std::string, device, "cpu", "where the module and inputs live: cpu, cuda or cuda:N (needs a CUDA LibTorch)");
ABSL_FLAG(bool, cuda_profile, false,
          "device time per node (CUDA events) and kernels per node (CUPTI); build with --config=cuda");
ABSL_FLAG(bool, progress, true, "show progress on stderr when it is a terminal and the run is long");
ABSL_FLAG(std::string, baseline, "", "check: the baseline report (saved with --format=json)");
ABSL_FLAG(std::string, fail_on, "total",
          "check: what fails the gate when slower than the baseline: total, module, node (comma-separated)");
ABSL_FLAG(bool, allow_graph_change, false,
          "check: compare against a baseline of another graph or other passes (a model changed on purpose); the "
          "verdict says so");
ABSL_FLAG(bool, allow_input_change, false,
          "check: compare against a baseline profiled on other inputs; the verdict says so");
ABSL_FLAG(int, workers, 0,
          "profile in this many fresh processes, one after another, and merge them: diffs then count between-process "
          "noise (0: in this process)");
ABSL_FLAG(double, rank_timeout, 90,
          "under torchrun (WORLD_SIZE set): the most seconds a rank waits for the others before it gives up");
ABSL_FLAG(std::string, worker_dir, "", "internal (--workers): write the report(s) as JSON into this directory");

namespace graphprof::cli {
namespace {

// `bazel run` starts the tool in its runfiles tree: relative paths are the
// user's, so resolve them against BUILD_WORKING_DIRECTORY.
std::string UserPath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace

std::string HelpText() {
  return absl::StrCat(
      "profile_graph: profile a TorchScript graph node by node (README.md has examples)\n\n"
      "  profile_graph [--model=FILE.pt | --zoo=NAME | --ir=FILE] [flags]\n"
      "  profile_graph merge A.json B.json ... [--output=FILE] [--format=...]\n"
      "  profile_graph check --baseline=BASE.json [CURRENT.json | profiling flags] [--fail_on=total,module,node]\n\n"
      "flags:\n",
      DescribeFlags("tools/command_line.cc"));
}

absl::StatusOr<Invocation> ParseCommandLine(int argc, char** argv) {
  absl::StatusOr<CommandLine> command_line = ParseFlags(argc, argv);
  if (!command_line.ok()) return command_line.status();
  Invocation invocation;
  if (command_line->help) {
    invocation.help = true;
    return invocation;
  }
  // Empty is not absent for these: --ab= would silently profile plainly,
  // --output= print to the terminal.
  static const auto* needs_value = new std::set<std::string>{
      "ab",    "passes", "compare", "output", "trace",  "html",    "annotate", "baseline", "model",   "ir",
      "zoo",   "inputs", "input",   "peaks",  "format", "group_by", "method",  "fail_on",  "runs",    "device",
      "clock", "sort",   "modules", "worker_dir", "compare_model", "load_library"};
  for (const std::string& name : command_line->empty_values) {
    if (needs_value->count(name) == 0) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, " needs a value",
        name == "compare" || name == "baseline" ? " (a report saved with --format=json)"
        : name == "ab" || name == "passes"      ? " (pass names, e.g. cse; --ab=none profiles the module against itself)"
                                                : ""));
  }
  const std::vector<std::string>& positional = command_line->positional;
  CliOptions& o = invocation.options;
  if (!positional.empty() && positional[0] == "check") {
    o.check = true;
    if (positional.size() > 2) {
      return absl::InvalidArgumentError(
          "check takes at most one report file: profile_graph check --baseline=BASE.json [CURRENT.json]");
    }
    if (positional.size() == 2) o.check_current = UserPath(positional[1]);
  } else if (!positional.empty() && positional[0] == "merge") {
    for (size_t i = 1; i < positional.size(); ++i) o.merge.push_back(UserPath(positional[i]));
    if (o.merge.empty()) {
      return absl::InvalidArgumentError("merge needs report files: profile_graph merge A.json B.json ...");
    }
  } else if (!positional.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", positional[0], "' (flags look like --model=FILE)"));
  }
  o.model = UserPath(absl::GetFlag(FLAGS_model));
  for (absl::string_view library : absl::StrSplit(absl::GetFlag(FLAGS_load_library), ',', absl::SkipEmpty())) {
    o.load_libraries.push_back(UserPath(std::string(library)));
  }
  o.zoo = absl::GetFlag(FLAGS_zoo);
  o.ir = UserPath(absl::GetFlag(FLAGS_ir));
  o.method = absl::GetFlag(FLAGS_method);
  o.freeze = absl::GetFlag(FLAGS_freeze);
  o.list_zoo = absl::GetFlag(FLAGS_list_zoo);
  o.passes = absl::GetFlag(FLAGS_passes);
  o.list_passes = absl::GetFlag(FLAGS_list_passes);
  o.ab = absl::GetFlag(FLAGS_ab);
  o.ab_copies = absl::GetFlag(FLAGS_ab_copies);
  o.compare_model = UserPath(absl::GetFlag(FLAGS_compare_model));
  o.rtol = absl::GetFlag(FLAGS_rtol);
  for (const std::string& name : command_line->given) {
    if (name == "rtol" || name == "atol") o.tolerance_given = true;
  }
  o.atol = absl::GetFlag(FLAGS_atol);
  o.diff_all = absl::GetFlag(FLAGS_diff_all);
  o.min_effect = absl::GetFlag(FLAGS_min_effect);
  o.alpha = absl::GetFlag(FLAGS_alpha);
  o.input = absl::GetFlag(FLAGS_input);
  o.inputs = UserPath(absl::GetFlag(FLAGS_inputs));
  o.seed = absl::GetFlag(FLAGS_seed);
  o.warmup = absl::GetFlag(FLAGS_warmup);
  if (const std::string runs = absl::GetFlag(FLAGS_runs); runs == "auto") {
    o.runs_auto = true;
    o.runs = kAutoMaxRuns;
  } else if (!absl::SimpleAtoi(runs, &o.runs)) {
    return absl::InvalidArgumentError(absl::StrCat("--runs=", runs, ": expected a number of runs or auto"));
  }
  o.max_time = absl::GetFlag(FLAGS_max_time);
  for (const std::string& name : command_line->given) {
    if (name == "max_time") o.max_time_given = true;
  }
  o.clock = absl::GetFlag(FLAGS_clock);
  o.compensate = absl::GetFlag(FLAGS_compensate);
  o.backward = absl::GetFlag(FLAGS_backward);
  o.loss_output = absl::GetFlag(FLAGS_loss_output);
  o.threads = absl::GetFlag(FLAGS_threads);
  o.sort = absl::GetFlag(FLAGS_sort);
  o.top = absl::GetFlag(FLAGS_top);
  if (const std::string modules = absl::GetFlag(FLAGS_modules); !modules.empty()) {
    o.modules = absl::StrSplit(modules, ',');
  }
  o.output = UserPath(absl::GetFlag(FLAGS_output));
  o.trace = UserPath(absl::GetFlag(FLAGS_trace));
  o.annotate = UserPath(absl::GetFlag(FLAGS_annotate));
  o.html = UserPath(absl::GetFlag(FLAGS_html));
  o.memory = absl::GetFlag(FLAGS_memory);
  o.allow_side_effects = absl::GetFlag(FLAGS_allow_side_effects);
  o.roofline = absl::GetFlag(FLAGS_roofline);
  o.peaks = absl::GetFlag(FLAGS_peaks);
  o.remeasure_peaks = absl::GetFlag(FLAGS_remeasure_peaks);
  o.compare = UserPath(absl::GetFlag(FLAGS_compare));
  o.verify = absl::GetFlag(FLAGS_verify);
  o.nvtx = absl::GetFlag(FLAGS_nvtx);
  o.nvtx_warmup = absl::GetFlag(FLAGS_nvtx_warmup);
  o.nvtx_iters = absl::GetFlag(FLAGS_nvtx_iters);
  o.progress = absl::GetFlag(FLAGS_progress);
  o.device = absl::GetFlag(FLAGS_device);
  o.cuda_profile = absl::GetFlag(FLAGS_cuda_profile);
  o.baseline = UserPath(absl::GetFlag(FLAGS_baseline));
  o.fail_on = absl::StrSplit(absl::GetFlag(FLAGS_fail_on), ',', absl::SkipEmpty());
  o.allow_graph_change = absl::GetFlag(FLAGS_allow_graph_change);
  o.allow_input_change = absl::GetFlag(FLAGS_allow_input_change);
  o.given.insert(command_line->given.begin(), command_line->given.end());
  o.workers = absl::GetFlag(FLAGS_workers);
  o.rank_timeout = absl::GetFlag(FLAGS_rank_timeout);
  o.worker_dir = absl::GetFlag(FLAGS_worker_dir);
  o.argv.assign(argv, argv + argc);
  absl::StatusOr<Format> format = ParseFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) return format.status();
  o.format = *format;
  absl::StatusOr<graphprof::GroupBy> group_by = graphprof::ParseGroupBy(absl::GetFlag(FLAGS_group_by));
  if (!group_by.ok()) return absl::InvalidArgumentError(absl::StrCat("--group_by: ", group_by.status().message()));
  o.group_by = *group_by;
  return invocation;
}

std::optional<int> RunCommandsWithoutLibTorch(int argc, char** argv, CliOptions& options) {
  // Ctrl-C leaves no temporary output file and no half-drawn progress line.
  InstallInterruptHandlers();
  absl::StatusOr<Invocation> invocation = ParseCommandLine(argc, argv);
  if (!invocation.ok()) return Fail(stderr, kExitUsage, invocation.status());
  if (invocation->help) {
    std::fputs(HelpText().c_str(), stdout);
    return kExitOk;
  }
  options = std::move(invocation->options);
  options.exit_when_done = true;
  if (!options.merge.empty()) return RunMerge(options, stdout, stderr);
  // A usage error the options show by themselves is answered here, before
  // LibTorch loads (in the front: about 0.02 s instead of a second); the
  // rest of profiling's Validate (tools/profiling_options.h) needs LibTorch.
  // The listings (--list_zoo, --list_passes) ignore the other flags.
  if (!options.list_zoo && !options.list_passes) {
    if (absl::Status valid = ValidateCommon(options); !valid.ok()) return Fail(stderr, kExitUsage, valid);
    // `check` of two saved reports needs no LibTorch either.
    if (options.check && !options.check_current.empty()) return RunCheckOfFiles(options, stdout, stderr);
  }
  return std::nullopt;
}

}  // namespace graphprof::cli
