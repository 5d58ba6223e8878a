#include "tools/cli_options.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/terminal_text.h"
#include "profilers/report/report_checks.h"
#include "tools/check_command.h"

namespace graphprof::cli {

int Fail(std::FILE* err, int code, absl::string_view message) {
  std::string line;
  bool space = false;
  for (char c : message) {
    const bool blank = c == '\n' || c == '\r' || c == '\t';
    if (blank) {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  // The message may quote a file's text: no control character reaches the terminal.
  std::fprintf(err, "profile_graph: %s\n", EscapeForTerminal(line).c_str());
  std::fflush(err);
  return code;
}

int Fail(std::FILE* err, int code, const absl::Status& status) { return Fail(err, code, status.message()); }

absl::StatusOr<Format> ParseFormat(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  return absl::InvalidArgumentError(absl::StrCat("--format: unknown format '", name, "' (use table, csv or json)"));
}

absl::Status RefuseProfilingFlags(const CliOptions& o, absl::string_view what, absl::string_view takes) {
  const CliOptions defaults;
  const std::pair<bool, const char*> profiling_only[] = {
      {!o.model.empty(), "--model"},          {!o.zoo.empty(), "--zoo"},
      {!o.load_libraries.empty(), "--load_library"}, {o.allow_side_effects, "--allow_side_effects"},
      {!o.ir.empty(), "--ir"},                {o.method != defaults.method, "--method"},
      {o.freeze, "--freeze"},                 {!o.passes.empty(), "--passes"},
      {!o.ab.empty(), "--ab"},                {o.Given("ab_copies"), "--ab_copies"},
      {!o.compare_model.empty(), "--compare_model"},
      {!o.input.empty(), "--input"},          {!o.inputs.empty(), "--inputs"},
      {o.seed != defaults.seed, "--seed"},    {o.warmup != defaults.warmup || o.Given("warmup"), "--warmup"},
      {o.runs != defaults.runs || o.runs_auto || o.Given("runs"), "--runs"},
      {o.Given("max_time"), "--max_time"},    {!o.clock.empty(), "--clock"},
      {o.Given("compensate"), "--compensate"}, {o.backward, "--backward"},
      {o.loss_output != defaults.loss_output, "--loss_output"},
      {o.threads != defaults.threads || o.Given("threads"), "--threads"},
      {!o.trace.empty(), "--trace"},          {!o.annotate.empty(), "--annotate"},
      {!o.compare.empty(), "--compare"},      {o.Given("verify"), "--verify"},
      {o.Given("rtol") || o.Given("atol"), "--rtol/--atol"},
      {o.roofline, "--roofline"},             {!o.peaks.empty(), "--peaks"},
      {o.remeasure_peaks, "--remeasure_peaks"}, {o.nvtx, "--nvtx"},
      {o.nvtx_iters != 0 || o.nvtx_warmup != 0, "--nvtx_iters/--nvtx_warmup"},
      {o.device != defaults.device, "--device"}, {o.cuda_profile, "--cuda_profile"},
      {o.workers != 0, "--workers"},          {!o.worker_dir.empty(), "--worker_dir"},
      {o.Given("rank_timeout"), "--rank_timeout"},
  };
  for (const auto& [set, flag] : profiling_only) {
    if (set) return absl::InvalidArgumentError(absl::StrCat(what, ": ", flag, " applies to profiling (it takes ", takes, ")"));
  }
  return absl::OkStatus();
}

absl::Status RefuseTableFlags(const CliOptions& o, absl::string_view what, absl::string_view takes) {
  const CliOptions defaults;
  const std::pair<bool, const char*> table_only[] = {
      {o.group_by != defaults.group_by || o.Given("group_by"), "--group_by"}, {!o.sort.empty(), "--sort"},
      {o.top != defaults.top, "--top"},     {!o.modules.empty(), "--modules"},
      {o.memory, "--memory"},
  };
  for (const auto& [set, flag] : table_only) {
    if (set) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", flag, " shapes a report's tables, which it does not print (it takes ", takes, ")"));
    }
  }
  return absl::OkStatus();
}

// `merge` combines saved reports: flags that choose, run or instrument a
// model have nothing to act on there, and ignoring them would look like
// success (a --trace that is never written).
absl::Status ValidateMerge(const CliOptions& o) {
  if (absl::Status only = RefuseProfilingFlags(
          o, "merge combines saved reports",
          "--output, --format, --group_by, --sort, --top, --modules, --memory, --html");
      !only.ok()) {
    return only;
  }
  for (const char* flag : {"min_effect", "alpha", "diff_all", "fail_on"}) {
    if (o.Given(flag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("merge combines saved reports: --", flag, " applies to comparisons (--compare, --ab, check)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<double, double>> ParsePeaks(const std::string& text) {
  const size_t comma = text.find(',');
  double gflops = 0, gbps = 0;
  if (comma == std::string::npos || !absl::SimpleAtod(text.substr(0, comma), &gflops) ||
      !absl::SimpleAtod(text.substr(comma + 1), &gbps) || !PlausibleCeiling(gflops) || !PlausibleCeiling(gbps)) {
    return absl::InvalidArgumentError(absl::StrCat("--peaks=", text, ": expected GFLOPS,GBPS, each from ", kMinCeiling,
                                                   " to ", kMaxCeiling, " (e.g. 90,12)"));
  }
  return std::make_pair(gflops, gbps);
}

absl::Status ValidateCommon(const CliOptions& o) {
  if (!o.merge.empty()) {
    if (absl::Status merge = ValidateMerge(o); !merge.ok()) return merge;
  }
  if (absl::Status check = ValidateCheck(o); !check.ok()) return check;
  const int sources = !o.model.empty() + !o.zoo.empty() + !o.ir.empty();
  if (sources > 1) return absl::InvalidArgumentError("give only one of --model, --zoo and --ir");
  if (!o.input.empty() && !o.inputs.empty()) {
    return absl::InvalidArgumentError("give either --input (random inputs) or --inputs (a file), not both");
  }
  // What a kind of model cannot do (passes on an IR graph or a program) is
  // its source's to refuse (SourceAbilities, CheckRequest), once loaded.
  if (!o.passes.empty() && !o.ab.empty()) {
    return absl::InvalidArgumentError("give either --passes (profile after them) or --ab (before and after), not both");
  }
  if (o.freeze && !o.ab.empty()) {
    return absl::InvalidArgumentError("--ab profiles the module as loaded: put freeze in its list (--ab=freeze,...)");
  }
  if (!o.compare_model.empty()) {
    if (o.model.empty()) return absl::InvalidArgumentError("--compare_model compares a --model (TorchScript) with a program");
    if (!o.ab.empty() || !o.compare.empty() || o.check || !o.passes.empty() || o.freeze) {
      return absl::InvalidArgumentError("--compare_model is a comparison of its own: not with --ab, --compare, check, "
                                        "--passes or --freeze");
    }
    if (o.backward || o.workers > 0) {
      return absl::InvalidArgumentError("--compare_model profiles forward runs in this process: not with --backward or --workers");
    }
  }
  if (!o.ab.empty() && !o.compare.empty()) {
    return absl::InvalidArgumentError("give either --compare (against a saved report) or --ab, not both");
  }
  if (!o.clock.empty() && o.clock != "tsc" && o.clock != "steady") {
    return absl::InvalidArgumentError(absl::StrCat("--clock: unknown clock '", o.clock, "' (use tsc or steady)"));
  }
  if (!(o.rtol >= 0) || !(o.atol >= 0)) return absl::InvalidArgumentError("--rtol and --atol must be 0 or more");
  if (!(o.min_effect >= 0 && o.min_effect < 1)) {
    return absl::InvalidArgumentError("--min_effect must be at least 0 and below 1 (0.02 is 2%)");
  }
  if (!(o.alpha > 0 && o.alpha < 1)) return absl::InvalidArgumentError("--alpha must be above 0 and below 1");
  if (o.method.empty()) return absl::InvalidArgumentError("--method must not be empty");
  if (o.warmup < 0) return absl::InvalidArgumentError("--warmup must be 0 or more");
  if (o.runs < 1) return absl::InvalidArgumentError("--runs must be at least 1");
  if (!(o.max_time > 0)) return absl::InvalidArgumentError("--max_time must be above 0 seconds");
  if (!o.peaks.empty()) {
    if (absl::StatusOr<std::pair<double, double>> peaks = ParsePeaks(o.peaks); !peaks.ok()) return peaks.status();
  }
  if (o.max_time_given && !o.runs_auto) return absl::InvalidArgumentError("--max_time applies with --runs=auto");
  if (o.runs_auto && o.min_effect == 0) {
    return absl::InvalidArgumentError(
        "--runs=auto runs until the intervals are narrower than --min_effect: 0 is never reached (give --min_effect "
        "above 0, or a fixed --runs)");
  }
  if (o.remeasure_peaks && !o.peaks.empty()) {
    return absl::InvalidArgumentError("give either --peaks (the ceilings given) or --remeasure_peaks (measured), not both");
  }
  if (o.remeasure_peaks && !o.roofline) {
    return absl::InvalidArgumentError("--remeasure_peaks applies with --roofline (which measures the ceilings)");
  }
  // Flags that would be given and ignored: a usage error, not a silent no-op.
  const bool diffs = !o.compare.empty() || !o.ab.empty() || o.check || !o.compare_model.empty();
  if (o.merge.empty()) {
    if ((o.Given("alpha") || o.Given("diff_all")) && !diffs) {
      return absl::InvalidArgumentError("--alpha and --diff_all apply to comparisons (--compare, --ab, check)");
    }
    if (o.Given("min_effect") && !diffs && !o.runs_auto) {
      return absl::InvalidArgumentError("--min_effect applies to comparisons (--compare, --ab, check) and --runs=auto");
    }
  }
  if ((o.Given("rtol") || o.Given("atol")) && !o.verify) {
    return absl::InvalidArgumentError("--rtol and --atol apply to --verify, which --noverify turns off");
  }
  if (o.Given("seed") && !o.inputs.empty() && (!o.model.empty() || !o.ir.empty())) {
    return absl::InvalidArgumentError("--seed seeds random inputs (--input) and zoo weights: there are none here");
  }
  if (!o.worker_dir.empty() && o.workers > 0) {
    return absl::InvalidArgumentError("--worker_dir is --workers' own (a worker's output directory): not with --workers");
  }
  if (o.runs_auto && o.nvtx_iters > 0) return absl::InvalidArgumentError("--nvtx_iters needs a fixed --runs");
  if (o.threads < 1) return absl::InvalidArgumentError("--threads must be at least 1");
  if (o.top < -1) return absl::InvalidArgumentError("--top must be 0 (all rows) or more");
  if (o.loss_output < -1) return absl::InvalidArgumentError("--loss_output must be an output index (0 or more)");
  if (o.loss_output >= 0 && !o.backward) return absl::InvalidArgumentError("--loss_output needs --backward");
  if (o.backward && o.freeze) {
    return absl::InvalidArgumentError("--backward cannot follow --freeze: frozen parameters are constants without gradients");
  }
  if (!o.modules.empty()) {
    if (std::find(o.modules.begin(), o.modules.end(), "") != o.modules.end()) {
      return absl::InvalidArgumentError("--modules: an empty module path (use --modules=layer1,layer2.0)");
    }
    if (o.format == Format::kJson || !o.compare.empty()) {
      return absl::InvalidArgumentError("--modules limits the rows of tables and CSV, not JSON reports or --compare diffs");
    }
  }
  if (o.ab_copies < 1 || o.ab_copies > 16) return absl::InvalidArgumentError("--ab_copies must be 1 to 16");
  if (o.ab_copies != CliOptions().ab_copies && o.ab.empty() && o.compare_model.empty()) {
    return absl::InvalidArgumentError("--ab_copies applies to --ab and --compare_model");
  }
  if (o.workers < 0 || o.workers > kMaxWorkers) {
    return absl::InvalidArgumentError(absl::StrCat("--workers must be 0 (this process) to ", kMaxWorkers));
  }
  if (o.workers > 0) {
    if (!o.trace.empty()) {
      return absl::InvalidArgumentError("--trace records one process's runs: not with --workers (use --workers=0)");
    }
    if (o.nvtx || o.nvtx_iters > 0 || o.cuda_profile) {
      return absl::InvalidArgumentError("--nvtx, --nvtx_iters and --cuda_profile observe one process: not with --workers");
    }
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (o.threads > static_cast<int>(4 * cores)) {
    return absl::InvalidArgumentError(absl::StrCat("--threads=", o.threads, " is more than 4x the ", cores,
                                                   " cores of this machine"));
  }
  return absl::OkStatus();
}

}  // namespace graphprof::cli
