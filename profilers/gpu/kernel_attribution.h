// Attributing device activity (kernels, memcpys, memsets) to the nodes that
// launched them, from CUPTI-style records.
//
// While a node runs, the profiler pushes an external correlation id naming
// (run, node). CUPTI then reports, for every CUDA runtime/driver call made
// meanwhile, a correlation record (correlation id -> external id), and for
// the device work those calls caused, activity records carrying the same
// correlation id. Joining the two gives each kernel its node. Records may
// arrive in any order; everything is resolved in Collect.
//
// This class is plain logic over plain records, so it is tested here with
// synthetic records; cupti_collector.h feeds it real ones on a GPU.
#ifndef GRAPHPROF_PROFILERS_GPU_KERNEL_ATTRIBUTION_H_
#define GRAPHPROF_PROFILERS_GPU_KERNEL_ATTRIBUTION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "profilers/collected.h"
#include "profilers/report/report.h"

namespace graphprof {

struct ActivityRecord {
  enum class Kind { kKernel, kMemcpy, kMemset };
  Kind kind = Kind::kKernel;
  std::string name;  // kernel name; "memcpy HtoD" etc. for the others
  uint32_t correlation_id = 0;
  int64_t start_ns = 0;  // device timestamps (CUPTI clock)
  int64_t end_ns = 0;
};

struct CorrelationRecord {
  uint32_t correlation_id = 0;
  uint64_t external_id = 0;
};

class KernelAttribution {
 public:
  // The Report metrics Collect fills: operations launched and their device time.
  static constexpr const char* kCountMetric = "kernels";
  static constexpr const char* kTimeMetric = "kernel_time";

  KernelAttribution(int num_nodes, int runs) : num_nodes_(num_nodes), runs_(runs) {}

  // The external id pushed while `node` runs in timed run `run` (never 0).
  static uint64_t ExternalId(int run, int node, int num_nodes) {
    return static_cast<uint64_t>(run) * static_cast<uint64_t>(num_nodes) + static_cast<uint64_t>(node) + 1;
  }

  void AddCorrelation(const CorrelationRecord& record);
  void AddActivity(ActivityRecord record);

  // The kernel count and kernel time metrics of the first `runs` timed runs
  // (per node and run, self), each node's top kernels (the `top_names` most
  // expensive names, device time per run) and the device events, device
  // timestamps mapped to the report's time base with `to_report_ns`: values
  // for the runner to insert (collected.h).
  Collected Collect(int runs, const std::function<int64_t(int64_t)>& to_report_ns, int top_names = 3) const;
  // The two metrics Collect fills, without values (NodeObserver::Columns).
  static std::vector<Column> Columns();

  // Activity records whose node could not be found.
  int64_t unattributed() const;

 private:
  const char* KindName(ActivityRecord::Kind kind) const;
  // The (run, node) whose external id the correlation id maps to, if any.
  bool Resolve(uint32_t correlation_id, int* run, int* node) const;

  int num_nodes_;
  int runs_;
  std::unordered_map<uint32_t, uint64_t> external_of_;
  std::vector<ActivityRecord> activities_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_KERNEL_ATTRIBUTION_H_
