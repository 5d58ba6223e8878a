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

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/output_file.h"
#include "common/status_util.h"
#include "ir/export/exported_program.h"
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
#include "profilers/time_source.h"
#include "profilers/toolbox/cpu_tensor_counter.h"
#include "profilers/toolbox/live_memory.h"
#include "profilers/verification/reference_check.h"
#include "tools/model_source.h"
#include "tools/check_command.h"
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
  DeviceEventTimer::DeclareMetric(with_device);
  KernelAttribution::Declare(with_device);
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

VerdictOptions VerdictOptionsOf(const CliOptions& options) {
  VerdictOptions v;
  v.min_effect = options.min_effect;
  v.alpha = options.alpha;
  return v;
}

// The options of a two-sided profile (--ab, --compare_model, a program's
// A/A) from the flags.
BeforeAfterOptions BeforeAfterOptionsOf(const CliOptions& options, const ProfileOptions& profile) {
  BeforeAfterOptions ab_options;
  ab_options.profile = profile;
  ab_options.method = options.method;
  ab_options.copies = options.ab_copies;
  ab_options.diff.include_unexecuted = options.diff_all;
  ab_options.diff.verdict = VerdictOptionsOf(options);
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

// What the CLI adds to a report's description (RunProfileSession and
// DescribeModel give the rest).
void DescribeForCli(Report& report, const ModelSource& source, const Observers& observers) {
  if (!observers.device_note.empty()) report.device_note = observers.device_note;
  // The CLI profiles inference: LoadModelSource put the module in eval mode.
  if (source.module.has_value() && source.saved_in_training) {
    report.notes.push_back(
        "the module was saved in training mode; profiled in eval mode (.eval(): dropout off, batch norm on "
        "running statistics), as inference runs it");
  }
}

// An A/B side's description: the session's, by hand (ProfileBeforeAfter
// profiles both sides itself).
void DescribeSide(Report& report, const ModelSource& source, const std::vector<c10::IValue>& inputs,
                  const Observers& observers, const std::string& name, const Machine& machine,
                  const std::optional<Ceilings>& ceilings) {
  DescribeModel(report, name, source.module.has_value() ? &*source.module : nullptr, inputs, machine, ceilings);
  DescribeForCli(report, source, observers);
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
               std::FILE* err) {
  Report* report = &report_value;
  if (options.check) {
    // The gate, as for two saved reports; its verdict is the main output.
    const int gate = RunGate(
        options, *base, *report,
        [&](std::string text, const ReportDiff& diff) {
          return WriteOutputs(options, *report, MainOutput{std::move(text), nullptr}, out, err, &diff);
        },
        err);
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
    DiffOptions diff_options;
    diff_options.include_unexecuted = options.diff_all;
    diff_options.verdict = VerdictOptionsOf(options);
    diff = DiffReports(*base, *report, diff_options);
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

// --compare_model: the TorchScript module (A) against its torch.export
// program (B), interleaved, diffed with verdicts; outputs as --ab's.
int RunMigrationDiff(const CliOptions& options, const ModelSource& source, ExportedProgram program,
                     const std::vector<c10::IValue>& inputs,
                     const ProfileOptions& profile, const Observers& observers, const Machine& machine,
                     const std::optional<Ceilings>& ceilings, Progress& progress, std::FILE* out, std::FILE* err) {
  if (!source.module.has_value()) {
    return Fail(err, kExitUsage, "--compare_model: --model must be a TorchScript module (the A side)");
  }
  if (absl::Status fits = CheckExportedInputs(program.inputs, inputs); !fits.ok()) {
    return Fail(err, kExitFailure, absl::StrCat(options.compare_model, ": ", fits.message()));
  }
  const BeforeAfterOptions ab_options = BeforeAfterOptionsOf(options, profile);
  // The program's copies (own weights each): the archive read once more per
  // copy after the first.
  std::vector<std::shared_ptr<const GraphPlan>> plans;
  for (int k = 0; k < CopiesPerSide(ab_options); ++k) {
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan;
    if (k == 0) {
      plan = GraphPlan::Build(std::move(program.prepared), profile.plan);
    } else {
      absl::StatusOr<ExportedProgram> copy = LoadExportedProgram(options.compare_model);
      if (!copy.ok()) return Fail(err, kExitFailure, copy.status());
      plan = GraphPlan::Build(std::move(copy->prepared), profile.plan);
    }
    if (!plan.ok()) return Fail(err, kExitFailure, Annotate(plan.status(), options.compare_model));
    plans.push_back(*std::move(plan));
  }
  absl::StatusOr<BeforeAfter> ab = ProfileAgainstGraph(*source.module, std::move(plans),
                                                       absl::StrCat("B (", options.compare_model, ")"), inputs, ab_options);
  progress.Finish();
  if (!ab.ok()) return Fail(err, kExitFailure, ab.status());
  DescribeSide(ab->before, source, inputs, observers, absl::StrCat(source.display_name, " (A: TorchScript)"), machine,
               ceilings);
  DescribeSide(ab->after, source, inputs, observers, absl::StrCat(options.compare_model, " (B: torch.export)"), machine,
               ceilings);
  ab->after.parameters = program.parameters;
  ab->after.model_bytes = -1;
  ab->diff.base_model = ab->before.model;
  ab->diff.current_model = ab->after.model;
  return EmitAb(options, *ab, out, err);
}

// --ab=none on a torch.export program: copies of it a side (--ab_copies;
// the archive read once per copy, so each has its own weights; A's first is
// the one already loaded), interleaved; each side's output checked against
// the program's reference outputs where it has them for these inputs.
int RunProgramAa(const CliOptions& options, const ModelSource& source, const std::vector<c10::IValue>& inputs,
                 const ProfileOptions& profile, const Observers& observers, const Machine& machine,
                 const std::optional<Ceilings>& ceilings, Progress& progress, std::FILE* out, std::FILE* err) {
  // Verified below against the program's reference outputs, not here.
  const BeforeAfterOptions ab_options = BeforeAfterOptionsOf(options, profile);
  std::vector<std::shared_ptr<const GraphPlan>> a, b;
  const int copies = CopiesPerSide(ab_options);
  for (int k = 0; k < 2 * copies; ++k) {
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan;
    if (k == 0) {
      plan = GraphPlan::Build(source.prepared, profile.plan);
    } else {
      absl::StatusOr<ExportedProgram> again = LoadExportedProgram(options.model);
      if (!again.ok()) return Fail(err, kExitFailure, again.status());
      plan = GraphPlan::Build(std::move(again->prepared), profile.plan);
    }
    if (!plan.ok()) return Fail(err, kExitFailure, plan.status());
    (k < copies ? a : b).push_back(*std::move(plan));
  }
  c10::IValue a_output, b_output;
  absl::StatusOr<BeforeAfter> ab =
      ProfileTwoPlans(std::move(a), std::move(b), "B", inputs, ab_options, &a_output, &b_output);
  progress.Finish();
  if (!ab.ok()) return Fail(err, kExitFailure, ab.status());
  const ExportVerification v = VerifyExport(*source.exported, inputs);
  for (auto [report, output, side] : {std::tuple{&ab->before, &a_output, " (A)"}, std::tuple{&ab->after, &b_output, " (B)"}}) {
    DescribeSide(*report, source, inputs, observers, absl::StrCat(source.display_name, side), machine, ceilings);
    report->parameters = source.exported->parameters;
    report->notes.insert(report->notes.end(), source.exported->notes.begin(), source.exported->notes.end());
    if (!options.verify) continue;
    if (!v.possible) {
      report->unverified_reason = v.why_not;
      continue;
    }
    OutputCheck check;
    check.transformed = !v.exact;
    check.rtol = options.rtol;
    check.atol = options.atol;
    check.reference = v.reference;
    report->verification = CheckOutput(v.expected, *output, check);
  }
  ab->diff.base_model = ab->before.model;
  ab->diff.current_model = ab->after.model;
  return EmitAb(options, *ab, out, err);
}

// --workers=K: the profile (or A/B) in K worker processes, merged, then
// rendered as one profile would be.
int RunWithWorkers(const CliOptions& options, std::optional<Report> base, std::FILE* out, std::FILE* err) {
  absl::StatusOr<WorkerReports> workers = RunWorkers(options, err);
  if (!workers.ok()) return Fail(err, kExitFailure, workers.status());
  const std::string processes = absl::StrCat(options.workers, " worker processes, one after another");
  if (!workers->b.has_value()) {
    workers->report.notes.push_back(absl::StrCat("profiled in ", processes));
    return EmitReport(options, base, workers->report, out, err);
  }
  BeforeAfter ab;
  ab.before = std::move(workers->report);
  ab.after = *std::move(workers->b);
  ab.order = "ABBA";
  DiffOptions diff_options;
  diff_options.include_unexecuted = options.diff_all;
  diff_options.verdict = VerdictOptionsOf(options);
  ab.diff = DiffReports(ab.before, ab.after, diff_options);
  ab.before_drift = MeasureDrift(ab.before, diff_options.verdict);
  ab.after_drift = MeasureDrift(ab.after, diff_options.verdict);
  for (Report* r : {&ab.before, &ab.after}) r->notes.push_back(absl::StrCat("A and B profiled in each of ", processes));
  return EmitAb(options, ab, out, err);
}

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
  if (absl::Status valid = Validate(options); !valid.ok()) return Fail(err, kExitUsage, valid);
  // Probed once: the sort-key check and the collectors both follow it.
  const CudaStatus cuda = options.cuda_profile ? ProbeCuda() : CudaStatus{};
  if (!options.sort.empty()) {
    // Check the sort key now rather than after loading the model, spawning
    // workers or a long run.
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
  std::optional<Report> base;
  if (const std::string& base_path = BaseReportPath(options); !base_path.empty()) {
    absl::StatusOr<Report> parsed = ReadReportFile(base_path);
    if (!parsed.ok()) return Fail(err, kExitFailure, parsed.status());
    base = *std::move(parsed);
  }
  if (options.workers > 0 && options.worker_dir.empty()) return RunWithWorkers(options, std::move(base), out, err);

  at::set_num_threads(options.threads);
  torch::NoGradGuard no_grad;
  MatchBlasThreads(options.threads);           // OpenBLAS's own threads, where it allows
  const Machine machine = DescribeMachine();  // the load average before this run adds to it
  // The roofline's ceilings: given, measured (before the runs, so they do
  // not disturb them), or cached from an earlier measurement.
  std::optional<Ceilings> ceilings;
  if (!options.peaks.empty()) {
    const std::pair<double, double> peaks = *ParsePeaks(options.peaks);
    ceilings = Ceilings{peaks.first, peaks.second, -1, -1, options.threads, "given (--peaks)"};
  } else if (options.roofline) {
    ceilings = MeasureCeilings(machine, PeakOptions{options.threads, options.remeasure_peaks, ""});
  } else {
    ceilings = CachedCeilings(machine, PeakOptions{options.threads, false, ""});
  }
  // --memory: live CPU tensor bytes in the summary, counted from before the model loads.
  if (options.memory) CountCpuTensorMemory().IgnoreError();  // if refused, the summary says why

  // The default clock calibrates itself (~20 ms, mostly asleep) while the
  // model loads.
  std::future<std::shared_ptr<TimeSource>> default_clock;
  if (options.clock.empty()) {
    try {
      default_clock = std::async(std::launch::async, [] { return DefaultTimeSource(); });
    } catch (const std::system_error&) {
      // No thread to spare: calibrated below instead.
    }
  }
  // Operator libraries first: the model may call their operators.
  // One already loaded (the same file or the same bytes) is skipped with a note.
  absl::StatusOr<std::vector<std::string>> library_notes = LoadOperatorLibrariesFromEnvironment();
  if (!library_notes.ok()) return Fail(err, kExitFailure, library_notes.status());
  for (const std::string& library : options.load_libraries) {
    absl::StatusOr<LoadedLibrary> loaded = LoadOperatorLibrary(library);
    if (!loaded.ok()) return Fail(err, kExitFailure, absl::StrCat("--load_library: ", loaded.status().message()));
    if (loaded->skipped) library_notes->push_back(absl::StrCat("--load_library: ", loaded->note));
  }
  for (const std::string& note : *library_notes) {
    std::fprintf(err, "profile_graph: note: %s\n", EscapeForTerminal(note).c_str());
  }
  absl::StatusOr<ModelSource> source = LoadModelSource(options);
  if (!source.ok()) return Fail(err, kExitFailure, source.status());
  // --compare_model: the program, whose inputs serve both sides when none are given.
  std::optional<ExportedProgram> other;
  if (!options.compare_model.empty()) {
    absl::StatusOr<ExportedProgram> program = LoadExportedProgram(options.compare_model);
    if (!program.ok()) return Fail(err, kExitFailure, program.status());
    other = *std::move(program);
  }
  absl::StatusOr<std::vector<c10::IValue>> inputs;
  if (other.has_value() && options.inputs.empty() && options.input.empty() &&
      (other->reference.has_value() || other->example_inputs.has_value())) {
    inputs = other->reference.has_value() ? other->reference->inputs : *other->example_inputs;
  } else {
    inputs = LoadModelInputs(options, *source);
  }
  if (!inputs.ok()) return Fail(err, kExitFailure, inputs.status());
  if (source->exported != nullptr && ((!options.ab.empty() && options.ab != "none") || options.backward)) {
    return Fail(err, kExitUsage,
                "--ab with passes and --backward need a TorchScript module; a torch.export program takes --ab=none (an A/A)");
  }

  Progress progress(err, options.progress && IsTerminal(err));
  Observers observers;
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
    if (!clock.ok()) return Fail(err, kExitFailure, absl::StrCat("--clock: ", clock.status().message()));
    profile.clock = *std::move(clock);
  } else {
    profile.clock = default_clock.valid() ? default_clock.get() : DefaultTimeSource();
  }
  profile.memory = true;
  profile.trace = !options.trace.empty() || !options.html.empty();
  profile.progress = [&](const char* phase, int done, int total) { progress.Update(phase, done, total); };
  profile.node_progress = [&](int64_t done, int64_t per_run) { progress.Nodes(done, per_run); };
  SetUpObservers(options, cuda, err, observers, profile);

  if (other.has_value()) {
    return RunMigrationDiff(options, *source, *std::move(other), *inputs, profile, observers, machine, ceilings, progress,
                            out, err);
  }

  if (!options.ab.empty() && source->exported != nullptr) {
    return RunProgramAa(options, *source, *inputs, profile, observers, machine, ceilings, progress, out, err);
  }

  if (!options.ab.empty()) {
    const BeforeAfterOptions ab_options = BeforeAfterOptionsOf(options, profile);
    absl::StatusOr<std::vector<Pass>> passes = ParsePasses(options.ab);
    if (!passes.ok()) return Fail(err, kExitUsage, passes.status());
    absl::StatusOr<BeforeAfter> ab = ProfileBeforeAfter(*source->module, *passes, *inputs, ab_options);
    progress.Finish();
    if (!ab.ok()) return Fail(err, kExitFailure, ab.status());
    DescribeSide(ab->before, *source, *inputs, observers, absl::StrCat(source->display_name, " (A: as loaded)"),
                 machine, ceilings);
    DescribeSide(ab->after, *source, *inputs, observers,
                 absl::StrCat(source->display_name, " (B: ", DescribePasses(*passes), ")"), machine, ceilings);
    ab->diff.base_model = ab->before.model;
    ab->diff.current_model = ab->after.model;
    return EmitAb(options, *ab, out, err);
  }

  // The session: plan (--modules checked against it first), profile,
  // describe, verify (profilers/session/session.h).
  SessionModel model;
  model.name = source->display_name;
  model.prepared = source->prepared;
  model.module = source->module;
  model.method = options.method;
  model.run_native = source->run_native;
  SessionOptions session;
  session.profile = profile;
  session.verify = options.verify;
  std::string export_note;
  if (source->exported != nullptr && options.verify) {
    // No native executor for a torch.export program: its outputs are
    // checked against those PyTorch computed, where the archive has them.
    ExportVerification v = VerifyExport(*source->exported, *inputs);
    if (v.possible) {
      const c10::IValue expected = v.expected;
      model.run_native = [expected](const std::vector<c10::IValue>&) -> absl::StatusOr<c10::IValue> { return expected; };
      session.check.transformed = !v.exact;
      session.check.float64_reference = false;
      session.check.reference = v.reference;
    } else {
      session.verify = false;
      export_note = v.why_not;
    }
  }
  if (source->exported == nullptr) {
    session.check.transformed = source->transformed;
    session.check.float64_reference = !options.tolerance_given;
    session.check.reference = source->prepared.has_self() ? absl::StrCat("module.", options.method) : "native execution";
  }
  session.check.rtol = options.rtol;
  session.check.atol = options.atol;
  session.machine = machine;
  session.ceilings = ceilings;
  bool unknown_modules = false;
  if (!options.modules.empty()) {
    session.check_plan = [&](const GraphPlan& plan) -> absl::Status {
      std::vector<std::string> node_modules;
      for (const NodePlan& node : plan.nodes()) node_modules.push_back(node.identity.module);
      absl::Status known = CheckModules(node_modules, source->display_name, options.modules);
      unknown_modules = !known.ok();
      return known;
    };
  }
  absl::StatusOr<Report> report = RunProfileSession(std::move(model), *inputs, session);
  progress.Finish();
  if (unknown_modules) return Fail(err, kExitUsage, absl::StrCat("--modules: ", report.status().message()));
  if (!report.ok()) return Fail(err, kExitFailure, report.status());
  DescribeForCli(*report, *source, observers);
  if (source->exported != nullptr) {
    const ExportedProgram& program = *source->exported;
    report->notes.push_back(absl::StrCat("a torch.export program (", program.layout, ", schema ", program.schema_version,
                                         ", exported by PyTorch ", program.torch_version, ")"));
    report->notes.insert(report->notes.end(), program.notes.begin(), program.notes.end());
    report->parameters = program.parameters;
  }
  if (!source->inputs_from.empty()) report->notes.push_back(absl::StrCat("inputs: ", source->inputs_from));
  if (!source->defaulted_inputs.empty()) {
    report->notes.push_back(absl::StrCat("inputs not given took the method's defaults: ", source->defaulted_inputs));
  }
  report->unverified_reason = export_note;
  if (options.memory) report->notes.push_back(absl::StrCat("live memory after the runs: ", FormatLiveMemory(ReadLiveMemory())));

  if (!options.worker_dir.empty()) return WriteWorkerReports(options, {{kWorkerReport, &*report}}, err);
  return EmitReport(options, base, *report, out, err);
}

}  // namespace graphprof::cli
