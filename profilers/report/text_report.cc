#include "profilers/report/text_report.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "common/terminal_text.h"
#include "profilers/report/roofline.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "profilers/report/stats.h"
#include "profilers/report/table_columns.h"
#include "profilers/report/text_table.h"

namespace graphprof {
namespace {

// A cell as the text table shows it (table_columns.h's types).
std::string TextCell(const TableColumn& column, const TableCell& cell) {
  if (cell.empty) return cell.text;
  switch (column.type) {
    case ColumnType::kInt: return absl::StrCat(cell.integer);
    case ColumnType::kBytes: return FormatBytes(cell.integer);
    case ColumnType::kCount: return FormatCount(cell.number);
    case ColumnType::kMicros: return FormatMicros(cell.number);
    case ColumnType::kPercent: return absl::StrFormat("%.2f", cell.number);
    case ColumnType::kNumber: return absl::StrFormat("%.*g", column.digits, cell.number);
    case ColumnType::kFraction: return absl::StrFormat("%.1f", 100 * cell.number);
    case ColumnType::kText: return cell.text;
  }
  return "";
}

// One comparison with native execution, "output"/"gradients" as `what`.
// The line states the criterion that decided, in its own quantities: the
// float64 run's (the detail: each output's error against its allowance), or
// the element-wise bound atol + rtol * |expected| with the largest errors.
std::string DescribeComparison(const Verification& v, const char* what) {
  if (v.identical) return absl::StrCat(what, " identical to ", v.reference);
  const std::string errors =
      absl::StrFormat("max abs error %.3g, max rel error %.3g (element-wise bound atol + rtol x |expected|: rtol %g, "
                      "atol %g)",
                      v.max_abs_error, v.max_rel_error, v.rtol, v.atol);
  if (v.within_tolerance) {
    if (v.criterion == Verification::Criterion::kFloat64Scale) {
      return absl::StrCat(what, " within tolerance of ", v.reference, " ", v.detail);
    }
    return absl::StrCat(what, " within tolerance of ", v.reference, ": ", errors,
                        v.detail.empty() ? "" : absl::StrCat("; ", v.detail));
  }
  std::string upper(what);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return absl::StrCat(upper, " DIFFER", upper == "OUTPUT" ? "S" : "", " from ", v.reference, ": ", v.detail,
                      v.detail.empty() ? "" : "; ", errors);
}

}  // namespace

std::string DescribeVerification(const Report& report) {
  if (!report.verification.has_value()) {
    return report.unverified_reason.empty() ? "not checked"
                                            : absl::StrCat("not verified: ", report.unverified_reason);
  }
  return DescribeComparison(*report.verification, "output");
}

std::string RenderSummary(const Report& report) {
  std::string out = absl::StrCat("graphprof report: ", EscapeForTerminal(report.model), "\n");
  const Summary run = Summarize(report.run_ns());
  if (report.parameters >= 0 || report.model_bytes >= 0 || report.input_bytes >= 0) {
    std::vector<std::string> parts;
    if (report.parameters >= 0) {
      std::string p = absl::StrCat(report.parameters, " parameters");
      if (report.trainable_parameters >= 0) absl::StrAppend(&p, " (", report.trainable_parameters, " trainable)");
      parts.push_back(p);
    }
    if (report.model_bytes >= 0) parts.push_back(absl::StrCat(FormatBytes(report.model_bytes), " serialized"));
    if (report.input_bytes >= 0) parts.push_back(absl::StrCat("inputs ", FormatBytes(report.input_bytes)));
    absl::StrAppend(&out, "  model         ", absl::StrJoin(parts, ", "), "\n");
  }
  absl::StrAppendFormat(&out, "  runs          %d timed after %d warm-up (%s)\n", report.runs,
                        report.warmup, EscapeForTerminal(report.clock));
  if (report.machine.has_value()) absl::StrAppend(&out, "  machine       ", FormatMachine(*report.machine), "\n");
  absl::StrAppend(&out, "  run time      mean ", FormatMicros(run.mean), " us  std ", FormatMicros(run.std),
                  " us  median ", FormatMicros(run.median), " us  min ", FormatMicros(run.min),
                  " us  max ", FormatMicros(run.max), " us\n");
  for (int m : report.Metrics()) {
    const Column& metric = report.columns[m];
    if (m == 0 || metric.run_total.empty()) continue;  // time: above
    const Summary total = Summarize(metric.run_total);
    absl::StrAppendFormat(&out, "  %-13s mean %s us  median %s us (%s)", metric.name, FormatMicros(total.mean),
                          FormatMicros(total.median), metric.description);
    if (!metric.unattributed.empty()) {
      absl::StrAppendFormat(&out, "; unattributed %s us; coverage %.2f%%",
                            FormatMicros(Summarize(metric.unattributed).mean),
                            100.0 * report.CoverageOf(m));
    }
    out += "\n";
  }
  const int64_t executions = report.executions_per_run();
  const double overhead_share =
      run.mean > 0 ? 100.0 * report.timer_overhead_ns * static_cast<double>(executions) / run.mean : 0;
  absl::StrAppendFormat(&out,
                        "  timer         %.1f ns per node (%s, measured at start-up); %d node executions "
                        "per run -> about %.2f%% of run time%s\n",
                        report.timer_overhead_ns, EscapeForTerminal(report.clock), executions, overhead_share,
                        report.compensated
                            ? absl::StrFormat("; compensated: %.1f ns off each node, %.1f ns off its parent%s",
                                              report.timer_inner_ns, report.timer_overhead_ns,
                                              report.timer_block_ns > 0
                                                  ? absl::StrFormat(", %.1f ns per block entered",
                                                                    report.timer_block_ns)
                                                  : "")
                            : "; not compensated");
  absl::StrAppendFormat(&out, "  coverage      %.2f%% of run time is inside top-level nodes\n",
                        100.0 * report.coverage());
  absl::StrAppend(&out, "  verified      ", EscapeForTerminal(DescribeVerification(report)), "\n");
  if (report.gradient_verification.has_value()) {
    absl::StrAppend(&out, "                ",
                    EscapeForTerminal(DescribeComparison(*report.gradient_verification, "gradients")), "\n");
  }
  if (!report.loss.empty()) {
    int64_t gradient_bytes = 0;
    for (const ModuleBytes& m : report.gradient_bytes) gradient_bytes += m.bytes;
    absl::StrAppend(&out, "  training      backward of ", EscapeForTerminal(report.loss), "; parameter gradients ",
                    FormatBytes(gradient_bytes), " in ", report.gradient_bytes.size(), " modules\n");
  }
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    // "node 12 conv1" for a node of the report; `otherwise` for none.
    auto node = [&](int id, std::string otherwise, const char* suffix = "") {
      if (id < 0 || id >= static_cast<int>(report.nodes.size())) return otherwise;
      return absl::StrCat("node ", id, " ", EscapeForTerminal(report.nodes[id].identity.label), suffix);
    };
    absl::StrAppend(&out, "  memory        peak ", FormatBytes(m.peak_bytes), " live (at ", node(m.peak_node, "-"), "); ",
                    m.allocations, " allocations, ", FormatBytes(m.allocated_bytes), " allocated, ",
                    FormatBytes(m.freed_bytes), " freed\n");
    if (m.backward) {
      const std::string backward_where =
          node(m.backward_peak_node, "functions outside the graph's nodes: gradient accumulation, the loss", " backward");
      absl::StrAppend(&out, "                backward peak ", FormatBytes(m.backward_peak_bytes), " live (at ",
                      backward_where, "); ", FormatBytes(m.saved_bytes), " kept from forward for backward\n");
    }
  }
  if (!report.device.empty() || !report.device_note.empty()) {
    absl::StrAppend(&out, "  device        ",
                    report.device.empty() ? EscapeForTerminal(report.device_note)
                                          : absl::StrCat(EscapeForTerminal(report.device),
                                                         " (device time from CUDA events around each node; "
                                                         "kernels from CUPTI; never added to host time)"),
                    "\n");
  }
  if (report.FindQuantity("flops") >= 0) {
    double flops = 0, bytes = 0;
    const int f = report.FindQuantity("flops"), b = report.FindQuantity("bytes");
    for (const NodeRecord& node : report.nodes) {
      flops += report.QuantityOf(node, f);
      bytes += report.QuantityOf(node, b);
    }
    std::string uncounted = "every executed kind counted";
    if (!report.uncounted.empty()) {
      std::vector<std::string> parts;
      for (size_t i = 0; i < report.uncounted.size() && i < 4; ++i) {
        const UncountedKind& u = report.uncounted[i];
        parts.push_back(absl::StrFormat("%s %d nodes, %.1f%% of time", u.kind, u.nodes, u.percent));
      }
      uncounted = absl::StrCat("uncounted: ", absl::StrJoin(parts, "; "),
                               report.uncounted.size() > 4 ? absl::StrCat("; ", report.uncounted.size() - 4, " more kinds")
                                                            : "");
    }
    absl::StrAppendFormat(&out, "  work          %.4g GFLOP, %s per run (%.3g GFLOP/s over the run); %s\n", flops / 1e9,
                          FormatBytes(static_cast<int64_t>(bytes)), run.mean > 0 ? flops / run.mean : 0.0,
                          EscapeForTerminal(uncounted));
  }
  if (report.ceilings.has_value()) {
    const Ceilings& c = *report.ceilings;
    absl::StrAppendFormat(&out, "  roofline      peak %.1f GFLOP/s (FMA), %.1f GB/s (triad); ", c.peak_gflops,
                          c.peak_gbps);
    // Given ceilings (--peaks) have no GEMM or conv rate: unknown is not -1.
    if (c.blas_gflops > 0 || c.conv_gflops > 0) {
      auto rate = [](double v) { return v > 0 ? absl::StrFormat("%.1f", v) : std::string("unknown"); };
      absl::StrAppend(&out, "GEMM ", rate(c.blas_gflops), ", conv ", rate(c.conv_gflops), " GFLOP/s through LibTorch; ");
    }
    absl::StrAppendFormat(&out, "%d threads, %s", c.threads, c.source);
    if (!c.bandwidth.empty()) {
      std::vector<std::string> levels;
      for (const BandwidthLevel& level : c.bandwidth) {
        levels.push_back(absl::StrFormat("%s %.0f", FormatBytes(level.bytes), level.gbps));
      }
      absl::StrAppend(&out, "; GB/s by working set: ", absl::StrJoin(levels, ", "));
    }
    if (const double headroom = HeadroomPercent(report); headroom >= 0) {
      absl::StrAppendFormat(&out, "; %.1f%% of the run in nodes below 20%% of attainable", headroom);
    }
    out += "\n";
    if (const std::string blas = BlasNote(report); !blas.empty()) {
      absl::StrAppend(&out, "  blas          ", EscapeForTerminal(blas), "\n");
    }
  }
  if (report.dropped_events > 0) {
    absl::StrAppend(&out, "  trace         ", report.dropped_events, " events did not fit and were dropped\n");
  }
  for (const std::string& note : report.notes) absl::StrAppend(&out, "  note          ", EscapeForTerminal(note), "\n");
  if (report.run_sources.size() > 1) {
    absl::StrAppend(&out, "  reports       ");
    for (size_t k = 0; k < report.run_sources.size(); ++k) {
      const RunSource& source = report.run_sources[k];
      const double mean = Mean(absl::MakeConstSpan(report.run_ns()).subspan(source.first_run, source.runs));
      absl::StrAppend(&out, k == 0 ? "" : ", ", source.name, " ", FormatMicros(mean), " us");
    }
    out += " (mean run time of each)\n";
  }
  return out;
}

std::string RenderTable(const Report& report, const View& view, const TableOptions& options) {
  const std::vector<TableColumn> columns =
      TableColumns(report, view.group_by, Rendering::kText, TableColumnsOptions{options.memory, options.roofline});
  std::vector<TextTable::Column> headers;
  for (const TableColumn& c : columns) {
    headers.push_back(TextTable::Column{c.heading, c.type == ColumnType::kText ? TextTable::kLeft : TextTable::kRight,
                                        c.width});
  }
  TextTable table(std::move(headers));
  auto cells = [&columns](const ViewRow& row, bool sums) {
    std::vector<std::string> out;
    for (const TableColumn& c : columns) out.push_back(sums && !c.in_sums ? "" : TextCell(c, c.cell(row)));
    return out;
  };
  for (const ViewRow& row : view.rows) table.AddRow(cells(row, false));
  table.AddFooter(cells(view.sums, true));

  std::string out;
  if (!options.title.empty()) out += options.title + "\n";
  out += table.Render();
  if (view.rows.size() < view.total_rows) {
    absl::StrAppend(&out, "(top ", view.rows.size(), " of ", view.total_rows, " rows; the sum covers all)\n");
  }
  if (view.group_by == GroupBy::kNode) {
    out += "(sum: time of top-level nodes; nested nodes are inside their If/Loop)\n";
  }
  return out;
}

}  // namespace graphprof
