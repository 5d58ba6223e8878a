// The page's timeline as JSON (html_report.cc's data). Private to
// //profilers/report:html_report.
//
// One report: its first timed run, every node execution as an event
// [node, start_ns, duration_ns, depth] since the run's start, with the
// inspection run's live bytes where they pair with the events one to one,
// and the peak.
//
// A merged report whose sources kept their first runs' events (merge.h):
// one lane per such source, `lanes` [{label, run, duration_ns,
// stragglers}] in run-source order ("rank r" for ranks, else the source's
// name), each event [node, start_ns, duration_ns, depth, lane] since its
// lane's own run start. Ranks meet before every run, so the lanes are one
// step of every rank side by side; `stragglers` are the nodes on which the
// node view calls that source a straggler (views.h). No live bytes: they
// are one process's.
#ifndef GRAPHPROF_PROFILERS_REPORT_HTML_TIMELINE_H_
#define GRAPHPROF_PROFILERS_REPORT_HTML_TIMELINE_H_

#include "profilers/report/json_writer.h"
#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof::html_internal {

// The timeline object above, or null when the report has no events;
// `nodes`: the report's node view (the lanes' stragglers), or null.
void WriteTimeline(JsonWriter& w, const Report& report, const View* nodes);

}  // namespace graphprof::html_internal

#endif  // GRAPHPROF_PROFILERS_REPORT_HTML_TIMELINE_H_
