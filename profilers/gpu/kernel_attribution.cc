#include "profilers/gpu/kernel_attribution.h"

#include <algorithm>
#include <map>

namespace graphprof {

void KernelAttribution::AddCorrelation(const CorrelationRecord& record) {
  external_of_[record.correlation_id] = record.external_id;
}

void KernelAttribution::AddActivity(ActivityRecord record) { activities_.push_back(std::move(record)); }

const char* KernelAttribution::KindName(ActivityRecord::Kind kind) const {
  switch (kind) {
    case ActivityRecord::Kind::kKernel: return "kernel";
    case ActivityRecord::Kind::kMemcpy: return "memcpy";
    case ActivityRecord::Kind::kMemset: return "memset";
  }
  return "?";
}

bool KernelAttribution::Resolve(uint32_t correlation_id, int* run, int* node) const {
  auto it = external_of_.find(correlation_id);
  if (it == external_of_.end() || it->second == 0 ||
      it->second > static_cast<uint64_t>(num_nodes_) * static_cast<uint64_t>(runs_)) {
    return false;
  }
  const uint64_t index = it->second - 1;
  *run = static_cast<int>(index / num_nodes_);
  *node = static_cast<int>(index % num_nodes_);
  return true;
}

int64_t KernelAttribution::unattributed() const {
  int64_t count = 0;
  int run, node;
  for (const ActivityRecord& a : activities_) count += !Resolve(a.correlation_id, &run, &node);
  return count;
}

std::vector<Column> KernelAttribution::Columns() {
  Column count_metric;
  count_metric.name = kCountMetric;
  count_metric.description = "kernels, memcpys and memsets launched (CUPTI)";
  count_metric.unit = Unit::kCount;
  count_metric.scope = Column::Scope::kSelf;
  Column time_metric;
  time_metric.name = kTimeMetric;
  time_metric.description = "device time of the kernels, memcpys and memsets launched (CUPTI)";
  time_metric.scope = Column::Scope::kSelf;
  return {std::move(count_metric), std::move(time_metric)};
}

Collected KernelAttribution::Collect(int runs, const std::function<int64_t(int64_t)>& to_report_ns,
                                     int top_names) const {
  runs = std::max(0, std::min(runs, runs_));
  const size_t nodes = static_cast<size_t>(num_nodes_);
  ColumnValues count{kCountMetric, std::vector<int64_t>(static_cast<size_t>(runs) * nodes, 0), {}, {}, {}};
  ColumnValues time{kTimeMetric, std::vector<int64_t>(static_cast<size_t>(runs) * nodes, 0), {}, {}, {}};
  Collected collected;
  std::vector<std::map<std::string, int64_t>> by_name(nodes);
  for (const ActivityRecord& a : activities_) {
    int node = -1, run = -1;
    if (!Resolve(a.correlation_id, &run, &node)) node = run = -1;
    const int64_t duration = std::max<int64_t>(a.end_ns - a.start_ns, 0);
    if (node >= 0 && run < runs) {
      const size_t at = static_cast<size_t>(run) * nodes + static_cast<size_t>(node);
      ++count.per_run[at];
      time.per_run[at] += duration;
      by_name[node][a.name] += duration;
    }
    collected.device_events.push_back(
        DeviceEvent{node, run, a.name, KindName(a.kind), to_report_ns(a.start_ns), duration});
  }
  const int64_t divisor = std::max(runs, 1);
  collected.top_kernels.resize(nodes);
  for (size_t id = 0; id < nodes; ++id) {
    std::vector<std::pair<std::string, int64_t>> names(by_name[id].begin(), by_name[id].end());
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (static_cast<int>(names.size()) > top_names) names.resize(top_names);
    for (auto& [name, ns] : names) collected.top_kernels[id].emplace_back(name, ns / divisor);
  }
  collected.columns.push_back(std::move(count));
  collected.columns.push_back(std::move(time));
  return collected;
}

}  // namespace graphprof
