#include "profilers/compiled/kernel_work.h"

#include <map>

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
    bool extern_kind = false;
  };
  std::map<std::string, Work> work;  // by program node name
  std::map<std::string, std::string> shapes;  // its input shapes, by program node name
  double total_flops = 0;
  for (const NodeRecord& node : eager.nodes) {
    if (!node.input_shapes.empty()) shapes.emplace(ProgramNodeName(node.identity), node.input_shapes);
    Work& w = work[ProgramNodeName(node.identity)];
    w.flops += eager.QuantityOf(node, eager_flops);
    w.bytes += eager.QuantityOf(node, eager_bytes);
    w.extern_kind |= IsExternKind(node.identity.kind);
    total_flops += eager.QuantityOf(node, eager_flops);
  }
  // Each named node's row, as the header says.
  const std::vector<CompiledRow>& rows = plan.rows();
  std::map<std::string, int> owner;
  auto claim = [&](bool wanted(const CompiledRow&, const Work&)) {
    for (size_t r = 0; r < rows.size() && r < compiled.nodes.size(); ++r) {
      for (const std::string& node : rows[r].nodes) {
        auto found = work.find(node);
        if (found != work.end() && !owner.count(node) && wanted(rows[r], found->second)) owner[node] = r;
      }
    }
  };
  claim([](const CompiledRow& row, const Work& w) { return w.extern_kind && !row.generated; });
  claim([](const CompiledRow& row, const Work& w) { return !w.extern_kind && row.generated; });
  claim([](const CompiledRow&, const Work&) { return true; });
  double named_flops = 0;
  for (const auto& [node, row] : owner) {
    const Work& w = work[node];
    compiled.nodes[row].quantities[flops] += w.flops;
    compiled.nodes[row].quantities[bytes] += w.bytes;
    named_flops += w.flops;
  }
  // Input shapes: those of the node with the most FLOPs whose work the row
  // has, else of its first node with shapes.
  for (size_t r = 0; r < rows.size() && r < compiled.nodes.size(); ++r) {
    const std::string* best = nullptr;
    double best_flops = -1;
    for (const std::string& node : rows[r].nodes) {
      auto found = shapes.find(node);
      if (found == shapes.end()) continue;
      auto owned = owner.find(node);
      const double f = owned != owner.end() && owned->second == static_cast<int>(r) ? work[node].flops : -0.5;
      if (best == nullptr || f > best_flops) best = &found->second, best_flops = f;
    }
    if (best != nullptr) compiled.nodes[r].input_shapes = *best;
  }
  compiled.Finalize();
  return total_flops > 0 ? (total_flops - named_flops) / total_flops : 0;
}

}  // namespace graphprof
