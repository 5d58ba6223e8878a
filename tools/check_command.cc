#include "tools/check_command.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/terminal_text.h"
#include "profilers/report/format.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_table.h"
#include "tools/cli_option_names.h"
#include "tools/report_output.h"
#include "tools/sequential_gate.h"

namespace graphprof::cli {
namespace {

int ExitOf(GateOutcome o) {
  switch (o) {
    case GateOutcome::kPassed: return kExitOk;
    case GateOutcome::kFailed: return kExitRegression;
    case GateOutcome::kInconclusive: return kExitInconclusive;
  }
  return kExitFailure;
}

std::string Plural(int n, const char* one, const char* many) { return absl::StrCat(n, " ", n == 1 ? one : many); }

// What the check did: "3 looks, 1 process, 12.4 s: <why it stopped>".
std::string TookLine(const CheckProgress& p) {
  return absl::StrCat(Plural(p.looks, "look", "looks"), ", ", Plural(p.processes, "process", "processes"), ", ",
                      absl::StrFormat("%.1f s", p.seconds), p.stop_reason.empty() ? "" : ": ",
                      EscapeForTerminal(p.stop_reason));
}

std::string RenderJson(const CliOptions& options, const GateResult& gate, const CheckProgress& progress) {
  std::string text;
  JsonWriter w(&text);
  w.BeginObject();
  w.Key("status"); w.String(GateOutcomeName(gate.outcome));
  w.Key("passed"); w.Bool(gate.outcome == GateOutcome::kPassed);
  w.Key("looks"); w.Int(progress.looks);
  w.Key("processes"); w.Int(progress.processes);
  w.Key("stop_reason"); w.String(progress.stop_reason);
  w.Key("seconds"); w.Approx(progress.seconds);
  w.Key("alpha"); w.Approx(gate.diff.verdict_options.alpha);
  w.Key("fail_on"); w.String(absl::StrJoin(options.fail_on, ","));
  w.Key("rows_selected"); w.Int(gate.selected);
  w.Key("rows_tested"); w.Int(gate.tested);
  w.Key("accepted");
  w.BeginArray();
  for (const std::string& note : gate.accepted) w.String(note);
  w.EndArray();
  w.Key("offenders");
  w.BeginArray();
  for (const GateRow& o : gate.offenders) {
    w.BeginObject();
    w.Key("what"); w.String(o.what);
    w.Key("name"); w.String(o.name);
    w.Key("base_us"); w.Approx(o.base_ns / 1e3);
    w.Key("current_us"); w.Approx(o.current_ns / 1e3);
    w.Key("change"); w.Approx(o.stats.change);
    w.Key("change_low"); w.Approx(o.stats.change_low);
    w.Key("change_high"); w.Approx(o.stats.change_high);
    w.Key("q"); w.Approx(o.stats.q);
    w.EndObject();
  }
  w.EndArray();
  w.Key("diff"); w.Newline(); WriteDiffJson(gate.diff, w);
  w.EndObject();
  text += "\n";
  return text;
}

std::string RenderText(const CliOptions& options, const GateResult& gate, const CheckProgress& progress) {
  const ReportDiff& diff = gate.diff;
  std::string text = absl::StrCat("graphprof check: ", EscapeForTerminal(diff.current_model), " against baseline ",
                                  EscapeForTerminal(diff.base_model), "\n");
  absl::StrAppend(&text, "  run time   ", FormatMicros(diff.base_total_ns), " us -> ", FormatMicros(diff.current_total_ns),
                  " us: ", FormatChange(diff.total), "\n", FormatSpeedLine(diff));
  absl::StrAppend(&text, "  verdicts   nodes: ", FormatVerdictCounts(diff.node_verdicts),
                  "; modules: ", FormatVerdictCounts(diff.module_verdicts), "\n");
  if (!diff.noise_note.empty()) absl::StrAppend(&text, "  note       ", diff.noise_note, "\n");
  absl::StrAppend(&text, "  took       ", TookLine(progress), "\n");
  if (progress.alpha_fraction < 1) {
    absl::StrAppend(&text, "  level      alpha ", absl::StrFormat("%.3g", diff.verdict_options.alpha), " at look ",
                    progress.looks, " (", absl::StrFormat("%.3g", options.alpha),
                    " spread over the looks: a verdict at any look is valid)\n");
  }
  for (const std::string& note : gate.accepted) absl::StrAppend(&text, "  accepted   ", EscapeForTerminal(note), "\n");
  const std::string fail_on = absl::StrJoin(options.fail_on, ",");
  switch (gate.outcome) {
    case GateOutcome::kPassed:
      absl::StrAppend(&text, "PASSED: nothing that --fail_on=", fail_on, " selects is slower than the baseline (",
                      gate.tested, " of ", Plural(gate.selected, "row", "rows"), " tested)\n");
      return text;
    case GateOutcome::kInconclusive:
      absl::StrAppend(&text, "INCONCLUSIVE: none of the ", Plural(gate.selected, "row", "rows"), " that --fail_on=", fail_on,
                      " selects could be tested (too fast to time, or absent): the gate cannot tell whether anything "
                      "got slower\n");
      return text;
    case GateOutcome::kFailed:
      break;
  }
  absl::StrAppend(&text, "FAILED: ", gate.offenders.size(), gate.offenders.size() == 1 ? " row is" : " rows are",
                  " slower than the baseline (--fail_on=", fail_on, ")\n\n");
  using C = TextTable::Column;
  TextTable table({C{"what", TextTable::kLeft}, C{"name", TextTable::kLeft, 60}, C{"base_us", TextTable::kRight},
                   C{"current_us", TextTable::kRight}, C{"change [95% interval]", TextTable::kLeft},
                   C{"q", TextTable::kRight}});
  constexpr size_t kMaxRows = 20;
  for (size_t i = 0; i < gate.offenders.size() && i < kMaxRows; ++i) {
    const GateRow& o = gate.offenders[i];
    table.AddRow({o.what, EscapeForTerminal(o.name), FormatMicros(o.base_ns), FormatMicros(o.current_ns),
                  FormatChange(o.stats), absl::StrFormat("%.2g", o.stats.q)});
  }
  text += table.Render();
  if (gate.offenders.size() > kMaxRows) absl::StrAppend(&text, "(", gate.offenders.size() - kMaxRows, " more)\n");
  return text;
}

}  // namespace

absl::Status ValidateCheck(const CliOptions& o) {
  if (!o.check) {
    if (!o.baseline.empty()) return absl::InvalidArgumentError("--baseline belongs to `profile_graph check`");
    if (o.allow_graph_change || o.allow_input_change || o.Given("fail_on")) {
      return absl::InvalidArgumentError(
          "--fail_on, --allow_graph_change and --allow_input_change belong to `profile_graph check`");
    }
    return absl::OkStatus();
  }
  if (o.baseline.empty()) {
    return absl::InvalidArgumentError("check needs --baseline=BASE.json (a report saved with --format=json)");
  }
  if (o.fail_on.empty()) return absl::InvalidArgumentError("--fail_on needs total, module or node");
  for (const std::string& what : o.fail_on) {
    if (what != "total" && what != "module" && what != "node") {
      return absl::InvalidArgumentError(
          absl::StrCat("--fail_on: unknown '", EscapeForTerminal(what), "' (use total, module, node, comma-separated)"));
    }
  }
  if (!o.compare.empty()) return absl::InvalidArgumentError("check compares with --baseline: not with --compare");
  if (!o.ab.empty()) return absl::InvalidArgumentError("check compares with --baseline: not with --ab");
  if (o.format == Format::kCsv) return absl::InvalidArgumentError("check writes --format=table or json, not csv");
  constexpr char kTakes[] =
      "--baseline, --fail_on, --min_effect, --alpha, --diff_all, --allow_graph_change, --allow_input_change, "
      "--output, --format, --html";
  if (!o.check_current.empty()) {
    // A saved current report: nothing is profiled, so a profiling flag
    // would be ignored.
    if (absl::Status only = RefuseProfilingFlags(o, "check of a saved report", kTakes); !only.ok()) return only;
  }
  // The gate prints its verdict, not a report's tables.
  return RefuseTableFlags(o, "check", kTakes);
}

GateOptions GateOptionsOf(const CliOptions& options) {
  GateOptions gate_options;
  gate_options.fail_on = options.fail_on;
  gate_options.allow_graph_change = options.allow_graph_change;
  gate_options.allow_input_change = options.allow_input_change;
  gate_options.diff.include_unexecuted = options.diff_all;
  gate_options.diff.verdict.min_effect = options.min_effect;
  gate_options.diff.verdict.alpha = options.alpha;
  gate_options.diff.names = CliOptionNames();
  return gate_options;
}

CheckProgress ProgressOfReport(const Report& current, std::string why) {
  CheckProgress p;
  p.processes = std::max<int>(1, static_cast<int>(current.run_sources.size()));
  p.stop_reason = std::move(why);
  return p;
}

int RunGate(const CliOptions& options, const Report& base, const Report& current, const MainOutputWriter& write,
            std::FILE* err, const CheckProgress& progress) {
  const GateOptions gate_options = AtFraction(GateOptionsOf(options), progress.alpha_fraction);
  absl::StatusOr<GateResult> gate = graphprof::RunGate(base, current, gate_options);
  if (!gate.ok()) return Fail(err, kExitFailure, absl::StrCat("check: ", gate.status().message()));
  if (const std::string warning = MachineWarning(base, current); !warning.empty()) {
    std::fprintf(err, "profile_graph: warning: check: %s\n", EscapeForTerminal(warning).c_str());
  }
  CheckProgress took = progress;
  took.seconds = SecondsSinceStart();
  std::string text =
      options.format == Format::kJson ? RenderJson(options, *gate, took) : RenderText(options, *gate, took);
  if (int code = write(std::move(text), gate->diff); code != kExitOk) return code;
  return ExitOf(gate->outcome);
}

int RunCheckOfFiles(const CliOptions& options, std::FILE* out, std::FILE* err) {
  if (int code = CheckOutputs(options, err); code != kExitOk) return code;
  Report sides[2];
  const std::string paths[2] = {options.baseline, options.check_current};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Report> report = ReadReportFile(paths[i]);
    if (!report.ok()) return Fail(err, kExitFailure, report.status());
    sides[i] = *std::move(report);
  }
  return RunGate(
      options, sides[0], sides[1],
      [&](std::string text, const ReportDiff& diff) {
        CliOptions files;  // the check's own outputs; a saved report has no trace to write
        files.output = options.output;
        files.html = options.html;
        return WriteOutputs(files, sides[1], MainOutput{std::move(text), nullptr}, out, err, &diff);
      },
      err, ProgressOfReport(sides[1], "a saved current report"));
}

const std::string& BaseReportPath(const CliOptions& options) {
  return options.check ? options.baseline : options.compare;
}

int RefuseUnreadableBaseReport(const CliOptions& options, std::FILE* err) {
  const std::string& path = BaseReportPath(options);
  if (path.empty()) return kExitOk;
  // profile_graph_full's order: outputs that would overwrite an input (the
  // report among them) or cannot be written are refused first.
  if (int code = CheckOutputs(options, err); code != kExitOk) return code;
  absl::StatusOr<Report> report = ReadReportFile(path);
  return report.ok() ? kExitOk : Fail(err, kExitFailure, report.status());
}

}  // namespace graphprof::cli
