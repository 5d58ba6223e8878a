// RenderHtml: a Report (and optionally a diff) as one self-contained HTML
// page: no network at view time, everything inline, opens from file:// in
// Chromium and Firefox. Another rendering of the one Report:
//
//   * a header with the summary (run time, verification, timer cost,
//     coverage, peak memory and its node);
//   * an icicle chart of the module tree (width = time; click to zoom);
//   * sortable, filterable tables of the node, kind, module and shape views,
//     the same numbers as the text and CSV renderings, rendering only the
//     rows in view (100,000-node graphs stay usable);
//   * the first timed run as a nested timeline with the live-bytes curve
//     and the peak marked;
//   * the annotated IR with per-line heat, linked to the node table;
//   * with a diff: totals, matched time, and per module/kind/node tables
//     with speedup colouring.
//
// The page is profilers/report/html/{template.html,report.css,report.js}
// with the data (HtmlData, JSON) embedded; the browser test in tests/browser
// drives it in headless Chromium.
#ifndef GRAPHPROF_PROFILERS_REPORT_HTML_REPORT_H_
#define GRAPHPROF_PROFILERS_REPORT_HTML_REPORT_H_

#include <string>

#include "common/text_sink.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"

namespace graphprof {

// `diff` (may be null) adds the diff section; the page's tables are `report`'s.
std::string RenderHtml(const Report& report, const ReportDiff* diff = nullptr);
// The same page, handed to `sink` chunk by chunk as it is made.
void StreamHtml(const Report& report, const ReportDiff* diff, TextSink& sink);

// The JSON the page embeds ("graphprof-html" data, version 1).
std::string HtmlData(const Report& report, const ReportDiff* diff = nullptr);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_HTML_REPORT_H_
