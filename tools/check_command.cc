#include "tools/check_command.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "profilers/report/format.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_table.h"
#include "common/terminal_text.h"

namespace graphprof::cli {
namespace {

bool FailsOn(const CliOptions& options, const char* what) {
  return std::find(options.fail_on.begin(), options.fail_on.end(), what) != options.fail_on.end();
}

struct Offender {
  std::string what;  // "total", "module", "node"
  std::string name;
  double base_ns = 0;
  double current_ns = 0;
  const RowComparison* stats = nullptr;
};

std::vector<Offender> Offenders(const CliOptions& options, const ReportDiff& diff) {
  std::vector<Offender> rows;
  if (FailsOn(options, "total") && diff.total.verdict == Verdict::kSlower) {
    rows.push_back(Offender{"total", "run time", diff.base_total_ns, diff.current_total_ns, &diff.total});
  }
  if (FailsOn(options, "module")) {
    for (const GroupDelta& g : diff.modules) {
      if (g.stats.verdict == Verdict::kSlower) rows.push_back(Offender{"module", g.name, g.base_ns, g.current_ns, &g.stats});
    }
  }
  if (FailsOn(options, "node")) {
    for (const NodeDelta& d : diff.nodes) {
      if (d.stats.verdict == Verdict::kSlower) rows.push_back(Offender{"node", d.name, d.base_ns, d.current_ns, &d.stats});
    }
  }
  return rows;
}

}  // namespace

absl::Status ValidateCheck(const CliOptions& o) {
  if (!o.check) {
    if (!o.baseline.empty()) return absl::InvalidArgumentError("--baseline belongs to `profile_graph check`");
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
  if (!o.check_current.empty()) {
    const CliOptions defaults;
    if (!o.model.empty() || !o.zoo.empty() || !o.ir.empty() || o.runs != defaults.runs || o.runs_auto || o.workers != 0) {
      return absl::InvalidArgumentError(
          "check: give either a current report file or profiling flags (--model, --runs, ...), not both");
    }
  }
  return absl::OkStatus();
}

int ReportCheck(const CliOptions& options, const ReportDiff& diff, std::FILE* out) {
  const std::vector<Offender> offenders = Offenders(options, diff);
  const bool failed = !offenders.empty();
  if (options.format == Format::kJson) {
    std::string text;
    JsonWriter w(&text);
    w.BeginObject();
    w.Key("passed"); w.Bool(!failed);
    w.Key("fail_on"); w.String(absl::StrJoin(options.fail_on, ","));
    w.Key("offenders");
    w.BeginArray();
    for (const Offender& o : offenders) {
      w.BeginObject();
      w.Key("what"); w.String(o.what);
      w.Key("name"); w.String(o.name);
      w.Key("base_us"); w.Approx(o.base_ns / 1e3);
      w.Key("current_us"); w.Approx(o.current_ns / 1e3);
      w.Key("change"); w.Approx(o.stats->change);
      w.Key("change_low"); w.Approx(o.stats->change_low);
      w.Key("change_high"); w.Approx(o.stats->change_high);
      w.Key("q"); w.Approx(o.stats->q);
      w.EndObject();
    }
    w.EndArray();
    w.Key("diff"); w.Newline(); WriteDiffJson(diff, w);
    w.EndObject();
    text += "\n";
    std::fputs(text.c_str(), out);
    return failed ? kExitRegression : kExitOk;
  }
  std::string text = absl::StrCat("graphprof check: ", EscapeForTerminal(diff.current_model), " against baseline ",
                                  EscapeForTerminal(diff.base_model), "\n");
  absl::StrAppend(&text, "  run time   ", FormatMicros(diff.base_total_ns), " us -> ", FormatMicros(diff.current_total_ns),
                  " us: ", FormatChange(diff.total), "\n");
  absl::StrAppend(&text, "  verdicts   nodes: ", FormatVerdictCounts(diff.node_verdicts),
                  "; modules: ", FormatVerdictCounts(diff.module_verdicts), "\n");
  if (!diff.noise_note.empty()) absl::StrAppend(&text, "  note       ", diff.noise_note, "\n");
  if (!failed) {
    absl::StrAppend(&text, "PASSED: nothing that --fail_on=", absl::StrJoin(options.fail_on, ","),
                    " selects is slower than the baseline\n");
    std::fputs(text.c_str(), out);
    return kExitOk;
  }
  absl::StrAppend(&text, "FAILED: ", offenders.size(), offenders.size() == 1 ? " row is" : " rows are",
                  " slower than the baseline (--fail_on=", absl::StrJoin(options.fail_on, ","), ")\n\n");
  using C = TextTable::Column;
  TextTable table({C{"what", TextTable::kLeft}, C{"name", TextTable::kLeft, 60}, C{"base_us", TextTable::kRight},
                   C{"current_us", TextTable::kRight}, C{"change [95% interval]", TextTable::kLeft},
                   C{"q", TextTable::kRight}});
  constexpr size_t kMaxRows = 20;
  for (size_t i = 0; i < offenders.size() && i < kMaxRows; ++i) {
    const Offender& o = offenders[i];
    table.AddRow({o.what, EscapeForTerminal(o.name), FormatMicros(o.base_ns), FormatMicros(o.current_ns),
                  FormatChange(*o.stats), absl::StrFormat("%.2g", o.stats->q)});
  }
  text += table.Render();
  if (offenders.size() > kMaxRows) absl::StrAppend(&text, "(", offenders.size() - kMaxRows, " more)\n");
  std::fputs(text.c_str(), out);
  return kExitRegression;
}

int RunCheckOfFiles(const CliOptions& options, std::FILE* out, std::FILE* err) {
  Report sides[2];
  const std::string paths[2] = {options.baseline, options.check_current};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Report> report = ReadReportFile(paths[i]);
    if (!report.ok()) return Fail(err, kExitFailure, report.status());
    sides[i] = *std::move(report);
  }
  if (const std::string warning = MachineWarning(sides[0], sides[1]); !warning.empty()) {
    std::fprintf(err, "profile_graph: warning: check: %s\n", EscapeForTerminal(warning).c_str());
  }
  DiffOptions diff_options;
  diff_options.include_unexecuted = options.diff_all;
  diff_options.verdict.min_effect = options.min_effect;
  diff_options.verdict.alpha = options.alpha;
  return ReportCheck(options, DiffReports(sides[0], sides[1], diff_options), out);
}

}  // namespace graphprof::cli
