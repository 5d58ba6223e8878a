// Report <-> JSON (schema version 4; versions 1 to 3 are still read).
//
// Top level:
//   schema_version     4
//   model              "ResNet.forward"
//   clock              "steady_clock"
//   runs, warmup       timed and warm-up run counts
//   timer_overhead_ns  measured instrumentation cost per node execution
//   timer_inner_ns     the part of it inside the node's own interval
//   timer_block_ns     cost of the read made on entering a block (0: none)
//   compensated        true: times had the timer's cost taken off (Compensate)
//   coverage           mean over runs of (top-level node time / run time)   <- derived
//   total_us           mean run time in microseconds                       <- derived
//   run_ns             [host run time per timed run] (= metrics[0].run_total)
//   run_start_ns       [start of each timed run, since the first]
//   metrics            [{name, description, unit: "ns"|"count",
//                        recorded: "inclusive"|"self", run_total: [...],
//                        unattributed: [...]}, ...]; metrics[0] is "time"
//   verified           true | false | null (not checked)                   <- derived
//   verification       null | {identical, within_tolerance, max_abs_error,
//                       max_rel_error, rtol, atol, detail, reference}
//   gradient_verification  the same for parameter gradients (--backward), or null
//   loss               what backward differentiated ("" without --backward)
//   gradient_bytes     [[module, bytes of its parameters' gradients], ...]
//   parameters, trainable_parameters, model_bytes, input_bytes   (null: unknown)
//   inputs             the inputs' types and shapes ("f32[1,3,224,224]"; absent: unknown)
//   passes             the passes applied before profiling (absent: none)
//   unverified_reason  why the output was not checked though asked (absent: it was, or not asked)
//   peak_bytes         peak live bytes of the inspection run, or null       <- derived
//   memory             {peak_bytes, peak_node, allocated_bytes, freed_bytes,
//                       allocations, timeline: [[node, live_bytes], ...],
//                       with --backward: backward_peak_bytes, backward_peak_node,
//                       saved_bytes} or null
//   nodes              [node, ...] in id order (below)
//   ir                 [[line text, node id or -1], ...]
//   events             [[node, run, start_ns, duration_ns], ...] (timelines)
//   backward_events    the same for autograd functions (node -1: not the graph's)
//   dropped_events     trace events that did not fit the buffer
//   device, device_note, device_events [[node, run, name, kind, start_ns, duration_ns], ...]
//   notes              ["...", ...]
//   rank, world_size   a rank's report (profilers/session/ranks.h) only
//   run_sources        [{name, first_run, runs, process, report, and for a
//                       rank's runs rank, world_size}, ...] (merged reports
//                       only; schema 1-3 wrote [name, first_run, runs,
//                       process, report] arrays, still read)
// Node:
//   id, parent (-1 at top level), depth, name, kind, schema, module, source,
//   archive_source, fused_modules [module paths] (only for a row fusing
//   several modules' nodes: a compiled kernel), input_shapes, output_shapes,
//   calls [per run], total_ns [per run, host time inclusive]      <- raw samples
//   series {metric name: [per run, the recorded side], ...} for the other metrics
//   count, mean_us, std_us, min_us, median_us, p90_us, max_us, self_us,
//   percent, and <metric>_us / <metric>_self_us (counts: <metric>,
//   <metric>_self) for the other metrics                           <- derived
//   memory {allocated_bytes, freed_bytes, allocations, peak_bytes,
//           live_after_bytes, output_bytes, saved_bytes, self_*}  <- only with a memory view
//          (integers, each self value after its own; 2^53 at most in magnitude)
//   top_kernels [[name, ns per run], ...]                        <- only with kernel data
//
// ReportFromJson reads the raw fields back and recomputes everything derived,
// so ReportFromJson(ReportToJson(r)) renders exactly like r. Writing streams
// (no document is built), so it takes one pass and little memory.
#ifndef GRAPHPROF_PROFILERS_REPORT_REPORT_JSON_H_
#define GRAPHPROF_PROFILERS_REPORT_REPORT_JSON_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/text_sink.h"
#include "profilers/report/json_writer.h"
#include "profilers/report/report.h"

namespace graphprof {

std::string ReportToJson(const Report& report);
// The same text, handed to `sink` chunk by chunk as it is made.
void StreamReportJson(const Report& report, TextSink& sink);

// Writes the report as one JSON object (for documents that embed reports,
// such as the A/B output). From `parallel_nodes` nodes on, the nodes are
// rendered on two threads (the same text; tests lower it to check that).
inline constexpr size_t kParallelJsonNodes = 4096;
void WriteReportJson(const Report& report, JsonWriter& writer, size_t parallel_nodes = kParallelJsonNodes);

absl::StatusOr<Report> ReportFromJson(absl::string_view json);
// The same for text followed by at least kJsonPadding readable bytes (any
// values; e.g. ReadFileInto(path, text, kJsonPadding)): parsed in place,
// without copying it (a merge reads hundreds of MB).
inline constexpr size_t kJsonPadding = 64;
absl::StatusOr<Report> ReportFromPaddedJson(absl::string_view json);

// A report file read and parsed in place (report_file.cc). Errors name the
// file ("<path>: ..."); a report larger than memory is ResourceExhausted.
// `buffer` holds the text: a caller reading many reports passes the same
// one, reusing its capacity.
absl::StatusOr<Report> ReadReportFile(const std::string& path, std::string& buffer);
absl::StatusOr<Report> ReadReportFile(const std::string& path);

// Ceilings::bandwidth as JSON: [[bytes, GB/s], ...], smallest working set
// first (the report's "bandwidth" and the HTML roofline's).
void WriteBandwidthLevels(const std::vector<BandwidthLevel>& levels, JsonWriter& writer);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_REPORT_JSON_H_
