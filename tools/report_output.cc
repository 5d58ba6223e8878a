#include "tools/report_output.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/output_file.h"
#include "common/terminal_text.h"
#include "profilers/report/annotated_ir.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/html_report.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

namespace graphprof::cli {

int TopRows(const CliOptions& options) { return options.top < 0 ? kDefaultTableRows : options.top; }

absl::StatusOr<std::string> RenderTableReport(const Report& report, const CliOptions& options) {
  const int top = TopRows(options);
  std::string out = RenderSummary(report);
  absl::StatusOr<View> main = MakeView(report, ViewOptions{options.group_by, options.sort, top, options.modules});
  if (!main.ok()) return main.status();
  const std::string title =
      options.group_by == GroupBy::kNode ? "top nodes" : absl::StrCat("by ", GroupByName(options.group_by));
  absl::StrAppend(&out, "\n", RenderTable(report, *main, TableOptions{options.memory, title, options.roofline}));
  if (options.group_by == GroupBy::kNode) {
    absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", top, options.modules});
    if (!kinds.ok()) return kinds.status();
    absl::StrAppend(&out, "\n",
                    RenderTable(report, *kinds, TableOptions{options.memory, "by kind (self time)", options.roofline}));
  }
  return out;
}

absl::StatusOr<std::string> RenderReport(const Report& report, const CliOptions& options) {
  switch (options.format) {
    case Format::kTable: return RenderTableReport(report, options);
    case Format::kCsv: {
      absl::StatusOr<View> view =
          MakeView(report, ViewOptions{options.group_by, options.sort, options.top < 0 ? 0 : options.top, options.modules});
      if (!view.ok()) return view.status();
      return RenderCsv(report, *view);
    }
    case Format::kJson: return ReportToJson(report);
  }
  return absl::InternalError("unknown format");
}

std::string RenderDiffAs(const ReportDiff& diff, const CliOptions& options) {
  switch (options.format) {
    case Format::kTable: return RenderDiff(diff, TopRows(options));
    case Format::kCsv: return DiffToCsv(diff);
    case Format::kJson: return DiffToJson(diff);
  }
  return "";
}

absl::StatusOr<MainOutput> ReportOutput(const Report& report, const CliOptions& options) {
  MainOutput main;
  if (options.format == Format::kJson) {
    const Report* r = &report;
    main.stream = [r](TextSink& sink) { StreamReportJson(*r, sink); };
    return main;
  }
  absl::StatusOr<std::string> text = RenderReport(report, options);
  if (!text.ok()) return text.status();
  main.text = *std::move(text);
  return main;
}

int WriteOutputs(const CliOptions& options, const Report& report, MainOutput main, std::FILE* out, std::FILE* err,
                 const ReportDiff* diff) {
  OutputFiles files;
  if (!options.html.empty()) files.Add(options.html, [&](TextSink& sink) { StreamHtml(report, diff, sink); });
  if (options.trace_is_new) {
    files.AddNew(options.trace, [&](TextSink& sink) { StreamChromeTrace(report, sink); });
  } else if (!options.trace.empty()) {
    files.Add(options.trace, [&](TextSink& sink) { StreamChromeTrace(report, sink); });
  }
  if (!options.annotate.empty()) {
    if (report.ir.empty()) return Fail(err, kExitFailure, "--annotate: the report carries no IR to annotate");
    files.Add(options.annotate, [&] { return *RenderAnnotatedIr(report); });
  }
  if (!options.output.empty()) {
    if (main.stream) {
      files.Add(options.output, main.stream);
    } else {
      files.Add(options.output, std::move(main.text));
    }
  }
  if (absl::Status written = files.Commit(); !written.ok()) return Fail(err, kExitFailure, written);
  if (options.trace_is_new) std::fprintf(err, "profile_graph: trace written to %s\n", files.written_path(options.trace).c_str());
  if (options.output.empty()) {
    if (!main.stream) {
      std::fputs(main.text.c_str(), out);
    } else {
      TextSink sink([out](absl::string_view bytes) {
        std::fwrite(bytes.data(), 1, bytes.size(), out);
        return absl::OkStatus();
      });
      main.stream(sink);
      sink.Finish().IgnoreError();
    }
  }
  return kExitOk;
}

int CheckOutputs(const CliOptions& options, std::FILE* err) {
  const std::vector<std::pair<const char*, const std::string*>> outputs = {
      {"--output", &options.output}, {"--trace", &options.trace}, {"--annotate", &options.annotate},
      {"--html", &options.html}};
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"--model", options.model},       {"--ir", options.ir},           {"--inputs", options.inputs},
      {"--compare", options.compare},   {"--baseline", options.baseline}, {"check's report", options.check_current},
      {"--compare_model", options.compare_model}};
  for (const std::string& merged : options.merge) inputs.emplace_back("merge input", merged);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& path = *outputs[i].second;
    if (path.empty()) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (SameFile(path, *outputs[j].second)) {
        return Fail(err, kExitUsage, absl::StrCat(outputs[i].first, " and ", outputs[j].first,
                                                   " go to the same file: ", path));
      }
    }
    for (const auto& [flag, input] : inputs) {
      if (SameFile(path, input)) {
        return Fail(err, kExitUsage, absl::StrCat(outputs[i].first, "=", path, " would overwrite the ", flag, " file"));
      }
    }
    if (absl::Status writable = CheckWritable(path); !writable.ok()) return Fail(err, kExitFailure, writable);
  }
  return kExitOk;
}

}  // namespace graphprof::cli
