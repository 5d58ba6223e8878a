#include "profilers/report/annotated_ir.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/format.h"
#include "profilers/report/stats.h"

namespace graphprof {
namespace {

std::string Annotation(const Report& report, const NodeRecord& record) {
  if (!record.executed()) {
    return absl::StrCat("not executed", record.identity.module.empty() ? "" : " | ", record.identity.module);
  }
  const Summary time = Summarize(record.time().total);
  std::string text =
      absl::StrCat(FormatMicros(time.mean), " us ", absl::StrFormat("%.2f%%", report.PercentOfRun(time.mean)));
  if (!record.calls.empty() && record.calls[0] != 1) absl::StrAppend(&text, " (x", record.calls[0], ")");
  // Training steps: the node's backward (its autograd functions).
  if (const int backward = report.FindMetric(Report::kBackwardMetric);
      backward >= 0 && static_cast<size_t>(backward) < record.metrics.size()) {
    const Summary b = Summarize(record.metrics[backward].total);
    if (b.mean > 0) absl::StrAppend(&text, " | backward ", FormatMicros(b.mean), " us");
  }
  if (!record.identity.module.empty()) absl::StrAppend(&text, " | ", record.identity.module);
  return text;
}

}  // namespace

absl::StatusOr<std::string> RenderAnnotatedIr(const Report& report) {
  if (report.ir.empty()) return absl::FailedPreconditionError("the report carries no IR to annotate");
  std::string out;
  for (const IrLine& line : report.ir) {
    out += line.text;
    if (line.node >= 0 && line.node < static_cast<int>(report.nodes.size())) {
      absl::StrAppend(&out, "  # ", Annotation(report, report.nodes[line.node]));
    }
    out += "\n";
  }
  return out;
}

}  // namespace graphprof
