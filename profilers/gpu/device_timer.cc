#include "profilers/gpu/device_timer.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace graphprof {

DeviceEventTimer::DeviceEventTimer(std::unique_ptr<EventApi> api) : api_(std::move(api)) {}

DeviceEventTimer::~DeviceEventTimer() {
  if (api_ != nullptr) {
    api_->Destroy(starts_);
    api_->Destroy(stops_);
  }
}

absl::Status DeviceEventTimer::Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
  if (api_ == nullptr) return absl::FailedPreconditionError("no device event API");
  num_nodes_ = plan.nodes().size();
  has_blocks_.clear();
  for (const NodePlan& node : plan.nodes()) has_blocks_.push_back(!node.blocks.empty());
  device_ns_.assign(static_cast<size_t>(runs) * num_nodes_, 0);
  // Headroom for runs that execute more nodes than the inspection run did.
  const size_t pairs = static_cast<size_t>(executions_per_run) * 2 + 16;
  api_->Destroy(starts_);
  api_->Destroy(stops_);
  starts_.clear();
  stops_.clear();
  if (absl::Status s = api_->Create(pairs, &starts_); !s.ok()) return s;
  if (absl::Status s = api_->Create(pairs, &stops_); !s.ok()) return s;
  node_of_pair_.assign(pairs, -1);
  dropped_ = 0;
  error_ = absl::OkStatus();
  return absl::OkStatus();
}

void DeviceEventTimer::BeginRun(int run) {
  run_ = run;
  next_pair_ = 0;
  open_ = false;
}

void DeviceEventTimer::BeginNode(const NodePlan& node) {
  if (has_blocks_[node.id]) return;
  if (next_pair_ >= starts_.size()) {
    ++dropped_;
    return;
  }
  node_of_pair_[next_pair_] = node.id;
  api_->Record(starts_[next_pair_]);
  open_ = true;
}

void DeviceEventTimer::EndNode(const NodePlan& node) {
  if (has_blocks_[node.id] || !open_) return;
  api_->Record(stops_[next_pair_]);
  ++next_pair_;
  open_ = false;
}

void DeviceEventTimer::EndRun(int run) {
  if (next_pair_ == 0 || !error_.ok()) return;
  if (absl::Status s = api_->Synchronize(stops_[next_pair_ - 1]); !s.ok()) {
    error_ = s;
    return;
  }
  int64_t* row = &device_ns_[static_cast<size_t>(run) * num_nodes_];
  for (size_t k = 0; k < next_pair_; ++k) {
    absl::StatusOr<double> ms = api_->ElapsedMs(starts_[k], stops_[k]);
    if (!ms.ok()) {
      error_ = ms.status();
      return;
    }
    row[node_of_pair_[k]] += static_cast<int64_t>(std::llround(*ms * 1e6));
  }
}

Column DeviceEventTimer::MetricColumn() {
  Column metric;
  metric.name = kMetricName;
  metric.description = "device time (CUDA events around each node)";
  metric.scope = Column::Scope::kSelf;  // leaf nodes only; If/Loop add their blocks'
  return metric;
}

absl::StatusOr<Collected> DeviceEventTimer::Collect(int runs) {
  if (!error_.ok()) return error_;
  const size_t measured = num_nodes_ == 0 ? 0 : device_ns_.size() / num_nodes_;
  if (static_cast<size_t>(runs) > measured) {
    return absl::InternalError(absl::StrCat("device timer: ", runs, " timed runs, ", measured, " prepared"));
  }
  ColumnValues device{kMetricName, std::vector<int64_t>(static_cast<size_t>(runs) * num_nodes_, 0), {}, {}, {}};
  for (size_t r = 0; r < static_cast<size_t>(runs); ++r) {
    for (size_t id = 0; id < num_nodes_; ++id) {
      if (!has_blocks_[id]) device.per_run[r * num_nodes_ + id] = device_ns_[r * num_nodes_ + id];
    }
  }
  Collected collected;
  collected.columns.push_back(std::move(device));
  collected.device = api_->DeviceName();
  if (dropped_ > 0) {
    collected.device_notes.push_back(
        absl::StrCat(dropped_, " node executions had no free event pair and were not timed on the device"));
  }
  return collected;
}

}  // namespace graphprof
