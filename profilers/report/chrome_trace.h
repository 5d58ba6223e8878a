// A Report's timed runs as a Chrome trace (JSON "Trace Event Format"), for
// chrome://tracing, Perfetto (ui.perfetto.dev) or speedscope.
//
// One complete event ("ph": "X", category "node") per node execution on the
// host thread track, nested as they ran (If/Loop around their blocks), plus
// one "run" event per timed run around them. args carry the node id (the
// report's node: shapes and source are there), kind, module path and run. Timestamps are microseconds since
// the first timed run started. For a graph without loops, the number of
// "node" events is nodes x runs. With CUPTI data, kernels, memcpys and
// memsets appear on a second track ("device", category "device"), args
// naming the node that launched them. Training steps (--backward) add a
// third track, "backward": each autograd function (category "backward"),
// named "<node> (backward)" after the node that created it. With a memory
// view, live bytes after each node are drawn as a counter over the first run.
#ifndef GRAPHPROF_PROFILERS_REPORT_CHROME_TRACE_H_
#define GRAPHPROF_PROFILERS_REPORT_CHROME_TRACE_H_

#include <string>

#include "common/text_sink.h"
#include "profilers/report/report.h"

namespace graphprof {

std::string RenderChromeTrace(const Report& report);
// The same text, handed to `sink` chunk by chunk as it is made.
void StreamChromeTrace(const Report& report, TextSink& sink);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_CHROME_TRACE_H_
