#include "profilers/compiled/compiled_plan.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/module_path.h"

namespace graphprof {
namespace {

constexpr char kGeneratedKind[] = "inductor::";

// What the IR line of a row says after its call(s): the nodes and ATen
// operators it computes.
std::string Computes(const CompiledRow& row, const WrapperCalls& calls) {
  std::vector<std::string> aten;
  for (int i : row.calls) aten.insert(aten.end(), calls.calls[i].aten.begin(), calls.calls[i].aten.end());
  if (row.nodes.empty()) return "  # nodes: unknown";
  return absl::StrCat("  # nodes: ", absl::StrJoin(row.nodes, ", "),
                      aten.empty() ? "" : absl::StrCat(" (", absl::StrJoin(aten, ", "), ")"));
}

// Whether `row` is a stretch of extern calls naming `node`, a convolution or
// matrix product (what the extern call computes, not what it reads).
bool NamesExternNode(const CompiledRow& row, const std::string& node, const std::map<std::string, NodePlace>& places) {
  if (row.generated) return false;
  auto place = places.find(node);
  return place != places.end() && IsExternKind(place->second.kind);
}

// `extern_named`: the convolution and matrix-product nodes an extern call
// names (a generated kernel naming one too only packs its weight or fuses
// its epilogue: its module is not the kernel's).
void Locate(CompiledRow& row, const std::map<std::string, NodePlace>& places, const std::set<std::string>& extern_named) {
  // An extern stretch naming convolutions or matrix products: those nodes.
  bool heavy_only = false;
  for (const std::string& node : row.nodes) heavy_only |= NamesExternNode(row, node, places);
  std::vector<std::string> modules, fused;
  for (const std::string& node : row.nodes) {
    auto place = places.find(node);
    if (place == places.end() || (heavy_only && !IsExternKind(place->second.kind))) continue;
    modules.push_back(place->second.module);
    if (row.identity.source.empty()) row.identity.source = place->second.source;
    if (!(row.generated && extern_named.count(node))) fused.push_back(place->second.module);
  }
  row.identity.module = DeepestCommonModule(modules);
  std::vector<std::string> distinct;
  for (const std::string& module : fused) {
    if (std::find(distinct.begin(), distinct.end(), module) == distinct.end()) distinct.push_back(module);
  }
  if (distinct.size() > 1) row.identity.fused_modules = std::move(distinct);
  const std::string& kind = row.identity.kind;
  const size_t colon = kind.find("::");
  const std::string short_kind = colon == std::string::npos ? kind : kind.substr(colon + 2);
  row.identity.label = row.identity.module.empty() ? short_kind : absl::StrCat(row.identity.module, "/", short_kind);
}

}  // namespace

bool IsExternKind(const std::string& kind) {
  static const char* const kPrefixes[] = {"aten::conv", "aten::_conv", "aten::linear", "aten::mm", "aten::bmm",
                                          "aten::addmm", "aten::matmul", "aten::baddbmm", "aten::addbmm",
                                          "aten::scaled_dot_product", "aten::_scaled_dot_product", "aten::mkldnn_"};
  for (const char* prefix : kPrefixes) {
    if (absl::StartsWith(kind, prefix)) return true;
  }
  return false;
}

absl::StatusOr<CompiledPlan> CompiledPlan::Build(const WrapperCalls& calls,
                                                 const std::map<std::string, NodePlace>& places) {
  if (!calls.kernel_profile) {
    return absl::FailedPreconditionError(
        "its generated kernels record no RecordFunction scope (compiled without "
        "torch._inductor.config.cpp.enable_kernel_profile): compile it with graphprof.compile_aoti");
  }
  CompiledPlan plan;
  int gap = 0;          // generated kernels called so far
  int gap_row = -1;     // the extern row of the current gap
  plan.gap_rows_.push_back(-1);
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    const CompiledCall& call = calls.calls[i];
    if (call.kind == CompiledCall::Kind::kGenerated) {
      CompiledRow row;
      row.generated = true;
      row.record_name = call.record_name;
      row.identity.kind = absl::StrCat(kGeneratedKind, call.name);
      plan.kernel_rows_.push_back(static_cast<int>(plan.rows_.size()));
      auto known = std::find(plan.kernel_scopes_.begin(), plan.kernel_scopes_.end(), call.record_name);
      plan.kernel_scope_of_.push_back(static_cast<int>(known - plan.kernel_scopes_.begin()));
      if (known == plan.kernel_scopes_.end()) plan.kernel_scopes_.push_back(call.record_name);
      row.calls.push_back(static_cast<int>(i));
      row.nodes = call.nodes;
      plan.rows_.push_back(std::move(row));
      ++gap;
      gap_row = -1;
      plan.gap_rows_.push_back(-1);
      continue;
    }
    if (gap_row < 0) {
      gap_row = static_cast<int>(plan.rows_.size());
      plan.gap_rows_[gap] = gap_row;
      plan.rows_.emplace_back();
    }
    CompiledRow& row = plan.rows_[gap_row];
    row.identity.kind = row.identity.kind.empty() ? call.name : absl::StrCat(row.identity.kind, " + ", call.name);
    row.calls.push_back(static_cast<int>(i));
    for (const std::string& node : call.nodes) {
      if (std::find(row.nodes.begin(), row.nodes.end(), node) == row.nodes.end()) row.nodes.push_back(node);
    }
  }
  std::set<std::string> extern_named;
  for (const CompiledRow& row : plan.rows_) {
    for (const std::string& node : row.nodes) {
      if (NamesExternNode(row, node, places)) extern_named.insert(node);
    }
  }
  for (size_t r = 0; r < plan.rows_.size(); ++r) {
    CompiledRow& row = plan.rows_[r];
    row.identity.id = static_cast<int>(r);
    Locate(row, places, extern_named);
    for (size_t k = 0; k < row.calls.size(); ++k) {
      const CompiledCall& call = calls.calls[row.calls[k]];
      row.identity.archive_source = absl::StrCat(row.identity.archive_source, k ? ", " : "", "wrapper:", call.line);
      plan.ir_.push_back(IrLine{absl::StrCat("  ", call.callee, "(...)", k + 1 == row.calls.size() ? Computes(row, calls) : ""),
                                static_cast<int>(r)});
    }
  }
  return plan;
}

absl::Status CompiledPlan::Attribute(const std::vector<RecordedScope>& scopes, int64_t start_ns, int64_t end_ns,
                                     std::vector<int64_t>& row_ns, int64_t& unattributed_ns,
                                     std::vector<Span>* spans) const {
  size_t k = 0;
  int64_t previous_end = start_ns;
  if (spans != nullptr) spans->clear();
  auto charge = [&](int row, int64_t from, int64_t ns) {
    row_ns[row] += ns;
    if (spans != nullptr) spans->push_back(Span{row, from, ns});
  };
  auto charge_gap = [&](size_t gap, int64_t ns) {
    if (gap_rows_[gap] >= 0) {
      charge(gap_rows_[gap], previous_end, ns);
    } else {
      unattributed_ns += ns;
    }
  };
  for (const RecordedScope& scope : scopes) {
    // Another name: an ATen operator an extern call reached through the
    // dispatcher, inside its gap, which times it.
    if (scope.name < 0) continue;
    if (k >= kernel_rows_.size() || scope.name != kernel_scope_of_[k]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the compiled model ran kernel ", kernel_scopes_[scope.name], " where its wrapper calls ",
          k < kernel_rows_.size() ? kernel_scopes_[kernel_scope_of_[k]] : std::string("no more kernels"),
          " (a run_impl with control flow?): graphprof attributes wrappers that call their kernels in one order"));
    }
    charge_gap(k, scope.start_ns - previous_end);
    charge(kernel_rows_[k], scope.start_ns, scope.end_ns - scope.start_ns);
    previous_end = scope.end_ns;
    ++k;
  }
  if (k != kernel_rows_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the compiled model ran ", k, " of the ", kernel_rows_.size(),
                                                   " kernels its wrapper calls (a run_impl with control flow?)"));
  }
  charge_gap(k, end_ns - previous_end);
  return absl::OkStatus();
}

}  // namespace graphprof
