// Report: everything one profiling session measured, as plain data.
//
// One data model, many renderings (TVM's profiling Report is the model): the
// table, CSV, JSON, Chrome trace, annotated IR and diff renderers all read a
// Report and nothing else. A Report holds raw per-run samples, not just
// summaries, so any view (by node, kind, module, shape) and any statistic can
// be computed from it, also after a JSON round trip.
//
// Time semantics: a node's time in a run is the sum over its executions in
// that run (a node inside a loop body runs many times). prim::If and
// prim::Loop times are inclusive of their blocks, whose nodes also have their
// own records; "self" time excludes the direct children.
#ifndef GRAPHPROF_PROFILERS_REPORT_H_
#define GRAPHPROF_PROFILERS_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/node_identity.h"

namespace graphprof {

// Memory while a node ran, from the inspection run (children included for
// If/Loop). Byte counts are relative to live bytes when the run started.
struct NodeMemory {
  int64_t allocated_bytes = 0;   // allocated while it ran
  int64_t freed_bytes = 0;       // freed while it ran (its dead inputs included)
  int64_t allocations = 0;
  int64_t peak_bytes = 0;        // highest live bytes while it ran
  int64_t live_after_bytes = 0;  // live bytes right after it
  int64_t output_bytes = 0;      // bytes of its outputs, each storage once
};

struct MemoryPoint {
  int node;            // node id
  int64_t live_bytes;  // live bytes after that execution
};

struct MemorySummary {
  int64_t peak_bytes = 0;
  int peak_node = -1;  // the node running when the peak was reached
  int64_t allocated_bytes = 0;
  int64_t freed_bytes = 0;
  int64_t allocations = 0;
  std::vector<MemoryPoint> timeline;  // one point per node execution
};

// One node execution in a timed run, for the Chrome trace.
struct TraceEvent {
  int32_t node;
  int32_t run;
  int64_t start_ns;     // since the start of the first timed run
  int64_t duration_ns;
};

// Device work a node launched, from CUPTI activity records (all timed runs).
struct KernelSummary {
  int64_t count = 0;     // kernels, memcpys and memsets, per run (mean)
  int64_t total_ns = 0;  // their device time, per run (mean)
  // The most expensive names with their device time per run, largest first.
  std::vector<std::pair<std::string, int64_t>> top;
};

// One kernel / memcpy / memset on the device track of the Chrome trace.
struct DeviceEvent {
  int32_t node;         // -1 when it could not be attributed
  int32_t run;
  std::string name;
  std::string kind;     // "kernel", "memcpy", "memset"
  int64_t start_ns;     // since the start of the first timed run (host clock)
  int64_t duration_ns;
};

struct NodeRecord {
  NodeIdentity identity;
  std::string input_shapes;   // "f32[1,3,224,224], f32[64,3,7,7], None"
  std::string output_shapes;
  std::vector<int64_t> total_ns;  // per timed run, inclusive
  std::vector<int64_t> calls;     // executions per timed run
  std::vector<int64_t> self_ns;   // per timed run, derived by Report::Finalize
  std::optional<NodeMemory> memory;
  // Device time between CUDA events recorded around the node on the current
  // stream, per timed run (empty without --cuda_profile). Never added to the
  // host times above.
  std::vector<int64_t> device_ns;
  std::optional<KernelSummary> kernels;
};

struct Report {
  static constexpr int kSchemaVersion = 1;

  std::string model;
  std::string clock = "steady_clock";
  int warmup = 0;
  int runs = 0;
  // Estimated cost the timer adds to each node (two clock reads + bookkeeping).
  double timer_overhead_ns = 0;
  std::vector<int64_t> run_ns;        // total time of each timed run
  std::vector<int64_t> run_start_ns;  // start of each timed run, since the first
  // Sizes (see sizes.h), -1 when unknown: trainable parameters, the module
  // serialized, the inputs (each storage once).
  int64_t parameters = -1;
  int64_t model_bytes = -1;
  int64_t input_bytes = -1;
  // Output compared with module.forward: true/false, or unset when not checked.
  std::optional<bool> verified;
  std::vector<NodeRecord> nodes;  // indexed by node id
  std::optional<MemorySummary> memory;
  std::vector<TraceEvent> events;
  int64_t dropped_events = 0;  // trace events that did not fit the buffer
  // Device profiling: the device used ("cuda:0 NVIDIA H200"), or why there
  // are no device columns ("no CUDA device"); device events for the trace.
  std::string device;
  std::string device_note;
  std::vector<DeviceEvent> device_events;

  // True when any node has device time / kernel data.
  bool has_device_time() const;
  bool has_kernels() const;

  // Computes derived fields (self_ns) from the raw samples.
  void Finalize();

  // JSON, schema version 1 (report_json.h; link //profilers:report_json).
  std::string ToJson() const;
  static absl::StatusOr<Report> FromJson(absl::string_view json);

  // Mean run time in microseconds.
  double total_us() const;
  // `ns` (per run) as a percentage of the mean run time; 0 without runs.
  double PercentOfRun(double ns) const;
  // Mean over runs of (sum of top-level node times) / (run time).
  double coverage() const;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_H_
