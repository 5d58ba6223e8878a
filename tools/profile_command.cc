#include "tools/profile_command.h"

#include <ATen/Parallel.h>
#include <torch/script.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/graph_plan.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "tools/zoo/zoo.h"
#include "profilers/report/annotated_ir.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/csv_report.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/cupti_collector.h"
#include "profilers/gpu/device_timer.h"
#include "profilers/gpu/kernel_attribution.h"
#include "profilers/gpu/nvtx.h"
#include "common/output_file.h"
#include "profilers/profiler.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "profilers/toolbox/sizes.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "tools/model_source.h"
#include "tools/progress.h"

namespace graphprof::cli {
namespace {

constexpr int kDefaultTableRows = 20;

int Fail(std::FILE* err, int code, absl::string_view message) {
  std::fprintf(err, "profile_graph: %s\n", std::string(message).c_str());
  return code;
}

int Fail(std::FILE* err, int code, const absl::Status& status) { return Fail(err, code, status.message()); }

std::string ListZoo() {
  std::string out;
  for (const std::string& name : ZooNames()) {
    absl::StatusOr<ZooModel> model = MakeZooModel(name);
    if (!model.ok()) continue;
    absl::StrAppend(&out, name, "  ", model->description, "  (input ", FormatInputSpecs(model->inputs), ")\n");
  }
  return out;
}

// The sort keys a report of this run will have: the basic ones and those of
// the metrics the options switch on.
absl::Status CheckSortKey(const CliOptions& options) {
  std::vector<std::string> keys = BasicSortKeys();
  if (options.cuda_profile) {
    for (const char* metric : {DeviceEventTimer::kMetricName, KernelAttribution::kCountMetric,
                               KernelAttribution::kTimeMetric}) {
      keys.push_back(metric);
      keys.push_back(absl::StrCat(metric, "_self"));
    }
  }
  if (std::find(keys.begin(), keys.end(), options.sort) != keys.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--sort: unknown sort column '", options.sort, "' (use ", absl::StrJoin(keys, ", "), ")"));
}

absl::StatusOr<std::string> RenderTableReport(const Report& report, const CliOptions& options) {
  const int top = options.top < 0 ? kDefaultTableRows : options.top;
  std::string out = RenderSummary(report);
  absl::StatusOr<View> main = MakeView(report, ViewOptions{options.group_by, options.sort, top});
  if (!main.ok()) return main.status();
  const std::string title =
      options.group_by == GroupBy::kNode ? "top nodes" : absl::StrCat("by ", GroupByName(options.group_by));
  absl::StrAppend(&out, "\n", RenderTable(report, *main, TableOptions{options.memory, title}));
  if (options.group_by == GroupBy::kNode) {
    absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", top});
    if (!kinds.ok()) return kinds.status();
    absl::StrAppend(&out, "\n", RenderTable(report, *kinds, TableOptions{options.memory, "by kind (self time)"}));
  }
  return out;
}

absl::StatusOr<std::string> RenderMain(const Report& report, const CliOptions& options,
                                       const std::optional<Report>& base) {
  if (base.has_value()) {
    const ReportDiff diff = DiffReports(*base, report);
    switch (options.format) {
      case Format::kTable: return RenderDiff(diff, options.top < 0 ? kDefaultTableRows : options.top);
      case Format::kCsv: return DiffToCsv(diff);
      case Format::kJson: return DiffToJson(diff);
    }
  }
  switch (options.format) {
    case Format::kTable: return RenderTableReport(report, options);
    case Format::kCsv: {
      absl::StatusOr<View> view =
          MakeView(report, ViewOptions{options.group_by, options.sort, options.top < 0 ? 0 : options.top});
      if (!view.ok()) return view.status();
      return RenderCsv(report, *view);
    }
    case Format::kJson: return ReportToJson(report);
  }
  return absl::InternalError("unknown format");
}

}  // namespace

int RunProfileGraph(const CliOptions& options, std::FILE* out, std::FILE* err) {
  if (options.list_zoo) {
    std::fputs(ListZoo().c_str(), out);
    return kExitOk;
  }
  if (absl::Status valid = Validate(options); !valid.ok()) return Fail(err, kExitUsage, valid);
  if (!options.sort.empty()) {
    // Check the sort key now rather than after a long run.
    if (absl::Status known = CheckSortKey(options); !known.ok()) return Fail(err, kExitUsage, known);
  }
  for (const std::string* path : {&options.output, &options.trace, &options.annotate}) {
    if (path->empty()) continue;
    if (absl::Status writable = CheckWritable(*path); !writable.ok()) return Fail(err, kExitFailure, writable);
  }
  std::optional<Report> base;
  if (!options.compare.empty()) {
    absl::StatusOr<std::string> text = ReadFile(options.compare);
    if (!text.ok()) return Fail(err, kExitFailure, text.status());
    absl::StatusOr<Report> parsed = ReportFromJson(*text);
    if (!parsed.ok()) return Fail(err, kExitFailure, absl::StrCat(options.compare, ": ", parsed.status().message()));
    base = *std::move(parsed);
  }

  at::set_num_threads(options.threads);
  torch::NoGradGuard no_grad;

  absl::StatusOr<ModelSource> source = LoadModelSource(options);
  if (!source.ok()) return Fail(err, kExitFailure, source.status());
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadModelInputs(options, *source);
  if (!inputs.ok()) return Fail(err, kExitFailure, inputs.status());
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(source->prepared);
  if (!plan.ok()) return Fail(err, kExitFailure, plan.status());

  Progress progress(err, options.progress && IsTerminal(err));
  NvtxObserver nvtx;
  std::unique_ptr<DeviceEventTimer> device_timer;
  std::unique_ptr<CuptiKernelCollector> kernels;
  std::string device_note;
  if (options.cuda_profile) {
    const CudaStatus cuda = ProbeCuda();
    if (cuda.available) {
      device_timer = std::make_unique<DeviceEventTimer>(MakeCudaEventApi());
      kernels = std::make_unique<CuptiKernelCollector>();
    } else {
      // Soft: the host profile is unaffected.
      device_note = absl::StrCat(cuda.reason, ": device columns disabled");
      std::fprintf(err, "profile_graph: %s\n", device_note.c_str());
      device_note = absl::StrCat(device_note, " (", cuda.detail, ")");
    }
  }
  ProfileOptions profile;
  profile.warmup = options.warmup;
  profile.runs = options.runs;
  profile.memory = true;
  profile.trace = !options.trace.empty();
  if (options.nvtx) profile.observers.push_back(&nvtx);
  if (device_timer != nullptr) profile.observers.push_back(device_timer.get());
  if (kernels != nullptr) profile.observers.push_back(kernels.get());
  profile.progress = [&](const char* phase, int done, int total) { progress.Update(phase, done, total); };
  c10::IValue output;
  absl::StatusOr<Report> report = Profile(*plan, *inputs, profile, &output);
  progress.Finish();
  if (!report.ok()) return Fail(err, kExitFailure, report.status());

  report->model = source->display_name;
  if (!device_note.empty()) report->device_note = device_note;
  if (source->module.has_value()) {
    report->parameters = CountParameters(*source->module, /*trainable_only=*/false);
    report->trainable_parameters = CountParameters(*source->module, /*trainable_only=*/true);
    if (absl::StatusOr<int64_t> bytes = SerializedModelSize(*source->module); bytes.ok()) report->model_bytes = *bytes;
  }
  report->input_bytes = DataSize(*inputs);

  if (options.verify) {
    absl::StatusOr<c10::IValue> expected = source->run_native(*inputs);
    if (!expected.ok()) return Fail(err, kExitFailure, expected.status());
    const IValueComparison comparison = CompareIValues(*expected, output, 0, 0);
    Verification v;
    v.identical = comparison.identical;
    v.within_tolerance = comparison.within_tolerance;
    v.max_abs_error = comparison.max_abs_error;
    v.max_rel_error = comparison.max_rel_error;
    v.detail = comparison.detail;
    v.reference = source->prepared.has_self() ? absl::StrCat("module.", options.method) : "native execution";
    report->verification = v;
  }

  absl::StatusOr<std::string> main = RenderMain(*report, options, base);
  if (!main.ok()) return Fail(err, kExitUsage, main.status());
  std::vector<std::pair<std::string, std::string>> files;
  if (!options.trace.empty()) files.emplace_back(options.trace, RenderChromeTrace(*report));
  if (!options.annotate.empty()) {
    absl::StatusOr<std::string> ir = RenderAnnotatedIr(*report);
    if (!ir.ok()) return Fail(err, kExitFailure, ir.status());
    files.emplace_back(options.annotate, *ir);
  }
  if (!options.output.empty()) files.emplace_back(options.output, *main);
  for (const auto& [path, contents] : files) {
    if (absl::Status written = WriteFileAtomically(path, contents); !written.ok()) {
      return Fail(err, kExitFailure, written);
    }
  }
  if (options.output.empty()) std::fputs(main->c_str(), out);

  if (report->verification.has_value() && !report->verification->passed()) {
    return Fail(err, kExitMismatch, absl::StrCat("output differs from native ", options.method, ": ",
                                                  report->verification->detail));
  }
  return kExitOk;
}

}  // namespace graphprof::cli
