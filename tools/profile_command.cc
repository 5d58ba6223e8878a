#include "tools/profile_command.h"

#include <ATen/Parallel.h>
#include <torch/script.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/output_file.h"
#include "common/status_util.h"
#include "ir/operator_libraries.h"
#include "interpreter/graph_plan.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/passes.h"
#include "profilers/before_after.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/cupti_collector.h"
#include "profilers/gpu/device_timer.h"
#include "profilers/gpu/kernel_attribution.h"
#include "profilers/gpu/nvtx.h"
#include "profilers/gpu/nvtx_iterations.h"
#include "profilers/machine.h"
#include "profilers/work/peaks.h"
#include "profilers/profiler.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/report/verification_failure.h"
#include "profilers/report/views.h"
#include "profilers/session/session.h"
#include "profilers/session/source_session.h"
#include "profilers/time_source.h"
#include "profilers/toolbox/cpu_tensor_counter.h"
#include "profilers/toolbox/live_memory.h"
#include "profilers/verification/reference_check.h"
#include "tools/cli_option_names.h"
#include "tools/model_source.h"
#include "tools/process_plan.h"
#include "tools/rank_run.h"
#include "tools/check_command.h"
#include "tools/sequential_gate.h"
#include "tools/profiling_options.h"
#include "tools/progress.h"
#include "tools/report_output.h"
#include "common/terminal_text.h"
#include "tools/workers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::cli {
namespace {

std::string ListZoo() {
  std::string out;
  for (const std::string& name : ZooNames()) {
    absl::StatusOr<ZooModel> model = MakeZooModel(name);
    if (!model.ok()) continue;
    absl::StrAppend(&out, name, "  ", model->description, "  (input ", FormatInputSpecs(model->inputs), ")\n");
  }
  return out;
}

std::string ListPasses() {
  size_t width = 0;
  for (const Pass& pass : BuiltinPasses()) width = std::max(width, pass.name.size());
  std::string out;
  for (const Pass& pass : BuiltinPasses()) {
    absl::StrAppend(&out, pass.name, std::string(width + 2 - pass.name.size(), ' '), pass.description, "\n");
  }
  return out;
}

// The device collectors run when --cuda_profile is given and `cuda` (probed
// once, before anything is loaded or spawned) is available: the sort-key
// check and SetUpObservers both ask this, so they cannot disagree.
bool DeviceCollectorsRun(const CliOptions& options, const CudaStatus& cuda) {
  return options.cuda_profile && cuda.available;
}

// The sort keys a report of this run will have, before anything is loaded or
// spawned: the profile's own (DeclaredReport, profiler.h, with backward's for
// training steps) and what the device collectors declare when they will run
// (NVTX declares nothing). A device key without a device is a usage error
// here, not after the whole profile has run.
absl::Status CheckSortKey(const CliOptions& options, const CudaStatus& cuda) {
  ProfileOptions profile;
  profile.backward.enabled = options.backward;
  profile.memory = true;  // as RunProfile's
  Report declared = DeclaredReport(profile);
  Report with_device = declared;
  AddDeclaredColumn(DeviceEventTimer::MetricColumn(), with_device);
  for (const Column& column : KernelAttribution::Columns()) AddDeclaredColumn(column, with_device);
  if (DeviceCollectorsRun(options, cuda)) declared = with_device;
  const std::vector<std::string> keys = SortKeys(declared);
  if (std::find(keys.begin(), keys.end(), options.sort) != keys.end()) return absl::OkStatus();
  const std::vector<std::string> device_keys = SortKeys(with_device);
  if (std::find(device_keys.begin(), device_keys.end(), options.sort) != device_keys.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--sort=", options.sort, ": a device column, and ",
        !options.cuda_profile ? "device columns need --cuda_profile"
                              : absl::StrCat("this run has none: ", cuda.ToStatus().message())));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--sort: unknown sort column '", options.sort, "' (use ", absl::StrJoin(keys, ", "), ")"));
}

// How every diff the flags ask for is made (--diff_all, --min_effect,
// --alpha), its notes naming the CLI's flags.
DiffOptions DiffOptionsOf(const CliOptions& options) {
  DiffOptions diff;
  diff.include_unexecuted = options.diff_all;
  diff.verdict.min_effect = options.min_effect;
  diff.verdict.alpha = options.alpha;
  diff.names = CliOptionNames();
  return diff;
}

// The options of a two-sided profile (--ab, --compare_model, a program's
// A/A) from the flags.
BeforeAfterOptions BeforeAfterOptionsOf(const CliOptions& options, const ProfileOptions& profile) {
  BeforeAfterOptions ab_options;
  ab_options.profile = profile;
  ab_options.method = options.method;
  ab_options.copies = options.ab_copies;
  ab_options.diff = DiffOptionsOf(options);
  ab_options.verify = options.verify;
  ab_options.rtol = options.rtol;
  ab_options.atol = options.atol;
  ab_options.float64_reference = !options.tolerance_given;
  return ab_options;
}

// --ab: B's report and the diff; JSON {"a", "b", "diff", "speedup", "matched_time_fraction"}.
absl::StatusOr<std::string> RenderAb(const BeforeAfter& ab, const CliOptions& options) {
  if (options.format == Format::kJson) {
    std::string out;
    JsonWriter w(&out);
    w.BeginObject();
    w.Key("speedup"); w.Approx(ab.speedup());
    w.Key("matched_time_fraction"); w.Approx(ab.diff.matched_time_fraction);
    w.Key("passes"); w.String(options.ab);
    if (!options.compare_model.empty()) {
      w.Key("compare_model"); w.String(options.compare_model);
    }
    w.Key("order"); w.String(ab.order);
    w.Key("drift");
    w.BeginObject();
    for (const auto& [side, drift] : {std::pair<const char*, const Drift*>{"a", &ab.before_drift},
                                      std::pair<const char*, const Drift*>{"b", &ab.after_drift}}) {
      w.Key(side);
      w.BeginObject();
      w.Key("verdict"); w.String(VerdictName(drift->halves.verdict));
      w.Key("change"); w.Approx(drift->halves.change);
      w.Key("change_low"); w.Approx(drift->halves.change_low);
      w.Key("change_high"); w.Approx(drift->halves.change_high);
      w.Key("p"); w.Approx(drift->halves.p);
      w.EndObject();
    }
    w.EndObject();
    w.Key("a"); w.Newline(); WriteReportJson(ab.before, w);
    w.Key("b"); w.Newline(); WriteReportJson(ab.after, w);
    w.Key("diff"); w.Newline(); WriteDiffJson(ab.diff, w);
    w.EndObject();
    out += "\n";
    return out;
  }
  if (options.format == Format::kCsv) return DiffToCsv(ab.diff);
  absl::StatusOr<std::string> b = RenderTableReport(ab.after, options);
  if (!b.ok()) return b.status();
  return absl::StrCat(*b, "\n", RenderDiff(ab.diff, TopRows(options)));
}

// The device observers of one profiling session.
struct Observers {
  NvtxObserver nvtx;
  std::unique_ptr<NvtxIterationObserver> nvtx_iterations;  // --nvtx_iters
  std::unique_ptr<DeviceEventTimer> device_timer;
  std::unique_ptr<CuptiKernelCollector> kernels;
  std::string device_note;
};

void SetUpObservers(const CliOptions& options, const CudaStatus& cuda, std::FILE* err, Observers& o,
                    ProfileOptions& profile) {
  if (options.cuda_profile) {
    if (DeviceCollectorsRun(options, cuda)) {
      o.device_timer = std::make_unique<DeviceEventTimer>(MakeCudaEventApi());
      o.kernels = std::make_unique<CuptiKernelCollector>();
    } else {
      // Soft: the host profile is unaffected.
      o.device_note = absl::StrCat(cuda.reason, ": device columns disabled");
      std::fprintf(err, "profile_graph: %s\n", o.device_note.c_str());
      o.device_note = absl::StrCat(o.device_note, " (", cuda.detail, ")");
    }
  }
  if (options.nvtx_iters > 0) {
    o.nvtx_iterations = std::make_unique<NvtxIterationObserver>(options.nvtx_warmup, options.nvtx_iters, options.nvtx);
    profile.observers.push_back(o.nvtx_iterations.get());
  } else if (options.nvtx) {
    profile.observers.push_back(&o.nvtx);
  }
  if (o.device_timer != nullptr) profile.observers.push_back(o.device_timer.get());
  if (o.kernels != nullptr) profile.observers.push_back(o.kernels.get());
}

// An A/B side's description: DescribeModel's (the session's, by hand: the
// A/B profiles both sides itself), then the source's, then the CLI's.
void DescribeSide(Report& report, const ModelSource& source, const std::vector<c10::IValue>& inputs,
                  const Observers& observers, const std::string& name, const Machine& machine,
                  const std::optional<Ceilings>& ceilings) {
  DescribeModel(report, name, source.module(), inputs, machine, ceilings);
  source.Describe(report);
  if (!observers.device_note.empty()) report.device_note = observers.device_note;
}

int VerificationExit(const Report& report, const CliOptions& options, std::FILE* err, const char* which) {
  const std::string failure = VerificationFailure(report, options.method);
  return failure.empty() ? kExitOk : Fail(err, kExitMismatch, absl::StrCat(which, failure));
}

}  // namespace

namespace {

// --worker_dir (a worker of --workers): the report(s) as JSON for the
// parent, and the verification's exit code.
int WriteWorkerReports(const CliOptions& options, std::vector<std::pair<const char*, const Report*>> reports,
                       std::FILE* err) {
  OutputFiles files;
  for (const auto& [name, report] : reports) {
    const Report* r = report;
    files.Add(absl::StrCat(options.worker_dir, "/", name), [r](TextSink& sink) { StreamReportJson(*r, sink); });
  }
  if (absl::Status written = files.Commit(); !written.ok()) return Fail(err, kExitFailure, written);
  for (const auto& [name, report] : reports) {
    if (report->verification.has_value() && !report->verification->passed()) return kExitMismatch;
    if (report->gradient_verification.has_value() && !report->gradient_verification->passed()) return kExitMismatch;
  }
  return kExitOk;
}

// --ab's outputs: B's report and the diff, then A's and B's verification.
// A worker (--worker_dir) writes both sides' reports for its parent instead,
// whatever made the A/B (passes, a program's A/A, the migration diff).
int EmitAb(const CliOptions& options, BeforeAfter& ab, std::FILE* out, std::FILE* err) {
  if (!options.worker_dir.empty()) {
    return WriteWorkerReports(options, {{kWorkerA, &ab.before}, {kWorkerB, &ab.after}}, err);
  }
  absl::StatusOr<std::string> main = RenderAb(ab, options);
  if (!main.ok()) return Fail(err, kExitUsage, main.status());
  if (int code = WriteOutputs(options, ab.after, MainOutput{*std::move(main), nullptr}, out, err, &ab.diff);
      code != kExitOk) {
    return code;
  }
  if (int code = VerificationExit(ab.before, options, err, "A: "); code != kExitOk) return code;
  return VerificationExit(ab.after, options, err, "B: ");
}

// A profile's outputs (its report, or its diff against --compare's base),
// then its verification.
int EmitReport(const CliOptions& options, const std::optional<Report>& base, Report& report_value, std::FILE* out,
               std::FILE* err, const CheckProgress& progress) {
  Report* report = &report_value;
  if (options.check) {
    // The gate, as for two saved reports; its verdict is the main output.
    const int gate = RunGate(
        options, *base, *report,
        [&](std::string text, const ReportDiff& diff) {
          return WriteOutputs(options, *report, MainOutput{std::move(text), nullptr}, out, err, &diff);
        },
        err, progress);
    const int verified = VerificationExit(*report, options, err, "");
    return verified != kExitOk ? verified : gate;
  }
  const char* against = "--compare";
  if (base.has_value() && base->model != report->model) {
    std::fprintf(err, "profile_graph: warning: %s: the base report is of %s, this run profiles %s\n", against,
                 EscapeForTerminal(base->model).c_str(), EscapeForTerminal(report->model).c_str());
  } else if (base.has_value() && base->runs != report->runs) {
    std::fprintf(err, "profile_graph: warning: %s: the base report has %d timed runs, this one %d\n", against,
                 base->runs, report->runs);
  }
  if (base.has_value()) {
    if (const std::string warning = MachineWarning(*base, *report); !warning.empty()) {
      std::fprintf(err, "profile_graph: warning: %s: %s\n", against, EscapeForTerminal(warning).c_str());
    }
  }
  MainOutput main;
  std::optional<ReportDiff> diff;
  if (base.has_value()) {
    diff = DiffReports(*base, *report, DiffOptionsOf(options));
    main.text = RenderDiffAs(*diff, options);
  } else {
    absl::StatusOr<MainOutput> rendered = ReportOutput(*report, options);
    if (!rendered.ok()) return Fail(err, kExitUsage, rendered.status());
    main = *std::move(rendered);
  }
  if (int code = WriteOutputs(options, *report, std::move(main), out, err, diff ? &*diff : nullptr); code != kExitOk) {
    return code;
  }
  const int code = VerificationExit(*report, options, err, "");
  if (options.exit_when_done) {
    std::fflush(out);
    std::fflush(err);
    std::_Exit(code);
  }
  return code;
}

// What every way of profiling in this process shares: the flags, the
// machine and its ceilings, the profile's options and observers, where
// progress and outputs go.
struct Context {
  const CliOptions& options;
  Machine machine;
  std::optional<Ceilings> ceilings;
  ProfileOptions profile;
  Observers observers;
  Progress* progress;
  std::FILE* out;
  std::FILE* err;
  RankGroup* ranks = nullptr;  // a rank of a torch.distributed program (rank_run.h)
};

// The two sides' names, the diff's models, then --ab's outputs.
int FinishAb(Context& c, BeforeAfter& ab, const ModelSource& a, const std::string& a_name, const ModelSource& b,
             const std::string& b_name, const std::vector<c10::IValue>& inputs) {
  DescribeSide(ab.before, a, inputs, c.observers, a_name, c.machine, c.ceilings);
  DescribeSide(ab.after, b, inputs, c.observers, b_name, c.machine, c.ceilings);
  ab.diff.base_model = ab.before.model;
  ab.diff.current_model = ab.after.model;
  return EmitAb(c.options, ab, c.out, c.err);
}

// --compare_model: the module (A) against another source of the same model
// (B: its torch.export program), interleaved, diffed with verdicts; outputs
// as --ab's.
int RunMigrationDiff(Context& c, const ModelSource& a, const ModelSource& b, const std::vector<c10::IValue>& inputs) {
  // Both sides run on the same values: B must take A's inputs as they are
  // (checked here; a B that would add inputs to them is refused).
  absl::StatusOr<std::vector<c10::IValue>> fits = b.CompleteInputs(inputs, nullptr);
  if (!fits.ok()) return Fail(c.err, kExitFailure, absl::StrCat("--compare_model: ", fits.status().message()));
  if (fits->size() != inputs.size()) {
    return Fail(c.err, kExitFailure,
                absl::StrCat("--compare_model: ", b.name(), " completes A's ", inputs.size(),
                             " inputs to ", fits->size(), "; both sides must run on the same values"));
  }
  absl::StatusOr<BeforeAfter> ab = ProfileSourceAgainst(a, b, inputs, BeforeAfterOptionsOf(c.options, c.profile));
  c.progress->Finish();
  if (!ab.ok()) return Fail(c.err, kExitFailure, ab.status());
  return FinishAb(c, *ab, a, absl::StrCat(a.name(), " (A: ", a.abilities().label, ")"), b,
                  absl::StrCat(b.name(), " (B: ", b.abilities().label, ")"), inputs);
}

// --ab=PASSES (none: an A/A): A as loaded against B after the passes.
int RunAb(Context& c, const ModelSource& source, const std::vector<c10::IValue>& inputs) {
  absl::StatusOr<std::vector<Pass>> passes = ParsePasses(c.options.ab);
  if (!passes.ok()) return Fail(c.err, kExitUsage, passes.status());
  absl::StatusOr<BeforeAfter> ab = ProfileSourceAb(source, *passes, inputs, BeforeAfterOptionsOf(c.options, c.profile),
                                                   ToleranceOf(c.options));
  c.progress->Finish();
  if (!ab.ok()) return Fail(c.err, kExitFailure, ab.status());
  return FinishAb(c, *ab, source, absl::StrCat(source.name(), " (A: as loaded)"), source,
                  absl::StrCat(source.name(), " (B: ", DescribePasses(*passes), ")"), inputs);
}

// One profiling session (profilers/session/source_session.h): --modules
// checked against the plan first; then the report's CLI notes, and its
// outputs.
int RunSession(Context& c, const ModelSource& source, const CliInputs& inputs, const std::optional<Report>& base) {
  const CliOptions& options = c.options;
  SessionOptions session;
  session.profile = c.profile;
  session.verify = options.verify;
  session.machine = c.machine;
  session.ceilings = c.ceilings;
  bool unknown_modules = false;
  if (!options.modules.empty()) {
    session.check_plan = [&](const GraphPlan& plan) -> absl::Status {
      std::vector<std::string> node_modules;
      for (const NodePlan& node : plan.nodes()) node_modules.push_back(node.identity.module);
      absl::Status known = CheckModules(node_modules, source.name(), options.modules);
      unknown_modules = !known.ok();
      return known;
    };
  }
  // check --runs=auto in this process: the gate's sequential test decides when to stop.
  std::optional<SequentialGate> sequential;
  if (options.check && options.runs_auto && base.has_value() && options.worker_dir.empty() &&
      session.profile.observers.empty() && !session.profile.backward.enabled) {
    sequential.emplace(GateOptionsOf(options), *base);
    session.profile.adaptive.stop = [&sequential](const Report& so_far) { return sequential->Look(so_far); };
  }
  absl::StatusOr<Report> report = ProfileSource(source, inputs.values, session, ToleranceOf(options));
  c.progress->Finish();
  if (unknown_modules) return Fail(c.err, kExitUsage, absl::StrCat("--modules: ", report.status().message()));
  if (!report.ok()) return Fail(c.err, kExitFailure, report.status());
  if (!c.observers.device_note.empty()) report->device_note = c.observers.device_note;
  report->notes.insert(report->notes.end(), inputs.notes.begin(), inputs.notes.end());
  if (options.memory) report->notes.push_back(absl::StrCat("live memory after the runs: ", FormatLiveMemory(ReadLiveMemory())));
  if (!options.worker_dir.empty()) return WriteWorkerReports(options, {{kWorkerReport, &*report}}, c.err);
  std::string why = absl::StrCat("--runs=", report->runs, " timed runs");
  for (const std::string& note : report->notes) {
    if (absl::StartsWith(note, "--runs=auto:")) why = note;
  }
  if (c.ranks != nullptr) {
    // Every rank's report to rank 0, which writes the merged outputs; the
    // others end with their own verification's exit code.
    const bool root = c.ranks->rank() == 0;
    const int verified = root ? kExitOk : VerificationExit(*report, options, c.err, "");
    absl::StatusOr<std::optional<Report>> merged = GatherRankReports(*c.ranks, *std::move(report));
    if (!merged.ok()) return Fail(c.err, kExitFailure, merged.status());
    if (!root) return verified;
    return EmitReport(options, base, **merged, c.out, c.err, ProgressOfReport(**merged, why));
  }
  return EmitReport(options, base, *report, c.out, c.err,
                    sequential.has_value() ? sequential->Progress(why) : ProgressOfReport(*report, why));
}

// The profile (or A/B) in worker processes as `plan` says, merged, then
// rendered as one profile would be. `gate`: the check's sequential gate,
// which the plan's looks used; `note` says how the processes were chosen.
int RunWithWorkers(const CliOptions& options, const WorkerPlan& plan, const std::string& note,
                   const std::optional<Report>& base, std::FILE* out, std::FILE* err,
                   const SequentialGate* gate = nullptr) {
  absl::StatusOr<WorkerReports> workers = RunWorkers(options, plan, err);
  if (!workers.ok()) return Fail(err, kExitFailure, workers.status());
  const std::string processes = absl::StrCat(workers->processes, " worker processes, one after another");
  if (!workers->b.has_value()) {
    workers->report.notes.push_back(note.empty() ? absl::StrCat("profiled in ", processes) : note);
    CheckProgress progress;
    if (gate != nullptr) {
      progress = gate->Progress(workers->stop_reason.empty() ? absl::StrCat("the most processes, ", processes)
                                                             : workers->stop_reason);
      progress.processes = workers->processes;
    } else {
      progress = ProgressOfReport(workers->report, absl::StrCat(processes, ", each ending its runs by itself"));
    }
    return EmitReport(options, base, workers->report, out, err, progress);
  }
  BeforeAfter ab;
  ab.before = std::move(workers->report);
  ab.after = *std::move(workers->b);
  ab.order = "ABBA";
  const DiffOptions diff_options = DiffOptionsOf(options);
  ab.diff = DiffReports(ab.before, ab.after, diff_options);
  ab.before_drift = MeasureDrift(ab.before, diff_options.verdict);
  ab.after_drift = MeasureDrift(ab.after, diff_options.verdict);
  for (Report* r : {&ab.before, &ab.after}) r->notes.push_back(absl::StrCat("A and B profiled in each of ", processes));
  return EmitAb(options, ab, out, err);
}


// What the flags alone refuse, before anything is loaded or spawned: the
// options, the sort key, the outputs, a worker's directory.
int CheckBeforeLoading(const CliOptions& options, const CudaStatus& cuda, std::FILE* err) {
  if (absl::Status valid = Validate(options); !valid.ok()) return Fail(err, kExitUsage, valid);
  if (!options.sort.empty()) {
    if (absl::Status known = CheckSortKey(options, cuda); !known.ok()) return Fail(err, kExitUsage, known);
  }
  if (int code = CheckOutputs(options, err); code != kExitOk) return code;
  if (!options.worker_dir.empty()) {
    // A worker's directory is its parent's fresh one: a report there is
    // someone else's, never replaced.
    for (const char* name : {kWorkerReport, kWorkerA, kWorkerB}) {
      const std::string path = absl::StrCat(options.worker_dir, "/", name);
      if (access(path.c_str(), F_OK) == 0) {
        return Fail(err, kExitFailure, absl::StrCat("--worker_dir: ", path, " exists: a worker never replaces a report"));
      }
    }
  }
  return kExitOk;
}

// The roofline's ceilings: given, measured (before the runs, so they do not
// disturb them), or cached from an earlier measurement.
std::optional<Ceilings> CeilingsOf(const CliOptions& options, const Machine& machine) {
  if (!options.peaks.empty()) {
    const std::pair<double, double> peaks = *ParsePeaks(options.peaks);
    return Ceilings{peaks.first, peaks.second, -1, -1, options.threads, "given (--peaks)"};
  }
  if (options.roofline) return MeasureCeilings(machine, PeakOptions{options.threads, options.remeasure_peaks, ""});
  return CachedCeilings(machine, PeakOptions{options.threads, false, ""});
}

// Operator libraries (the environment's, --load_library), before the model:
// it may call their operators. One already loaded is skipped with a note.
int LoadLibraries(const CliOptions& options, std::FILE* err) {
  absl::StatusOr<std::vector<std::string>> notes = LoadOperatorLibrariesFromEnvironment();
  if (!notes.ok()) return Fail(err, kExitFailure, notes.status());
  for (const std::string& library : options.load_libraries) {
    absl::StatusOr<LoadedLibrary> loaded = LoadOperatorLibrary(library);
    if (!loaded.ok()) return Fail(err, kExitFailure, absl::StrCat("--load_library: ", loaded.status().message()));
    if (loaded->skipped) notes->push_back(absl::StrCat("--load_library: ", loaded->note));
  }
  for (const std::string& note : *notes) {
    std::fprintf(err, "profile_graph: note: %s\n", EscapeForTerminal(note).c_str());
  }
  return kExitOk;
}

// The profile's options from the flags (the clock: --clock's, else the
// default one, calibrating in `default_clock` while the inputs loaded).
absl::StatusOr<ProfileOptions> ProfileOptionsOf(const CliOptions& options,
                                                std::future<std::shared_ptr<TimeSource>>& default_clock) {
  ProfileOptions profile;
  profile.warmup = options.warmup;
  profile.runs = options.runs;
  profile.adaptive.enabled = options.runs_auto;
  profile.adaptive.width = options.min_effect;  // above 0 with --runs=auto (ValidateCommon)
  profile.adaptive.max_time_s = options.max_time;
  profile.compensate = options.compensate;
  profile.plan.allow_side_effects = options.allow_side_effects;
  profile.backward.enabled = options.backward;
  profile.backward.loss_output = options.loss_output;
  if (!options.clock.empty()) {
    absl::StatusOr<std::shared_ptr<TimeSource>> clock = MakeTimeSource(options.clock);
    if (!clock.ok()) return absl::InvalidArgumentError(absl::StrCat("--clock: ", clock.status().message()));
    profile.clock = *std::move(clock);
  } else {
    profile.clock = default_clock.valid() ? default_clock.get() : DefaultTimeSource();
  }
  profile.memory = true;
  profile.trace = !options.trace.empty() || !options.html.empty();
  return profile;
}

}  // namespace

namespace {
int ProfileHere(const CliOptions& options, const CudaStatus& cuda, const std::optional<Report>& base,
                RankGroup* ranks, std::FILE* out, std::FILE* err);
}  // namespace

int RunProfileGraph(const CliOptions& options, std::FILE* out, std::FILE* err) {
  if (options.list_zoo) {
    std::fputs(ListZoo().c_str(), out);
    return kExitOk;
  }
  if (options.list_passes) {
    std::fputs(ListPasses().c_str(), out);
    return kExitOk;
  }
  // Probed once: the sort-key check and the collectors both follow it.
  const CudaStatus cuda = options.cuda_profile ? ProbeCuda() : CudaStatus{};
  if (int code = CheckBeforeLoading(options, cuda, err); code != kExitOk) return code;
  // A rank of a torch.distributed program joins its group first: a rank
  // that cannot run says so before the others wait for it.
  absl::StatusOr<std::unique_ptr<RankGroup>> ranks = JoinRanksIfAny(options);
  if (!ranks.ok()) return Fail(err, absl::IsInvalidArgument(ranks.status()) ? kExitUsage : kExitFailure, ranks.status());
  std::optional<Report> base;
  if (const std::string& base_path = BaseReportPath(options); !base_path.empty()) {
    absl::StatusOr<Report> parsed = ReadReportFile(base_path);
    if (!parsed.ok()) return Fail(err, kExitFailure, parsed.status());
    base = *std::move(parsed);
  }
  if (*ranks != nullptr) return EndRank(ranks->get(), ProfileHere(options, cuda, base, ranks->get(), out, err));
  std::optional<SequentialGate> gate;
  if (options.check && options.runs_auto && base.has_value()) gate.emplace(GateOptionsOf(options), *base);
  if (std::optional<ProcessChoice> chosen = ChooseProcesses(options, base, gate ? &*gate : nullptr); chosen) {
    return RunWithWorkers(options, chosen->plan, chosen->note, base, out, err,
                          chosen->sequential ? &*gate : nullptr);
  }
  if (options.workers > 0 && options.worker_dir.empty()) {
    return RunWithWorkers(options, GivenWorkers(options), "", base, out, err);
  }
  return ProfileHere(options, cuda, base, nullptr, out, err);
}

namespace {

// The profile (or A/B, or migration diff) in this process; `ranks`: as a
// rank of a torch.distributed program.
int ProfileHere(const CliOptions& options, const CudaStatus& cuda, const std::optional<Report>& base,
                RankGroup* ranks, std::FILE* out, std::FILE* err) {
  at::set_num_threads(options.threads);
  torch::NoGradGuard no_grad;
  MatchBlasThreads(options.threads);  // OpenBLAS's own threads, where it allows
  // Ranks share a terminal: rank 0 shows the progress.
  Progress progress(err, options.progress && IsTerminal(err) && (ranks == nullptr || ranks->rank() == 0));
  Context c{options, DescribeMachine(), std::nullopt, {}, {}, &progress, out, err, ranks};  // the load average before the runs
  c.ceilings = CeilingsOf(options, c.machine);
  // --memory: live CPU tensor bytes in the summary, counted from before the model loads.
  if (options.memory) CountCpuTensorMemory().IgnoreError();  // if refused, the summary says why
  // Libraries and sources first, while this process has no thread of its
  // own that could hold a lock: both try loading a shared library in a
  // forked child (library_probe.h), which copies only the forking thread and
  // deadlocks on a lock another thread held at that moment (stop 67: the
  // clock's calibration thread, started here before, held AddressSanitizer's
  // allocator lock when --load_library forked; the child waited forever).
  if (int code = LoadLibraries(options, err); code != kExitOk) return code;
  absl::StatusOr<std::unique_ptr<ModelSource>> source = OpenCliSource(options);
  if (!source.ok()) return Fail(err, kExitFailure, source.status());
  if (absl::Status ready = PrepareCollectives(**source, ranks); !ready.ok()) return Fail(err, kExitFailure, ready);
  // --compare_model: the other source, whose inputs serve both sides when none are given.
  std::unique_ptr<ModelSource> other;
  if (!options.compare_model.empty()) {
    absl::StatusOr<std::unique_ptr<ModelSource>> opened = OpenCompareSource(options);
    if (!opened.ok()) return Fail(err, kExitFailure, opened.status());
    other = *std::move(opened);
  }
  // The default clock calibrates itself (~20 ms, mostly asleep) while the
  // inputs load.
  std::future<std::shared_ptr<TimeSource>> default_clock;
  if (options.clock.empty()) {
    try {
      default_clock = std::async(std::launch::async, [] { return DefaultTimeSource(); });
    } catch (const std::system_error&) {
      // No thread to spare: calibrated in ProfileOptionsOf instead.
    }
  }
  absl::StatusOr<CliInputs> inputs = LoadCliInputs(options, **source, other.get());
  if (!inputs.ok()) return Fail(err, kExitFailure, inputs.status());
  absl::StatusOr<ProfileOptions> profile = ProfileOptionsOf(options, default_clock);
  if (!profile.ok()) return Fail(err, kExitFailure, profile.status());
  c.profile = *std::move(profile);
  c.profile.progress = [&](const char* phase, int done, int total) { progress.Update(phase, done, total); };
  c.profile.node_progress = [&](int64_t done, int64_t per_run) { progress.Nodes(done, per_run); };
  SetUpObservers(options, cuda, err, c.observers, c.profile);
  if (ranks != nullptr) {
    // The graph's collectives talk to the ranks' own group (PrepareCollectives).
    c.profile.plan.allow_collectives = true;
    // Outside the timed region: run k of every rank is the same step.
    c.profile.before_run = [ranks](int run) { return ranks->Barrier(absl::StrCat("run ", run)); };
    // The merged report keeps each rank's first timed run as a lane of the
    // page's timeline (GatherRankReports sends only that run's events).
    if (ranks->world_size() > 1) c.profile.trace = true;
  }

  if (other != nullptr) return RunMigrationDiff(c, **source, *other, inputs->values);
  if (!options.ab.empty()) return RunAb(c, **source, inputs->values);
  return RunSession(c, **source, *inputs, base);
}

}  // namespace

}  // namespace graphprof::cli
