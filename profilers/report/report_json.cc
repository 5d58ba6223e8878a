// The JSON report writer (reading it back: report_json_reader.cc).
#include "profilers/report/report_json.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "profilers/report/stats.h"

namespace graphprof {
namespace {

const char* RecordedName(Column::Scope r) { return r == Column::Scope::kSelf ? "self" : "inclusive"; }

// A count, null when unknown (-1).
void WriteOptionalCount(JsonWriter& w, const char* key, int64_t value) {
  w.Key(key);
  w.OrNull(value >= 0, [&] { w.Int(value); });
}

// `metrics`: report.Metrics(), found once per report, not per node.
void WriteNode(JsonWriter& w, const Report& report, const std::vector<int>& metrics, const NodeRecord& node) {
  const NodeIdentity& id = node.identity;
  w.BeginObject();
  w.Key("id"); w.Int(id.id);
  w.Key("parent"); w.Int(id.parent);
  w.Key("depth"); w.Int(id.depth);
  w.Key("name"); w.String(id.label);
  w.Key("kind"); w.String(id.kind);
  w.Key("schema"); w.String(id.schema);
  w.Key("module"); w.String(id.module);
  w.Key("source"); w.String(id.source);
  w.OptionalString("archive_source", id.archive_source);
  if (!id.fused_modules.empty()) {
    w.Key("fused_modules");
    w.BeginArray();
    for (const std::string& module : id.fused_modules) w.String(module);
    w.EndArray();
  }
  w.Key("input_shapes"); w.String(node.input_shapes);
  w.Key("output_shapes"); w.String(node.output_shapes);
  w.Key("calls"); w.IntArray(node.calls);
  w.Key("total_ns"); w.IntArray(node.time().total);
  if (metrics.size() > 1) {
    w.Key("series");
    w.BeginObject();
    for (size_t k = 1; k < metrics.size(); ++k) {
      w.Key(report.columns[metrics[k]].name);
      w.IntArray(node.metrics[metrics[k]].recorded(report.columns[metrics[k]]));
    }
    w.EndObject();
  }
  // Derived, for readers that want numbers without statistics of their own.
  const Summary time = Summarize(node.time().total);
  w.Key("count"); w.Approx(Mean(node.calls));
  w.Key("mean_us"); w.Approx(time.mean / 1e3);
  w.Key("std_us"); w.Approx(time.std / 1e3);
  w.Key("min_us"); w.Approx(time.min / 1e3);
  w.Key("median_us"); w.Approx(time.median / 1e3);
  w.Key("p90_us"); w.Approx(time.p90 / 1e3);
  w.Key("max_us"); w.Approx(time.max / 1e3);
  w.Key("self_us"); w.Approx(Summarize(node.time().self).mean / 1e3);
  w.Key("percent"); w.Approx(report.PercentOfRun(time.mean));
  for (size_t k = 1; k < metrics.size(); ++k) {
    const int m = metrics[k];
    const Column& metric = report.columns[m];
    const bool ns = metric.unit == Unit::kNanoseconds;
    const double scale = ns ? 1e3 : 1;
    w.Key(absl::StrCat(metric.name, ns ? "_us" : ""));
    w.Approx(Summarize(node.metrics[m].total).mean / scale);
    w.Key(absl::StrCat(metric.name, ns ? "_self_us" : "_self"));
    w.Approx(Summarize(node.metrics[m].self).mean / scale);
  }
  for (size_t q = 0; q < report.columns.size(); ++q) {
    if (report.columns[q].per_run() || report.columns[q].memory) continue;  // memory: below
    w.Key(report.columns[q].name);
    w.Double(node.quantities[q]);
  }
  if (!node.work_counted) {
    w.Key("work_counted");
    w.Bool(false);
  }
  if (report.measures_memory()) {
    w.Key("memory");
    w.BeginObject();
    ForEachMemoryValue(report, node, [&w](const std::string& key, int64_t value) {
      w.Key(key);
      w.Int(value);
    });
    w.EndObject();
  }
  if (!node.top_kernels.empty()) {
    w.Key("top_kernels");
    w.Tuples(node.top_kernels, [&w](const auto& kernel) {
      w.String(kernel.first);
      w.Int(kernel.second);
    });
  }
  w.EndObject();
}

void WriteVerification(JsonWriter& w, const std::optional<Verification>& verification) {
  if (!verification.has_value()) return w.Null();
  const Verification& v = *verification;
  w.BeginObject();
  w.Key("identical"); w.Bool(v.identical);
  w.Key("within_tolerance"); w.Bool(v.within_tolerance);
  w.Key("max_abs_error"); w.Double(v.max_abs_error);
  w.Key("max_rel_error"); w.Double(v.max_rel_error);
  w.Key("rtol"); w.Double(v.rtol);
  w.Key("atol"); w.Double(v.atol);
  w.Key("criterion");
  w.String(v.criterion == Verification::Criterion::kFloat64Scale ? "float64_scale" : "elementwise");
  w.Key("detail"); w.String(v.detail);
  w.Key("reference"); w.String(v.reference);
  w.EndObject();
}

void WriteEvents(JsonWriter& w, const std::vector<TraceEvent>& events) {
  w.Tuples(events, [&w](const TraceEvent& e) {
    w.Chunk();  // hands a full chunk on; the text is the same
    w.Int(e.node);
    w.Int(e.run);
    w.Int(e.start_ns);
    w.Int(e.duration_ns);
  });
}

// The nodes of a big report on two threads: a helper renders every other
// block of kBlockNodes nodes into a string, at most kBlocksAhead blocks
// ahead of the writer; this thread renders the other blocks straight into
// the writer and appends the helper's in order. The text is what one thread
// writes, in about half the time (a merge of 64 reports of a 10k-node graph
// writes 50 MB), and at most a few blocks are held beside the sink's chunk.
void WriteNodes(JsonWriter& w, const Report& report, size_t parallel_nodes) {
  const std::vector<NodeRecord>& nodes = report.nodes;
  const std::vector<int> metrics = report.Metrics();
  // Nodes [begin, end) as elements of the array `out` is in.
  auto write_nodes = [&](JsonWriter& out, size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < nodes.size(); ++i) {
      out.Newline();
      WriteNode(out, report, metrics, nodes[i]);
    }
  };
  if (nodes.size() < parallel_nodes || std::thread::hardware_concurrency() < 2) return write_nodes(w, 0, nodes.size());
  constexpr size_t kBlockNodes = 256;
  constexpr size_t kBlocksAhead = 4;
  const size_t blocks = (nodes.size() + kBlockNodes - 1) / kBlockNodes;
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::optional<std::string>> rendered;
    size_t written = 0;  // blocks written by this thread
    bool stop = false;
    bool out_of_memory = false;
  } shared;
  shared.rendered.resize(blocks);
  const bool html_safe = w.html_safe();
  std::thread helper;
  try {
    helper = std::thread([&] {
      for (size_t b = 1; b < blocks; b += 2) {
        {
          std::unique_lock<std::mutex> lock(shared.mu);
          shared.cv.wait(lock, [&] { return shared.stop || b <= shared.written + kBlocksAhead; });
          if (shared.stop) return;
        }
        std::string text;
        try {
          JsonWriter h(&text, html_safe);
          h.BeginArray();
          write_nodes(h, b * kBlockNodes, (b + 1) * kBlockNodes);
          text.erase(0, 1);  // the '['
        } catch (const std::bad_alloc&) {
          std::lock_guard<std::mutex> lock(shared.mu);
          shared.out_of_memory = true;
          shared.cv.notify_all();
          return;
        }
        {
          std::lock_guard<std::mutex> lock(shared.mu);
          shared.rendered[b] = std::move(text);
        }
        shared.cv.notify_all();
      }
    });
  } catch (const std::system_error&) {
    return write_nodes(w, 0, nodes.size());  // no thread to be had: the same text on this one
  }
  // The helper is stopped and joined however this thread leaves (a sink
  // that throws, out of memory).
  struct Join {
    Shared& shared;
    std::thread& helper;
    ~Join() {
      {
        std::lock_guard<std::mutex> lock(shared.mu);
        shared.stop = true;
      }
      shared.cv.notify_all();
      helper.join();
    }
  } join{shared, helper};
  for (size_t b = 0; b < blocks; ++b) {
    if (b % 2 == 0) {
      write_nodes(w, b * kBlockNodes, (b + 1) * kBlockNodes);
    } else {
      std::string text;
      {
        std::unique_lock<std::mutex> lock(shared.mu);
        shared.cv.wait(lock, [&] { return shared.rendered[b].has_value() || shared.out_of_memory; });
        if (!shared.rendered[b].has_value()) throw std::bad_alloc();
        text = *std::move(shared.rendered[b]);
        shared.rendered[b].reset();
      }
      w.RenderedElements(text);
    }
    {
      std::lock_guard<std::mutex> lock(shared.mu);
      shared.written = b + 1;
    }
    shared.cv.notify_all();
  }
}

// The declared per-run metrics, "time" first.
void WriteMetricDeclarations(JsonWriter& w, const Report& report) {
  w.Key("metrics");
  w.BeginArray();
  for (int index : report.Metrics()) {
    const Column& m = report.columns[index];
    w.BeginObject();
    w.Key("name"); w.String(m.name);
    w.Key("description"); w.String(m.description);
    w.Key("unit"); w.String(UnitName(m.unit));
    w.Key("recorded"); w.String(RecordedName(m.scope));
    w.Key("run_total"); w.IntArray(m.run_total);
    w.Key("unattributed"); w.IntArray(m.unattributed);
    w.EndObject();
}
w.EndArray();
}

// The run's memory summary (each node's values are in its own "memory").
void WriteMemorySummary(JsonWriter& w, const MemorySummary& m) {
  w.BeginObject();
  w.Key("peak_bytes"); w.Int(m.peak_bytes);
  w.Key("peak_node"); w.Int(m.peak_node);
  w.Key("allocated_bytes"); w.Int(m.allocated_bytes);
  w.Key("freed_bytes"); w.Int(m.freed_bytes);
  w.Key("allocations"); w.Int(m.allocations);
  if (m.backward) {
    w.Key("backward_peak_bytes"); w.Int(m.backward_peak_bytes);
    w.Key("backward_peak_node"); w.Int(m.backward_peak_node);
    w.Key("saved_bytes"); w.Int(m.saved_bytes);
  }
  w.Key("timeline");
  w.Tuples(m.timeline, [&w](const MemoryPoint& p) {
    w.Int(p.node);
    w.Int(p.live_bytes);
  });
  w.EndObject();
}

// The declared work quantities and the kinds whose work is not counted.
void WriteWorkDeclarations(JsonWriter& w, const Report& report) {
  w.Key("quantities");
  w.BeginArray();
  for (const Column& q : report.columns) {
    if (q.per_run() || q.memory) continue;  // memory: in each node's "memory" object
    w.BeginObject();
    w.Key("name"); w.String(q.name);
    w.Key("unit");
    w.String(UnitName(q.unit));
    w.Key("description"); w.String(q.description);
    w.EndObject();
}
w.EndArray();
// Kinds whose work is not counted, and their share of the run.
w.Key("uncounted");
w.BeginArray();
for (const UncountedKind& u : report.uncounted) {
  w.BeginObject();
  w.Key("kind"); w.String(u.kind);
  w.Key("nodes"); w.Int(u.nodes);
  w.Key("percent"); w.Approx(u.percent);
  w.EndObject();
}
w.EndArray();
}

void WriteCeilings(JsonWriter& w, const Ceilings& c) {
  w.Key("peak_gflops"); w.Approx(c.peak_gflops);
  w.Key("peak_gbps"); w.Approx(c.peak_gbps);
  w.Key("blas_gflops"); w.Approx(c.blas_gflops);
  w.Key("conv_gflops"); w.Approx(c.conv_gflops);
  if (!c.bandwidth.empty()) {
    w.Key("bandwidth");
    WriteBandwidthLevels(c.bandwidth, w);
  }
  w.Key("ceilings_threads"); w.Int(c.threads);
  w.Key("ceilings_source"); w.String(c.source);
}

void WriteDevice(JsonWriter& w, const Report& report) {
  w.Key("device"); w.String(report.device);
  w.Key("device_note"); w.String(report.device_note);
  w.Key("device_events");
  w.Tuples(report.device_events, [&w](const DeviceEvent& e) {
    w.Int(e.node);
    w.Int(e.run);
    w.String(e.name);
    w.String(e.kind);
    w.Int(e.start_ns);
    w.Int(e.duration_ns);
  });
}

void WriteMachine(JsonWriter& w, const Machine& m) {
  w.Key("machine");
  w.BeginObject();
  w.Key("host"); w.String(m.host);
  w.Key("cpu"); w.String(m.cpu);
  w.Key("governor"); w.String(m.governor);
  w.Key("cpu_mhz"); w.Approx(m.cpu_mhz);
  w.Key("cores"); w.Int(m.cores);
  w.Key("threads"); w.Int(m.threads);
  w.Key("interop_threads"); w.Int(m.interop_threads);
  w.Key("parallel"); w.String(m.parallel);
  w.Key("blas"); w.String(m.blas);
  w.Key("blas_threads"); w.Int(m.blas_threads);
  w.Key("blas_core"); w.String(m.blas_core);
  w.Key("vector_isa"); w.String(m.vector_isa);
  w.Key("libtorch"); w.String(m.libtorch);
  w.Key("kernel"); w.String(m.kernel);
  w.Key("load_average"); w.Approx(m.load_average);
  w.EndObject();
}

// A rank's `rank` and `world_size` keys (nothing when it was not a rank).
void WriteRank(JsonWriter& w, int rank, int world_size) {
  if (world_size <= 0) return;
  w.Key("rank"); w.Int(rank);
  w.Key("world_size"); w.Int(world_size);
}

void WriteRunSources(JsonWriter& w, const std::vector<RunSource>& run_sources) {
  w.Key("run_sources");
  w.BeginArray();
  for (const RunSource& source : run_sources) {
    w.BeginObject();
    w.Key("name"); w.String(source.name);
    w.Key("first_run"); w.Int(source.first_run);
    w.Key("runs"); w.Int(source.runs);
    w.OptionalString("process", source.process);
    w.OptionalString("report", source.report);
    WriteRank(w, source.rank, source.world_size);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteReportJson(const Report& report, JsonWriter& w, size_t parallel_nodes) {
  w.BeginObject();
  w.Key("schema_version"); w.Int(Report::kSchemaVersion);
  w.Key("model"); w.String(report.model);
  w.OptionalString("process", report.process);
  w.OptionalString("report_id", report.report_id);
  WriteRank(w, report.rank, report.world_size);
  w.OptionalString("graph_hash", report.graph_hash);
  w.Key("clock"); w.String(report.clock);
  w.Key("runs"); w.Int(report.runs);
  w.Key("warmup"); w.Int(report.warmup);
  w.Key("timer_overhead_ns"); w.Double(report.timer_overhead_ns);
  w.Key("timer_inner_ns"); w.Double(report.timer_inner_ns);
  w.Key("timer_block_ns"); w.Double(report.timer_block_ns);
  w.Key("compensated"); w.Bool(report.compensated);
  w.Key("coverage"); w.Approx(report.coverage());
  w.Key("total_us"); w.Approx(report.total_us());
  w.Key("run_ns"); w.IntArray(report.run_ns());
  w.Key("run_start_ns"); w.IntArray(report.run_start_ns);
  WriteMetricDeclarations(w, report);
  w.Key("verified");
  w.OrNull(report.verification.has_value() || report.gradient_verification.has_value(),
           [&] { w.Bool(report.verified()); });
  w.Key("verification"); WriteVerification(w, report.verification);
  w.Key("gradient_verification"); WriteVerification(w, report.gradient_verification);
  w.Key("loss"); w.String(report.loss);
  w.Key("gradient_bytes");
  w.Tuples(report.gradient_bytes, [&w](const ModuleBytes& m) {
    w.String(m.module);
    w.Int(m.bytes);
  });
  WriteOptionalCount(w, "parameters", report.parameters);
  WriteOptionalCount(w, "trainable_parameters", report.trainable_parameters);
  WriteOptionalCount(w, "model_bytes", report.model_bytes);
  WriteOptionalCount(w, "input_bytes", report.input_bytes);
  w.OptionalString("inputs", report.inputs);
  w.OptionalString("unverified_reason", report.unverified_reason);
  w.OptionalString("passes", report.passes);
  WriteOptionalCount(w, "peak_bytes", report.memory.has_value() ? report.memory->peak_bytes : -1);
  w.Key("memory");
  w.OrNull(report.memory.has_value(), [&] { WriteMemorySummary(w, *report.memory); });
  if (report.counts_work()) WriteWorkDeclarations(w, report);
  if (report.ceilings.has_value()) WriteCeilings(w, *report.ceilings);
  if (report.machine.has_value()) {
    w.Key("blas"); w.String(report.machine->blas);
    w.Key("blas_threads"); w.Int(report.machine->blas_threads);
  }
  w.Key("nodes");
  w.BeginArray();
  WriteNodes(w, report, parallel_nodes);
  w.EndArray();
  w.Key("ir");
  w.BeginArray();
  for (const IrLine& line : report.ir) {
    w.Newline();
    w.BeginArray();
    w.String(line.text);
    w.Int(line.node);
    w.EndArray();
  }
  w.EndArray();
  w.Key("events"); WriteEvents(w, report.events);
  w.Key("backward_events"); WriteEvents(w, report.backward_events);
  w.Key("dropped_events"); w.Int(report.dropped_events);
  WriteDevice(w, report);
  if (report.machine.has_value()) WriteMachine(w, *report.machine);
  w.Key("notes");
  w.BeginArray();
  for (const std::string& note : report.notes) w.String(note);
  w.EndArray();
  if (!report.run_sources.empty()) WriteRunSources(w, report.run_sources);
  w.EndObject();
}

void StreamReportJson(const Report& report, TextSink& sink) {
  JsonWriter writer(&sink);
  WriteReportJson(report, writer);
  sink.Append("\n");
}

std::string ReportToJson(const Report& report) {
  TextSink sink;
  StreamReportJson(report, sink);
  return sink.Take();
}

void WriteBandwidthLevels(const std::vector<BandwidthLevel>& levels, JsonWriter& w) {
  w.Tuples(levels, [&w](const BandwidthLevel& level) {
    w.Int(level.bytes);
    w.Approx(level.gbps);
  });
}

}  // namespace graphprof
