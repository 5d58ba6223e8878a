// profile_graph's options, checked before anything runs (no LibTorch).
#ifndef GRAPHPROF_TOOLS_CLI_OPTIONS_H_
#define GRAPHPROF_TOOLS_CLI_OPTIONS_H_

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "profilers/report/views.h"

namespace graphprof::cli {

enum class Format { kTable, kCsv, kJson };

struct CliOptions {
  // Model source: exactly one of model / zoo / ir (zoo "resnet18" by default).
  std::string model;   // .pt file
  // Run operators that act outside the process (--allow_side_effects).
  bool allow_side_effects = false;
  // Operator libraries to load before the model (--load_library).
  std::vector<std::string> load_libraries;
  std::string zoo;
  std::string ir;      // IR text file
  std::string method = "forward";
  bool freeze = false;
  bool list_zoo = false;
  // LibTorch passes applied before profiling ("freeze,optimize_for_inference").
  std::string passes;
  bool list_passes = false;
  // A/B: profile the module as loaded and after these passes, and diff.
  std::string ab;
  // The migration diff: --model (TorchScript) against this torch.export
  // program of the same model, interleaved as --ab (ProfileAgainstGraph).
  std::string compare_model;
  // --ab: separately prepared copies of the module a side, the diff's unit
  // of variation (profilers/before_after.h); 1: one a side, runs the unit.
  int ab_copies = 3;

  // Inputs: random from `input` (seeded by `seed`), or loaded from `inputs`;
  // zoo models default to their example inputs.
  std::string input;
  std::string inputs;
  uint64_t seed = 0;

  int warmup = 3;
  int runs = 10;
  // --runs=auto: time until the intervals are narrow (ProfileOptions::adaptive),
  // at most kAutoMaxRuns runs and max_time seconds.
  bool runs_auto = false;
  double max_time = 60;
  bool max_time_given = false;
  // "tsc", "steady", or "" (TSC where invariant, else steady).
  std::string clock;
  bool compensate = true;  // take the timer's cost off parents' times
  // Training steps: forward with gradients, then backward of the loss (the
  // sum of all floating outputs, or output `loss_output`).
  bool backward = false;
  int loss_output = -1;
  int threads = 1;

  Format format = Format::kTable;
  GroupBy group_by = GroupBy::kNode;
  std::string sort;
  int top = -1;  // -1: 20 rows in tables, all rows in CSV
  std::vector<std::string> modules;  // only these module paths (ViewOptions::modules)
  std::string output;    // empty: stdout
  std::string trace;     // Chrome trace file
  bool trace_is_new = false;  // expanded from a pattern: never replaces a file (trace_pattern.h)
  std::string annotate;  // annotated IR file
  std::string html;      // self-contained HTML report
  bool memory = false;   // per-node memory columns
  // Roofline: columns and ceilings (measured, or cached); `peaks` gives the
  // ceilings instead ("GFLOPS,GBPS"), remeasure_peaks ignores the cache.
  bool roofline = false;
  std::string peaks;
  bool remeasure_peaks = false;
  std::string compare;   // base report (JSON) to diff against
  bool diff_all = false; // diffs include nodes that never ran
  // Diff verdicts: changes within +-min_effect are "the same"; significance
  // on Benjamini-Hochberg q-values below alpha (profilers/report/verdict.h).
  double min_effect = 0.02;
  double alpha = 0.05;
  bool verify = true;
  // Tolerance of --verify after passes (numpy.isclose: |a - b| <= atol + rtol * |b|).
  double rtol = 1e-4;
  double atol = 1e-5;
  // --rtol or --atol given: after passes, compare within them instead of
  // against a float64 run (profilers/verification/reference_check.h).
  bool tolerance_given = false;
  bool nvtx = false;
  // NVTX iteration control: timed runs nvtx_warmup .. nvtx_warmup + nvtx_iters - 1
  // get numbered ranges inside cudaProfilerStart/Stop (off when nvtx_iters is 0).
  int nvtx_warmup = 0;
  int nvtx_iters = 0;
  // Where the module and the inputs live: "cpu", "cuda" or "cuda:N".
  std::string device = "cpu";
  // Device time per node (CUDA events) and kernels per node (CUPTI).
  bool cuda_profile = false;
  bool progress = true;  // on stderr, when it is a terminal and the run is long

  // End the process as soon as the outputs are written (std::_Exit), without
  // freeing the graph, plan and report: for 100k-node graphs freeing takes
  // longer than anything but the runs. Set by the CLI's main only.
  bool exit_when_done = false;

  // `profile_graph merge FILE...`: JSON reports to merge instead of profiling.
  std::vector<std::string> merge;

  // `profile_graph check --baseline=B.json [CURRENT.json | profiling flags]`:
  // a regression gate (tools/check_command.h).
  bool check = false;
  std::string baseline;
  std::string check_current;               // a saved current report, else profile now
  std::vector<std::string> fail_on = {"total"};  // total, module, node
  // check: compare a baseline of another graph (or other passes), or of
  // other inputs, on purpose; the verdict then says it was accepted.
  bool allow_graph_change = false;
  bool allow_input_change = false;

  // --workers=K: profile in K fresh processes, one after another, and merge
  // them (tools/workers.h); 0: in this process. `check` without it follows
  // its baseline: as many processes as the baseline's run sources (if 2 or
  // more).
  int workers = 0;
  // A rank of a torch.distributed program (tools/rank_run.h): how long it
  // waits for the other ranks (a barrier, a report) before giving up.
  double rank_timeout = 90;
  // Set in a worker: write the report(s) as JSON into this directory.
  std::string worker_dir;
  // The command line as given (argv[0] first): what the workers start with.
  std::vector<std::string> argv;
  // The flags given on the command line, by name (negated bools too): for
  // checks where a flag set to its default differs from one not given.
  std::set<std::string> given;
  bool Given(const char* flag) const { return given.count(flag) > 0; }
};

// Every check of the options that needs no LibTorch (sources, inputs,
// runs, outputs, diffs, merge and check flags): all a merge needs, and the
// first part of profiling's Validate (tools/profiling_options.h). Nothing
// here needs LibTorch, so the merge front (tools/profile_graph.cc) starts
// fast.
absl::Status ValidateCommon(const CliOptions& options);

// A command that would ignore a flag refuses it. InvalidArgument "<what>:
// --flag applies to profiling (it takes <takes>)" for the first flag given
// that chooses, runs or instruments a model; OK when none is.
absl::Status RefuseProfilingFlags(const CliOptions& options, absl::string_view what, absl::string_view takes);
// The same for the flags that shape a report's tables (--group_by, --sort,
// --top, --modules, --memory), for commands that print no table.
absl::Status RefuseTableFlags(const CliOptions& options, absl::string_view what, absl::string_view takes);

// --peaks=GFLOPS,GBPS.
absl::StatusOr<std::pair<double, double>> ParsePeaks(const std::string& text);

// Prints "profile_graph: <message>" on `err` as one line (newlines and tabs
// in the message become spaces) and returns `code`.
int Fail(std::FILE* err, int code, absl::string_view message);
int Fail(std::FILE* err, int code, const absl::Status& status);

absl::StatusOr<Format> ParseFormat(const std::string& name);

// --runs=auto's most runs.
constexpr int kAutoMaxRuns = 500;
// The most worker processes --workers (or check following its baseline) starts.
constexpr int kMaxWorkers = 64;

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;     // a file, the model or a run failed
constexpr int kExitUsage = 2;       // bad flags
constexpr int kExitMismatch = 3;    // --verify: output differs from forward
constexpr int kExitRegression = 4;  // check: something selected by --fail_on is slower
constexpr int kExitInconclusive = 5;  // check: nothing --fail_on selects could be tested

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_CLI_OPTIONS_H_
