#include "profilers/text_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "profilers/stats.h"

namespace graphprof {
namespace {

struct Column {
  std::string header;
  bool right_aligned;
  std::vector<std::string> cells;
};

std::string Truncate(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

std::string FormatCalls(double calls) {
  if (calls == std::floor(calls)) return absl::StrCat(static_cast<int64_t>(calls));
  return absl::StrFormat("%.2f", calls);
}

std::string Layout(const std::vector<Column>& columns, size_t rows, size_t sums_row) {
  std::vector<size_t> widths;
  for (const Column& c : columns) {
    size_t w = c.header.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string text = cell_of(i);
      const std::string pad(widths[i] - text.size(), ' ');
      const bool last = i + 1 == columns.size();
      if (columns[i].right_aligned) {
        absl::StrAppend(&out, pad, text);
      } else {
        absl::StrAppend(&out, text, last ? "" : pad);
      }
      if (!last) out += "  ";
    }
    out += "\n";
    return out;
  };
  size_t total_width = 0;
  for (size_t w : widths) total_width += w + 2;
  std::string rule(total_width > 2 ? total_width - 2 : 0, '-');
  std::string out = line([&](size_t i) { return columns[i].header; });
  out += rule + "\n";
  for (size_t r = 0; r < rows; ++r) {
    if (r == sums_row) out += rule + "\n";
    out += line([&](size_t i) { return columns[i].cells[r]; });
  }
  return out;
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double a = std::fabs(b);
  if (a < 1024) return absl::StrCat(bytes, " B");
  if (a < 1024.0 * 1024) return absl::StrFormat("%.2f KiB", b / 1024);
  if (a < 1024.0 * 1024 * 1024) return absl::StrFormat("%.2f MiB", b / (1024.0 * 1024));
  return absl::StrFormat("%.2f GiB", b / (1024.0 * 1024 * 1024));
}

std::string FormatMicros(double ns) {
  const double us = ns / 1e3;
  const double a = std::fabs(us);
  if (a >= 1000) return absl::StrFormat("%.0f", us);
  if (a >= 100) return absl::StrFormat("%.1f", us);
  if (a >= 10) return absl::StrFormat("%.2f", us);
  return absl::StrFormat("%.3f", us);
}

std::string RenderSummary(const Report& report) {
  std::string out = absl::StrCat("graphprof report: ", report.model, "\n");
  const Summary run = Summarize(report.run_ns);
  if (report.parameters >= 0 || report.model_bytes >= 0 || report.input_bytes >= 0) {
    std::vector<std::string> parts;
    if (report.parameters >= 0) parts.push_back(absl::StrCat(report.parameters, " trainable parameters"));
    if (report.model_bytes >= 0) parts.push_back(absl::StrCat(FormatBytes(report.model_bytes), " serialized"));
    if (report.input_bytes >= 0) parts.push_back(absl::StrCat("inputs ", FormatBytes(report.input_bytes)));
    absl::StrAppend(&out, "  model         ", absl::StrJoin(parts, ", "), "\n");
  }
  absl::StrAppendFormat(&out, "  runs          %d timed after %d warm-up (%s)\n", report.runs,
                        report.warmup, report.clock);
  absl::StrAppend(&out, "  run time      mean ", FormatMicros(run.mean), " us  std ", FormatMicros(run.std),
                  " us  median ", FormatMicros(run.median), " us  min ", FormatMicros(run.min),
                  " us  max ", FormatMicros(run.max), " us\n");
  size_t executions = 0;
  for (const NodeRecord& node : report.nodes) {
    if (!node.calls.empty()) executions += static_cast<size_t>(node.calls[0]);
  }
  const double overhead_share =
      run.mean > 0 ? 100.0 * report.timer_overhead_ns * static_cast<double>(executions) / run.mean : 0;
  absl::StrAppendFormat(&out,
                        "  timer         %.1f ns per node (measured at start-up); %zu node executions "
                        "per run -> about %.2f%% of run time\n",
                        report.timer_overhead_ns, executions, overhead_share);
  absl::StrAppendFormat(&out, "  coverage      %.2f%% of run time is inside top-level nodes\n",
                        100.0 * report.coverage());
  absl::StrAppend(&out, "  verified      ",
                  !report.verified.has_value() ? "not checked (use --verify)"
                  : *report.verified           ? "output identical to module.forward"
                                               : "OUTPUT DIFFERS from module.forward",
                  "\n");
  if (report.memory.has_value()) {
    const MemorySummary& m = *report.memory;
    std::string where = "-";
    if (m.peak_node >= 0 && m.peak_node < static_cast<int>(report.nodes.size())) {
      where = absl::StrCat("node ", m.peak_node, " ", report.nodes[m.peak_node].identity.label);
    }
    absl::StrAppend(&out, "  memory        peak ", FormatBytes(m.peak_bytes), " live (at ", where, "); ",
                    m.allocations, " allocations, ", FormatBytes(m.allocated_bytes), " allocated, ",
                    FormatBytes(m.freed_bytes), " freed\n");
  }
  if (!report.device.empty() || !report.device_note.empty()) {
    absl::StrAppend(&out, "  device        ",
                    report.device.empty() ? report.device_note
                                          : absl::StrCat(report.device,
                                                         " (device time from CUDA events around each node; "
                                                         "kernels from CUPTI; never added to host time)"),
                    "\n");
  }
  if (report.dropped_events > 0) {
    absl::StrAppend(&out, "  trace         ", report.dropped_events, " events did not fit and were dropped\n");
  }
  return out;
}

std::string RenderTable(const Report& report, const View& view, const TableOptions& options) {
  const bool memory = options.memory && report.memory.has_value();
  std::vector<Column> columns;
  auto add = [&](std::string header, bool right) {
    columns.push_back(Column{std::move(header), right, {}});
    return columns.size() - 1;
  };
  const bool nodes = view.group_by == GroupBy::kNode;
  const bool modules = view.group_by == GroupBy::kModule;
  const size_t c_id = nodes ? add("id", true) : 0;
  const size_t c_name = add(nodes ? "name" : GroupByName(view.group_by), false);
  const size_t c_kind = nodes ? add("kind", false) : 0;
  const size_t c_members = nodes ? 0 : add("nodes", true);
  const size_t c_calls = add("calls", true);
  const size_t c_mean = add(modules ? "total_us" : "mean_us", true);
  const size_t c_percent = add("%", true);
  const size_t c_self = nodes || modules ? add("self_us", true) : 0;
  const size_t c_std = add("std_us", true);
  const size_t c_p90 = add("p90_us", true);
  const bool device = report.has_device_time();
  const bool kernels = report.has_kernels();
  const size_t c_device = device ? add("device_us", true) : 0;
  size_t c_kernels = 0, c_kernel_us = 0;
  if (kernels) {
    c_kernels = add("kernels", true);
    c_kernel_us = add("kernel_us", true);
  }
  size_t c_alloc = 0, c_peak = 0, c_out = 0;
  if (memory) {
    c_alloc = add("alloc", true);
    c_peak = add("peak", true);
    c_out = add("output", true);
  }
  const size_t c_shapes = nodes ? add("input shapes", false) : 0;

  std::vector<const ViewRow*> rows;
  for (const ViewRow& row : view.rows) rows.push_back(&row);
  rows.push_back(&view.sums);
  for (const ViewRow* row : rows) {
    const bool sums = row == &view.sums;
    std::string name = row->name;
    if (modules && !sums) name = std::string(2 * row->depth, ' ') + name;
    if (nodes && !sums && row->depth > 0) name = std::string(2 * row->depth, ' ') + name;
    columns[c_name].cells.push_back(Truncate(name, 60));
    if (nodes) {
      columns[c_id].cells.push_back(sums ? "" : absl::StrCat(row->id));
      columns[c_kind].cells.push_back(sums ? "" : row->kind);
      columns[c_shapes].cells.push_back(sums ? "" : Truncate(row->shapes, 70));
    } else {
      columns[c_members].cells.push_back(absl::StrCat(row->members));
    }
    columns[c_calls].cells.push_back(FormatCalls(row->calls));
    columns[c_mean].cells.push_back(FormatMicros(row->time.mean));
    columns[c_percent].cells.push_back(absl::StrFormat("%.2f", row->percent));
    if (nodes || modules) columns[c_self].cells.push_back(FormatMicros(row->self.mean));
    columns[c_std].cells.push_back(sums ? "" : FormatMicros(row->time.std));
    columns[c_p90].cells.push_back(sums ? "" : FormatMicros(row->time.p90));
    if (device) columns[c_device].cells.push_back(row->device.count > 0 ? FormatMicros(row->device.mean) : "");
    if (kernels) {
      columns[c_kernels].cells.push_back(absl::StrCat(row->kernels));
      columns[c_kernel_us].cells.push_back(FormatMicros(static_cast<double>(row->kernel_ns)));
    }
    if (memory) {
      columns[c_alloc].cells.push_back(row->memory ? FormatBytes(row->memory->allocated_bytes) : "");
      columns[c_peak].cells.push_back(row->memory && !sums ? FormatBytes(row->memory->peak_bytes) : "");
      columns[c_out].cells.push_back(row->memory && !sums ? FormatBytes(row->memory->output_bytes) : "");
    }
  }
  std::string out;
  if (!options.title.empty()) out += options.title + "\n";
  out += Layout(columns, rows.size(), rows.size() - 1);
  if (view.rows.size() < view.total_rows) {
    absl::StrAppend(&out, "(top ", view.rows.size(), " of ", view.total_rows, " rows; the sum covers all)\n");
  }
  if (nodes) {
    out += "(sum: time of top-level nodes; nested nodes are inside their If/Loop)\n";
  }
  return out;
}

}  // namespace graphprof
