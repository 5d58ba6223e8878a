// Report <-> JSON, schema version 1 (nlohmann-json).
//
// Top level:
//   schema_version     1
//   model              "ResNet.forward"
//   clock              "steady_clock"
//   runs, warmup       timed and warm-up run counts
//   timer_overhead_ns  estimated instrumentation cost per node
//   coverage           mean over runs of (top-level node time / run time)
//   total_us           mean run time in microseconds
//   run_ns             [per timed run]
//   run_start_ns       [start of each timed run, since the first]
//   verified           true | false | null (not checked)
//   parameters         trainable parameter count, or null
//   model_bytes        serialized module size, or null
//   input_bytes        bytes of the inputs (each storage once), or null
//   peak_bytes         peak live bytes of the inspection run, or null
//   memory             {peak_bytes, peak_node, allocated_bytes, freed_bytes,
//                       allocations, timeline: [[node, live_bytes], ...]} or null
//   nodes              [node, ...] in id order (below)
//   events             [[node, run, start_ns, duration_ns], ...] (Chrome trace)
//   dropped_events     trace events that did not fit the buffer
//   device             "cuda:0 <name>" when device profiling ran, else ""
//   device_note        why there are no device columns, else ""
//   device_events      [[node, run, name, kind, start_ns, duration_ns], ...]
//                      (only with kernel data)
// Node:
//   id, parent (-1 at top level), depth, name, kind, schema, module, source,
//   input_shapes, output_shapes,
//   calls [per run], total_ns [per run, inclusive]        <- raw samples
//   count, mean_us, std_us, min_us, median_us, p90_us, max_us, self_us,
//   percent                                               <- derived (ignored on read)
//   memory {allocated_bytes, freed_bytes, allocations, peak_bytes,
//           live_after_bytes, output_bytes}               <- only with a memory view
//   device_ns [per run], device_us (derived)              <- only with device time
//   kernels {count, total_ns, top: [[name, ns], ...]}     <- only with kernel data
//
// ReportFromJson reads the raw fields back and recomputes everything derived,
// so ReportFromJson(ReportToJson(r)) renders exactly like r.
#ifndef GRAPHPROF_PROFILERS_REPORT_JSON_H_
#define GRAPHPROF_PROFILERS_REPORT_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "profilers/report.h"

namespace graphprof {

std::string ReportToJson(const Report& report, int indent = 1);

absl::StatusOr<Report> ReportFromJson(absl::string_view json);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_JSON_H_
