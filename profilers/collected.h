// Collected: what a collector (NodeObserver) measured, returned after the
// runs; InsertCollected: how the runner puts it into the report. As TVM's
// MetricCollector: the collector returns values, the profiler inserts them.
//
// A collector declares its columns once (NodeObserver::Columns); the runner
// checks the declarations when the collector is registered (CheckColumns:
// a name, unique among the report's columns and every other collector's)
// and adds them to the report. The values a collector returns name their
// column; InsertCollected writes them only into a column that collector
// declared, and refuses (one line, nothing written) values for any other, a
// series of the wrong length, or a column declared with another sampling.
// No collector writes the report or finalizes it: the runner finalizes it
// after every collector's values are in (Finalize is idempotent; BuildReport
// finalized the host-time report before).
#ifndef GRAPHPROF_PROFILERS_COLLECTED_H_
#define GRAPHPROF_PROFILERS_COLLECTED_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "profilers/report/report.h"

namespace graphprof {

// One declared column's values.
struct ColumnValues {
  std::string column;  // the name of a column the collector declared
  // A per-run column (metric): each node's value in each timed run,
  // [run * nodes + node], of the side the column's scope records (kSelf:
  // self; otherwise total). At least runs * nodes values.
  std::vector<int64_t> per_run;
  // A once-measured column (quantity): each node's value, [node].
  std::vector<double> once;
  // A per-run column's whole-run value and the part of it no node holds,
  // per timed run (Column::run_total, Column::unattributed); empty: none.
  std::vector<int64_t> run_total;
  std::vector<int64_t> unattributed;
};

// What the backward half of training steps measured beyond its columns.
struct CollectedTraining {
  std::string loss;                        // what was differentiated
  std::vector<TraceEvent> events;          // autograd functions, in report time
  std::vector<ModuleBytes> gradient_bytes;
  // With memory measured: the backward peak, the node whose functions ran
  // at it, and the bytes each node kept for backward ([node], its own: the
  // runner adds blocks into their parents for the "saved_bytes" quantity).
  bool memory = false;
  int64_t backward_peak_bytes = 0;
  int backward_peak_node = -1;
  std::vector<int64_t> saved_bytes;
};

struct Collected {
  std::vector<ColumnValues> columns;
  std::vector<std::string> notes;  // appended to Report::notes
  // Device profiling: the device's name (set when not empty), notes on what
  // it could not measure (joined with "; " to Report::device_note), device
  // events in report time (added to Report::device_events, kept sorted by
  // start), and per node the most expensive kernel names with their device
  // time per run ([node]; empty: none).
  std::string device;
  std::vector<std::string> device_notes;
  std::vector<DeviceEvent> device_events;
  std::vector<std::vector<std::pair<std::string, int64_t>>> top_kernels;
  std::optional<CollectedTraining> training;
};

// Adds a declared column to `report` by its sampling (a metric when per run,
// else a quantity), without values; its index, or -1 (Report::AddMetric).
int AddDeclaredColumn(const Column& column, Report& report);

// Registration: every column of `declared` has a name and is not already a
// column of `report` (the report's own: host time, work, memory, the
// columns of collectors registered before, and the earlier columns of
// `declared`). `who` names the collector in the error. Each column checked
// is added to `report`.
absl::Status CheckColumns(const std::vector<Column>& declared, absl::string_view who, Report& report);

// Inserts `collected` into `report`: each column it has values for (one of
// `declared`, the collector's Columns()) is added to the report with them;
// a declared column it returned nothing for is not added (a collector that
// measured nothing, CUPTI without a device, adds no empty column). Refuses,
// writing nothing, values for a column not in `declared`, values of the
// wrong length, or a declared column the report has with the other
// sampling. Does not finalize.
absl::Status InsertCollected(const std::vector<Column>& declared, Collected collected, Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COLLECTED_H_
