#include "profilers/report/html_report.h"

#include "profilers/report/roofline.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "profilers/report/html_assets.h"
#include "profilers/report/html_table.h"
#include "profilers/report/html_timeline.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report_json.h"
#include "profilers/report/stats.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

namespace graphprof {
namespace {

using html_internal::PageColumn;
using html_internal::PageView;
using html_internal::Us;
using html_internal::WriteTable;
using html_internal::WriteTimeline;
using html_internal::WriteView;

void WriteSummary(JsonWriter& w, const Report& report) {
  const Summary run = Summarize(report.run_ns());
  w.BeginObject();
  w.Key("model"); w.String(report.model);
  w.Key("runs"); w.Int(report.runs);
  w.Key("warmup"); w.Int(report.warmup);
  w.Key("clock"); w.String(report.clock);
  w.Key("run_us");
  w.BeginObject();
  w.Key("mean"); Us(w, run.mean);
  w.Key("median"); Us(w, run.median);
  w.Key("std"); Us(w, run.std);
  w.Key("min"); Us(w, run.min);
  w.Key("max"); Us(w, run.max);
  w.EndObject();
  w.Key("verified"); w.OrNull(report.verification.has_value(), [&] { w.Bool(report.verification->passed()); });
  w.Key("verify_detail"); w.String(DescribeVerification(report));
  w.Key("timer_ns"); w.Fixed(report.timer_overhead_ns, 1);
  w.Key("compensated"); w.Bool(report.compensated);
  w.Key("coverage"); w.Fixed(report.coverage(), 6);
  w.Key("nodes"); w.Int(static_cast<int64_t>(report.nodes.size()));
  w.Key("executions"); w.Int(report.executions_per_run());
  const bool peak = report.memory.has_value() && report.memory->peak_node >= 0 &&
                    report.memory->peak_node < static_cast<int>(report.nodes.size());
  w.Key("peak_bytes"); w.OrNull(report.memory.has_value(), [&] { w.Int(report.memory->peak_bytes); });
  w.Key("peak_node"); w.OrNull(peak, [&] { w.Int(report.memory->peak_node); });
  w.Key("peak_node_name");
  w.OrNull(peak, [&] { w.String(report.nodes[report.memory->peak_node].identity.label); });
  // The summary's other lines, as the text report words them.
  w.Key("lines");
  w.BeginArray();
  for (absl::string_view line : absl::StrSplit(RenderSummary(report), '\n')) {
    if (!absl::ConsumePrefix(&line, "  ") || line.size() < 14) continue;
    const std::string key(absl::StripTrailingAsciiWhitespace(line.substr(0, 14)));
    if (key == "runs" || key == "run time" || key == "coverage" || key == "verified" || key == "memory") continue;
    w.BeginArray();
    w.String(key);
    w.String(absl::StripLeadingAsciiWhitespace(line.substr(14)));
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
}

// The module tree for the icicle chart, from the module view (tree order).
void WriteTree(JsonWriter& w, const Report& report) {
  absl::StatusOr<View> view = MakeView(report, ViewOptions{GroupBy::kModule, "order", 0});
  if (!view.ok() || view->rows.empty()) return w.Null();
  const std::vector<ViewRow>& rows = view->rows;
  std::vector<std::vector<size_t>> children(rows.size());
  std::vector<size_t> stack;
  for (size_t i = 0; i < rows.size(); ++i) {
    while (!stack.empty() && rows[stack.back()].depth >= rows[i].depth) stack.pop_back();
    if (!stack.empty()) children[stack.back()].push_back(i);
    stack.push_back(i);
  }
  std::function<void(size_t)> write = [&](size_t i) {
    const ViewRow& row = rows[i];
    w.BeginObject();
    const std::string& path = row.module;
    const size_t dot = path.rfind('.');
    w.Key("name"); w.String(path.empty() ? "(root)" : dot == std::string::npos ? path : path.substr(dot + 1));
    w.Key("path"); w.String(path);
    w.Key("time_ns"); w.Int(static_cast<int64_t>(row.time().total.mean));
    w.Key("self_ns"); w.Int(static_cast<int64_t>(row.time().self.mean));
    w.Key("nodes"); w.Int(row.members);
    w.Key("children");
    w.BeginArray();
    for (size_t child : children[i]) write(child);
    w.EndArray();
    w.EndObject();
  };
  write(0);
}

// The IR, each node line with its share of the run (the page annotates it).
void WriteIr(JsonWriter& w, const Report& report) {
  const double run_ns = report.total_us() * 1e3;
  w.BeginArray();
  for (const IrLine& line : report.ir) {
    w.Newline();
    w.BeginArray();
    w.String(line.text);
    w.Int(line.node);
    if (line.node >= 0 && line.node < static_cast<int>(report.nodes.size()) && run_ns > 0) {
      const double share = Summarize(report.nodes[line.node].time().total).mean / run_ns;
      w.Approx(std::clamp(std::round(share * 1e4) / 1e4, 0.0, 1.0));
    } else {
      w.Int(0);
    }
    w.EndArray();
  }
  w.EndArray();
}

// The roofline: the ceilings (compute, memory, the caches' bandwidths) and
// one point per executed node whose
// work was counted and that did any (FLOPs > 0 and time > 0).
void WriteRoofline(JsonWriter& w, const Report& report) {
  if (!report.ceilings.has_value() || report.FindQuantity("flops") < 0) return w.Null();
  const Ceilings& c = *report.ceilings;
  if (c.peak_gflops <= 0 || c.peak_gbps <= 0) return w.Null();
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "id", 0});
  if (!nodes.ok()) return w.Null();
  w.BeginObject();
  w.Key("peak_gflops"); w.Approx(c.peak_gflops);
  w.Key("peak_gbps"); w.Approx(c.peak_gbps);
  w.Key("blas_gflops"); w.Approx(c.blas_gflops);
  w.Key("source"); w.String(c.source);
  w.Key("bandwidth");  // [bytes, GB/s] per working set, smallest first
  WriteBandwidthLevels(c.bandwidth, w);
  w.Key("points");
  w.BeginArray();
  for (const ViewRow& row : nodes->rows) {
    const RooflinePoint p = RooflineOf(report, row);
    if (row.id < 0 || p.flops <= 0 || p.intensity <= 0 || p.gflops <= 0) continue;
    w.Newline();
    w.BeginArray();
    w.Int(row.id);
    w.Approx(p.intensity);
    w.Approx(p.gflops);
    w.Approx(p.self_ns / 1e3);
    w.Approx(p.fraction);
    w.String(row.name);
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
}

// The time columns of node or group rows (base_us ... verdict), then the
// diff's columns (ReportDiff::columns): base, current and delta of each, and
// a compared column's change and verdict (<name>_change, <name>_verdict).
template <typename Row>
void AddDiffColumns(const ReportDiff& diff, std::vector<PageColumn<Row>>& columns,
                    const std::function<void(JsonWriter&, const RowComparison&)>& change) {
  columns.push_back({"base_us", "base_us", "us", [](JsonWriter& w, const Row& r, bool) { Us(w, r.base_ns); }});
  columns.push_back({"current_us", "current_us", "us", [](JsonWriter& w, const Row& r, bool) { Us(w, r.current_ns); }});
  columns.push_back({"delta_us", "delta_us", "delta_us", [](JsonWriter& w, const Row& r, bool) { Us(w, r.delta_ns()); }});
  columns.push_back({"speedup", "speedup", "speedup", [](JsonWriter& w, const Row& r, bool) {
                       if (r.speedup() > 0) return w.Fixed(r.speedup(), 4);
                       w.Null();
                     }});
  columns.push_back({"change", "change [95%]", "change", [change](JsonWriter& w, const Row& r, bool) { change(w, r.stats); }});
  columns.push_back({"verdict", "verdict", "verdict",
                     [](JsonWriter& w, const Row& r, bool) { w.String(VerdictName(r.stats.verdict)); }});
  for (size_t k = 0; k < diff.columns.size(); ++k) {
    const DiffColumn& c = diff.columns[k];
    const std::string type = c.ns() ? "us" : c.unit == Unit::kBytes ? "bytes" : "num";
    auto side = [k, ns = c.ns()](double Sides::*field) {
      return [k, ns, field](JsonWriter& w, const Row& r, bool) {
        if (k >= r.values.size()) return w.Null();
        const double v = field != nullptr ? r.values[k].*field : r.values[k].delta();
        if (ns) return Us(w, v);
        w.Approx(v);
      };
    };
    columns.push_back({c.Key("base"), c.Key("base"), type, side(&Sides::base)});
    columns.push_back({c.Key("current"), c.Key("current"), type, side(&Sides::current)});
    columns.push_back({c.Key("delta"), c.Key("delta"), c.ns() ? "delta_us" : "num", side(nullptr)});
    if (!c.compared()) continue;
    columns.push_back({c.name + "_change", c.name + " change [95%]", "change", [k, change](JsonWriter& w, const Row& r, bool) {
                         if (k >= r.column_stats.size()) return w.Null();
                         change(w, r.column_stats[k]);
                       }});
    columns.push_back({c.name + "_verdict", c.name + " verdict", "verdict", [k](JsonWriter& w, const Row& r, bool) {
                         if (k >= r.column_stats.size()) return w.Null();
                         w.String(VerdictName(r.column_stats[k].verdict));
                       }});
  }
}

void WriteDiff(JsonWriter& w, const ReportDiff& diff) {
  w.BeginObject();
  w.Key("base_model"); w.String(diff.base_model);
  w.Key("current_model"); w.String(diff.current_model);
  w.Key("base_total_us"); Us(w, diff.base_total_ns);
  w.Key("current_total_us"); Us(w, diff.current_total_ns);
  w.Key("speedup"); w.Fixed(diff.speedup(), 4);
  w.Key("matched_time_fraction"); w.Fixed(diff.matched_time_fraction, 4);
  auto change = [](JsonWriter& w, const RowComparison& c) {
    w.BeginArray();
    w.Approx(c.change);
    w.Approx(c.change_low);
    w.Approx(c.change_high);
    w.EndArray();
  };
  w.Key("total");
  w.BeginObject();
  w.Key("verdict"); w.String(VerdictName(diff.total.verdict));
  w.Key("change"); change(w, diff.total);
  w.EndObject();
  if (diff.speed_removed()) {  // between processes: the machine's speed, a row of its own
    w.Key("speed");
    w.BeginObject();
    w.Key("verdict"); w.String(VerdictName(diff.speed.verdict));
    w.Key("change"); change(w, diff.speed);
    w.EndObject();
  }
  w.OptionalString("noise_note", diff.noise_note);
  using GroupColumn = PageColumn<GroupDelta>;
  auto group_columns = [&](const char* name_key) {
    std::vector<GroupColumn> columns{
        {name_key, name_key, "text", [](JsonWriter& w, const GroupDelta& g, bool) { w.String(g.name); }},
        {"base_nodes", "nodes", "int", [](JsonWriter& w, const GroupDelta& g, bool) { w.Int(g.base_nodes); }},
        {"current_nodes", "->", "int", [](JsonWriter& w, const GroupDelta& g, bool) { w.Int(g.current_nodes); }},
    };
    AddDiffColumns(diff, columns, change);
    return columns;
  };
  using NodeColumn = PageColumn<NodeDelta>;
  std::vector<NodeColumn> node_columns = {
      {"id", "id", "int", [](JsonWriter& w, const NodeDelta& d, bool) {
         if (d.current_id >= 0) return w.Int(d.current_id);
         w.Null();
       }},
      {"name", "node", "text", [](JsonWriter& w, const NodeDelta& d, bool) { w.String(d.name); }},
      {"kind", "kind", "text", [](JsonWriter& w, const NodeDelta& d, bool) { w.String(d.kind); }},
      {"module", "module", "text", [](JsonWriter& w, const NodeDelta& d, bool) { w.String(d.module); }},
      {"match", "match", "text", [](JsonWriter& w, const NodeDelta& d, bool) { w.String(MatchName(d.match)); }},
  };
  AddDiffColumns(diff, node_columns, change);
  w.Key("tables");
  w.BeginObject();
  w.Key("module");
  WriteTable<GroupDelta>(w, group_columns("module"), diff.modules, nullptr, nullptr, false, nullptr);
  w.Key("kind");
  WriteTable<GroupDelta>(w, group_columns("kind"), diff.kinds, nullptr, nullptr, false, nullptr);
  w.Key("node");
  WriteTable<NodeDelta>(w, node_columns, diff.nodes, nullptr, nullptr, false, nullptr);
  w.EndObject();
  w.EndObject();
}

std::string EscapeHtml(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}, {"'", "&#39;"}});
}

void WriteHtmlData(const Report& report, const ReportDiff* diff, JsonWriter& w) {
  w.BeginObject();
  w.Key("format"); w.String("graphprof-html");
  w.Key("version"); w.Int(1);
  w.Key("summary"); WriteSummary(w, report);
  w.Key("tables");
  w.BeginObject();
  std::optional<View> nodes;  // the node table's view: the timeline marks its stragglers
  for (GroupBy g : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule, GroupBy::kShape}) {
    w.Key(GroupByName(g));
    absl::StatusOr<View> view = PageView(report, g);
    if (!view.ok()) {
      w.Null();
      continue;
    }
    WriteView(w, report, *view);
    if (g == GroupBy::kNode) nodes = *std::move(view);
  }
  w.EndObject();
  w.Key("tree"); WriteTree(w, report);
  w.Key("timeline"); WriteTimeline(w, report, nodes.has_value() ? &*nodes : nullptr);
  w.Key("ir"); WriteIr(w, report);
  w.Key("roofline"); WriteRoofline(w, report);
  w.Key("diff"); w.OrNull(diff != nullptr, [&] { WriteDiff(w, *diff); });
  w.EndObject();
}

}  // namespace

std::string HtmlData(const Report& report, const ReportDiff* diff) {
  std::string out;
  JsonWriter w(&out, /*html_safe=*/true);
  WriteHtmlData(report, diff, w);
  return out;
}

void StreamHtml(const Report& report, const ReportDiff* diff, TextSink& sink) {
  // One pass over the template: inserted text is never scanned again.
  const absl::string_view page = html::kTemplate;
  const std::vector<std::pair<absl::string_view, std::function<void()>>> fills = {
      {"{{TITLE}}", [&] { sink.Append(EscapeHtml(absl::StrCat("graphprof: ", report.model))); }},
      {"/*{{STYLE}}*/", [&] { sink.Append(html::kStyle); }},
      {"/*{{SCRIPT}}*/", [&] { sink.Append(html::kScript); }},
      {"{{DATA}}",
       [&] {
         JsonWriter w(&sink, /*html_safe=*/true);
         WriteHtmlData(report, diff, w);
       }},
  };
  size_t at = 0;
  for (const auto& [placeholder, fill] : fills) {
    const size_t found = page.find(placeholder, at);
    if (found == absl::string_view::npos) continue;
    sink.Append(page.substr(at, found - at));
    fill();
    at = found + placeholder.size();
  }
  sink.Append(page.substr(at));
}

std::string RenderHtml(const Report& report, const ReportDiff* diff) {
  TextSink sink;
  StreamHtml(report, diff, sink);
  return sink.Take();
}

}  // namespace graphprof
