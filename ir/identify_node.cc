#include "ir/identify_node.h"

#include <torch/csrc/jit/ir/scope.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphprof {

std::string ModulePath(const torch::jit::Node& node) {
  c10::optional<torch::jit::InlinedCallStackPtr> stack = node.callstack();
  if (!stack.has_value()) return "";
  std::vector<std::string> parts;
  for (const torch::jit::InlinedCallStackEntry& entry : (*stack)->vec()) {
    const c10::optional<torch::jit::ModuleInstanceInfo>& instance = std::get<2>(entry);
    if (!instance.has_value()) continue;  // a call to a free function
    const std::string& name = instance->instance_name();
    // Calls to the module's own methods (self._forward_impl) add no level.
    if (name.empty() || name == "self") continue;
    parts.push_back(name);
  }
  return absl::StrJoin(parts, ".");
}

std::string SourceLocation(const torch::jit::Node& node) {
  const torch::jit::SourceRange& range = node.sourceRange();
  if (!range.source()) return "";
  c10::optional<std::tuple<std::string, size_t, size_t>> file_line_col = range.file_line_col();
  if (!file_line_col.has_value()) return "";
  const std::string& file = std::get<0>(*file_line_col);
  const size_t line = std::get<1>(*file_line_col);
  if (!file.empty() && file != "<string>") return absl::StrCat(file, ":", line);
  // Source given as a string (Module::define): name the function instead.
  c10::optional<torch::jit::InlinedCallStackPtr> stack = node.callstack();
  if (stack.has_value()) {
    std::vector<torch::jit::InlinedCallStackEntry> entries = (*stack)->vec();
    if (!entries.empty() && std::get<0>(entries.back()) != nullptr) {
      return absl::StrCat(std::get<0>(entries.back())->qualname().qualifiedName(), ":", line);
    }
  }
  return absl::StrCat("line ", line);
}

NodeIdentity IdentifyNode(const torch::jit::Node& node) {
  NodeIdentity identity;
  identity.kind = node.kind().toQualString();
  if (const torch::jit::Operator* op = node.maybeOperator()) {
    identity.schema = c10::toString(op->schema());
  }
  identity.module = ModulePath(node);
  identity.source = SourceLocation(node);
  const std::string short_kind = node.kind().toUnqualString();
  identity.label = identity.module.empty() ? short_kind : absl::StrCat(identity.module, "/", short_kind);
  return identity;
}

}  // namespace graphprof
