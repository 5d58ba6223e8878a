#include "profilers/collected.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

const Column* Declared(const std::vector<Column>& declared, absl::string_view name) {
  const int i = IndexByName(declared, name);
  return i < 0 ? nullptr : &declared[i];
}

// Every value of `collected` fits a column of `declared` and the report.
absl::Status CheckValues(const std::vector<Column>& declared, const Collected& collected, const Report& report) {
  for (const Column& column : declared) {
    const int c = IndexByName(report.columns, column.name);
    if (c >= 0 && report.columns[c].sampling != column.sampling) {
      return absl::InternalError(absl::StrCat("a collector's column '", column.name,
                                              "' is measured ", column.per_run() ? "per run" : "once",
                                              " but the report's is not"));
    }
  }
  const size_t nodes = report.nodes.size(), runs = static_cast<size_t>(std::max(report.runs, 0));
  for (const ColumnValues& values : collected.columns) {
    const Column* column = Declared(declared, values.column);
    if (column == nullptr) {
      return absl::InternalError(absl::StrCat("a collector returned values for column '", values.column,
                                              "', which it did not declare (NodeObserver::Columns)"));
    }
    const bool fits = column->per_run() ? values.per_run.size() >= runs * nodes && values.once.empty()
                                        : values.once.size() == nodes && values.per_run.empty();
    if (!fits || (!values.run_total.empty() && values.run_total.size() < runs) ||
        (!values.unattributed.empty() && values.unattributed.size() < runs)) {
      return absl::InternalError(absl::StrCat("a collector returned ", values.per_run.size(), " per-run and ",
                                              values.once.size(), " once-measured values for column '",
                                              values.column, "' of a report of ", nodes, " nodes and ", runs,
                                              " runs"));
    }
  }
  if (!collected.top_kernels.empty() && collected.top_kernels.size() != nodes) {
    return absl::InternalError("a collector returned kernel names for another number of nodes");
  }
  if (collected.training.has_value() && collected.training->memory &&
      collected.training->saved_bytes.size() > nodes) {
    return absl::InternalError("a collector returned saved bytes for more nodes than the report has");
  }
  return absl::OkStatus();
}

void InsertColumn(const Column& column, const ColumnValues& values, Report& report) {
  const int c = AddDeclaredColumn(column, report);
  const size_t nodes = report.nodes.size(), runs = static_cast<size_t>(std::max(report.runs, 0));
  if (column.per_run()) {
    for (size_t id = 0; id < nodes; ++id) {
      std::vector<int64_t>& series = report.nodes[id].metrics[c].recorded(column);
      series.resize(runs);
      for (size_t r = 0; r < runs; ++r) series[r] = values.per_run[r * nodes + id];
    }
    if (!values.run_total.empty()) report.columns[c].run_total.assign(values.run_total.begin(), values.run_total.begin() + runs);
    if (!values.unattributed.empty()) {
      report.columns[c].unattributed.assign(values.unattributed.begin(), values.unattributed.begin() + runs);
    }
  } else {
    for (size_t id = 0; id < nodes; ++id) report.nodes[id].quantities[c] = values.once[id];
  }
}

// The backward fields; saved bytes into the report's "saved_bytes" memory
// quantity, each node's with its blocks' (children follow their parent in
// id order).
void InsertTraining(CollectedTraining training, Report& report) {
  report.loss = std::move(training.loss);
  report.backward_events = std::move(training.events);
  report.gradient_bytes = std::move(training.gradient_bytes);
  if (!training.memory || !report.memory.has_value()) return;
  report.memory->backward = true;
  report.memory->backward_peak_bytes = training.backward_peak_bytes;
  report.memory->backward_peak_node = training.backward_peak_node;
  std::vector<int64_t> inclusive = training.saved_bytes;
  inclusive.resize(report.nodes.size(), 0);
  int64_t all = 0;
  for (int64_t bytes : training.saved_bytes) all += bytes;
  for (int id = static_cast<int>(report.nodes.size()) - 1; id >= 0; --id) {
    const int parent = report.nodes[id].identity.parent;
    if (parent >= 0 && parent < id) inclusive[parent] += inclusive[id];
  }
  if (const int saved = report.FindQuantity("saved_bytes"); saved >= 0) {
    for (size_t id = 0; id < report.nodes.size(); ++id) {
      report.nodes[id].quantities[saved] = static_cast<double>(inclusive[id]);
    }
  }
  report.memory->saved_bytes = all;
}

}  // namespace

int AddDeclaredColumn(const Column& column, Report& report) {
  return column.per_run() ? report.AddMetric(column) : report.AddQuantity(column);
}

absl::Status CheckColumns(const std::vector<Column>& declared, absl::string_view who, Report& report) {
  for (const Column& column : declared) {
    if (column.name.empty()) return absl::InvalidArgumentError(absl::StrCat(who, " declares a column without a name"));
    if (IndexByName(report.columns, column.name) >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(who, " declares column '", column.name, "', which the report already has"));
    }
    AddDeclaredColumn(column, report);  // a new name: never -1
  }
  return absl::OkStatus();
}

absl::Status InsertCollected(const std::vector<Column>& declared, Collected collected, Report& report) {
  if (absl::Status fits = CheckValues(declared, collected, report); !fits.ok()) return fits;
  for (const ColumnValues& values : collected.columns) {
    InsertColumn(*Declared(declared, values.column), values, report);
  }
  for (std::string& note : collected.notes) report.notes.push_back(std::move(note));
  if (!collected.device.empty()) report.device = std::move(collected.device);
  for (const std::string& note : collected.device_notes) {
    report.device_note = absl::StrCat(report.device_note, report.device_note.empty() ? "" : "; ", note);
  }
  if (!collected.device_events.empty()) {
    report.device_events.insert(report.device_events.end(), collected.device_events.begin(),
                                collected.device_events.end());
    std::stable_sort(report.device_events.begin(), report.device_events.end(),
                     [](const DeviceEvent& a, const DeviceEvent& b) { return a.start_ns < b.start_ns; });
  }
  for (size_t id = 0; id < collected.top_kernels.size(); ++id) {
    for (auto& named : collected.top_kernels[id]) report.nodes[id].top_kernels.push_back(std::move(named));
  }
  if (collected.training.has_value()) InsertTraining(*std::move(collected.training), report);
  return absl::OkStatus();
}

}  // namespace graphprof
