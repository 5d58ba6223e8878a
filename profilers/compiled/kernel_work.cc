#include "profilers/compiled/kernel_work.h"

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "profilers/profiler.h"

namespace graphprof {

std::string ProgramNodeName(const NodeIdentity& identity) {
  const std::string& label = identity.label;
  if (!identity.module.empty() && absl::StartsWith(label, identity.module + "/")) {
    return label.substr(identity.module.size() + 1);
  }
  return label;
}

double AddKernelWork(const Report& eager, const CompiledPlan& plan, Report& compiled) {
  DeclareWork(compiled);
  const int flops = compiled.FindQuantity("flops");
  const int bytes = compiled.FindQuantity("bytes");
  const int eager_flops = eager.FindQuantity("flops");
  const int eager_bytes = eager.FindQuantity("bytes");
  struct Work {
    double flops = 0;
    double bytes = 0;
  };
  std::map<std::string, Work> work;  // by program node name
  double total_flops = 0;
  for (const NodeRecord& node : eager.nodes) {
    Work& w = work[ProgramNodeName(node.identity)];
    w.flops += eager.QuantityOf(node, eager_flops);
    w.bytes += eager.QuantityOf(node, eager_bytes);
    total_flops += eager.QuantityOf(node, eager_flops);
  }
  std::set<std::string> counted;
  double named_flops = 0;
  for (size_t r = 0; r < plan.rows().size() && r < compiled.nodes.size(); ++r) {
    NodeRecord& row = compiled.nodes[r];
    for (const std::string& node : plan.rows()[r].nodes) {
      auto found = work.find(node);
      if (found == work.end() || !counted.insert(node).second) continue;
      row.quantities[flops] += found->second.flops;
      row.quantities[bytes] += found->second.bytes;
      named_flops += found->second.flops;
    }
  }
  compiled.Finalize();
  return total_flops > 0 ? (total_flops - named_flops) / total_flops : 0;
}

}  // namespace graphprof
