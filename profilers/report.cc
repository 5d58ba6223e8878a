#include "profilers/report.h"

#include <algorithm>

namespace graphprof {

void Report::Finalize() {
  for (NodeRecord& node : nodes) node.self_ns = node.total_ns;
  for (const NodeRecord& node : nodes) {
    const int parent = node.identity.parent;
    if (parent < 0 || parent >= static_cast<int>(nodes.size())) continue;
    std::vector<int64_t>& self = nodes[parent].self_ns;
    for (size_t r = 0; r < self.size() && r < node.total_ns.size(); ++r) self[r] -= node.total_ns[r];
  }
  // Clock jitter can leave a parent a few ns short of its children.
  for (NodeRecord& node : nodes) {
    for (int64_t& v : node.self_ns) v = std::max<int64_t>(v, 0);
  }
}

bool Report::has_device_time() const {
  for (const NodeRecord& node : nodes) {
    if (!node.device_ns.empty()) return true;
  }
  return false;
}

bool Report::has_kernels() const {
  for (const NodeRecord& node : nodes) {
    if (node.kernels.has_value()) return true;
  }
  return false;
}

double Report::total_us() const {
  if (run_ns.empty()) return 0;
  double sum = 0;
  for (int64_t v : run_ns) sum += static_cast<double>(v);
  return sum / static_cast<double>(run_ns.size()) / 1e3;
}

double Report::PercentOfRun(double ns) const {
  const double mean_run_ns = total_us() * 1e3;
  return mean_run_ns > 0 ? 100.0 * ns / mean_run_ns : 0;
}

double Report::coverage() const {
  if (run_ns.empty()) return 0;
  double sum = 0;
  for (size_t r = 0; r < run_ns.size(); ++r) {
    double top_level = 0;
    for (const NodeRecord& node : nodes) {
      if (node.identity.parent < 0 && r < node.total_ns.size()) top_level += static_cast<double>(node.total_ns[r]);
    }
    sum += run_ns[r] > 0 ? top_level / static_cast<double>(run_ns[r]) : 0;
  }
  return sum / static_cast<double>(run_ns.size());
}

}  // namespace graphprof
