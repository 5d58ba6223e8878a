#include "ir/identify_node.h"

#include <torch/csrc/jit/ir/scope.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace graphprof {
namespace {

namespace jit = torch::jit;

std::string ShortPath(absl::string_view file) {
  for (absl::string_view marker : {"site-packages/", "dist-packages/"}) {
    const size_t at = file.rfind(marker);
    if (at != absl::string_view::npos) return std::string(file.substr(at + marker.size()));
  }
  return std::string(file);
}

// PyTorch's own Python code (torch/nn/functional.py, torch/nn/modules/...).
bool IsTorchCode(absl::string_view file) {
  return absl::StrContains(file, "/torch/") || absl::StartsWith(file, "torch/");
}

struct FileLine {
  std::string file;
  size_t line = 0;
};

c10::optional<FileLine> OriginalFileLine(const jit::SourceRange& range) {
  if (!range.source()) return c10::nullopt;
  c10::optional<jit::SourceRange> original = range.findSourceRangeThatGenerated();
  if (!original.has_value() || !original->source()) return c10::nullopt;
  c10::optional<std::tuple<std::string, size_t, size_t>> flc = original->file_line_col();
  if (!flc.has_value() || std::get<0>(*flc).empty()) return c10::nullopt;
  return FileLine{std::get<0>(*flc), std::get<1>(*flc)};
}

// A traced node's original source is the Python stack recorded at trace
// time, one "file(line): function" per line, innermost first.
c10::optional<FileLine> FirstUserFrameOfTrace(const jit::SourceRange& range) {
  c10::optional<jit::SourceRange> original = range.findSourceRangeThatGenerated();
  if (!original.has_value() || !original->source()) return c10::nullopt;
  const std::string text = original->source()->text_str().str();
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t open = line.rfind("):");
    if (open == absl::string_view::npos) continue;
    const size_t paren = line.rfind('(', open);
    if (paren == absl::string_view::npos) continue;
    size_t number = 0;
    if (!absl::SimpleAtoi(line.substr(paren + 1, open - paren - 1), &number)) continue;
    const absl::string_view file = line.substr(0, paren);
    if (!absl::EndsWith(file, ".py") || absl::StrContains(file, " ")) continue;  // not a stack line
    if (!IsTorchCode(file)) return FileLine{std::string(file), number};
  }
  return c10::nullopt;
}

}  // namespace

// A qualified name without the segments Module::clone and freezing add to
// class names (__torch__.___torch_mangle_3.Net -> __torch__.Net): a node of
// a cloned module names the code the user wrote, and the copies --ab
// profiles (before_after.h) name it alike.
std::string Demangled(absl::string_view name) {
  constexpr absl::string_view kMangle = "___torch_mangle_";
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t found = name.find(kMangle, at);
    if (found == absl::string_view::npos) break;
    size_t end = found + kMangle.size();
    while (end < name.size() && absl::ascii_isdigit(name[end])) ++end;
    if (end == found + kMangle.size() || end >= name.size() || name[end] != '.') {
      out.append(name.data() + at, end - at);  // not a mangle segment: kept
      at = end;
      continue;
    }
    out.append(name.data() + at, found - at);
    at = end + 1;  // the segment and its dot
  }
  out.append(name.data() + at, name.size() - at);
  return out;
}

std::string CodeSource(const torch::jit::Node& node) {
  const jit::SourceRange& range = node.sourceRange();
  if (!range.source()) return "";
  c10::optional<std::tuple<std::string, size_t, size_t>> flc = range.file_line_col();
  if (!flc.has_value()) return "";
  const std::string& file = std::get<0>(*flc);
  const size_t line = std::get<1>(*flc);
  if (!file.empty() && file != "<string>") return absl::StrCat(ShortPath(file), ":", line);
  // Source given as a string (Module::define): name the function instead.
  c10::optional<jit::InlinedCallStackPtr> stack = node.callstack();
  if (stack.has_value()) {
    std::vector<jit::InlinedCallStackEntry> entries = (*stack)->vec();
    if (!entries.empty() && std::get<0>(entries.back()) != nullptr) {
      return absl::StrCat(Demangled(std::get<0>(entries.back())->qualname().qualifiedName()), ":", line);
    }
  }
  return absl::StrCat("line ", line);
}

std::string UserSource(const torch::jit::Node& node) {
  c10::optional<FileLine> own = OriginalFileLine(node.sourceRange());
  if (!own.has_value()) return CodeSource(node);
  if (!IsTorchCode(own->file)) return absl::StrCat(ShortPath(own->file), ":", own->line);
  if (c10::optional<FileLine> traced = FirstUserFrameOfTrace(node.sourceRange())) {
    return absl::StrCat(ShortPath(traced->file), ":", traced->line);
  }
  c10::optional<jit::InlinedCallStackPtr> stack = node.callstack();
  if (stack.has_value()) {
    std::vector<jit::InlinedCallStackEntry> frames = (*stack)->vec();
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {  // innermost call site first
      c10::optional<FileLine> site = OriginalFileLine(std::get<1>(*it));
      if (site.has_value() && !IsTorchCode(site->file)) return absl::StrCat(ShortPath(site->file), ":", site->line);
    }
  }
  return absl::StrCat(ShortPath(own->file), ":", own->line);
}

NodeIdentity IdentifyNode(const torch::jit::Node& node, const ModulePaths* paths, SchemaTexts* schemas) {
  NodeIdentity identity;
  identity.kind = node.kind().toQualString();
  if (const jit::Operator* op = node.maybeOperator()) {
    if (schemas == nullptr) {
      identity.schema = c10::toString(op->schema());
    } else {
      auto [it, inserted] = schemas->try_emplace(op);
      if (inserted) it->second = c10::toString(op->schema());
      identity.schema = it->second;
    }
  }
  identity.module = paths != nullptr ? paths->PathOf(node) : ModulePaths::FromCallStack(node);
  identity.source = UserSource(node);
  std::string code = CodeSource(node);
  if (code != identity.source) identity.archive_source = std::move(code);
  const std::string short_kind = node.kind().toUnqualString();
  identity.label = identity.module.empty() ? short_kind : absl::StrCat(identity.module, "/", short_kind);
  return identity;
}

}  // namespace graphprof
