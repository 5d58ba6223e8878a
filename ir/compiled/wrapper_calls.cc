#include "ir/compiled/wrapper_calls.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace graphprof {
namespace {

// What the wrapper source of PyTorch 2.6 says, as it says it.
constexpr absl::string_view kKernelDefinition = "extern \"C\"";
constexpr absl::string_view kRecordFunction = "RECORD_FUNCTION(\"";
constexpr absl::string_view kRunImpl = "void AOTInductorModel::run_impl(";
constexpr absl::string_view kRunImplEnd = "} // AOTInductorModel::run_impl";
constexpr absl::string_view kShimPrefix = "aoti_torch_cpu_";
constexpr absl::string_view kProxyCall = "aoti_torch_proxy_executor_call_function";
constexpr absl::string_view kSourceNodes = "Source Nodes: [";
constexpr absl::string_view kOriginalAten = "Original ATen: [";

absl::Status Refuse(const std::string& name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", why));
}

bool IsIdentifierChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifier at the start of `text`.
absl::string_view LeadingIdentifier(absl::string_view text) {
  size_t n = 0;
  while (n < text.size() && IsIdentifierChar(text[n])) ++n;
  return text.substr(0, n);
}

// `extern "C" void NAME(` (any spacing): NAME, else "".
absl::string_view DefinedKernel(absl::string_view line) {
  if (!absl::ConsumePrefix(&line, kKernelDefinition)) return "";
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, "void")) return "";
  const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
  if (stripped.size() == line.size()) return "";  // "voidx"
  const absl::string_view name = LeadingIdentifier(stripped);
  return absl::StartsWith(stripped.substr(name.size()), "(") ? name : "";
}

// The items of the bracketed list that starts after `key` in `line`.
std::vector<std::string> ListAfter(absl::string_view line, absl::string_view key) {
  std::vector<std::string> items;
  const size_t at = line.find(key);
  if (at == absl::string_view::npos) return items;
  absl::string_view rest = line.substr(at + key.size());
  rest = rest.substr(0, rest.find(']'));
  for (absl::string_view item : absl::StrSplit(rest, ',', absl::SkipWhitespace())) {
    items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return items;
}

// Whether `line` calls `callee` (not as part of a longer identifier).
bool Calls(absl::string_view line, absl::string_view callee) {
  for (size_t at = line.find(callee); at != absl::string_view::npos; at = line.find(callee, at + 1)) {
    const bool starts = at == 0 || !IsIdentifierChar(line[at - 1]);
    const absl::string_view after = line.substr(at + callee.size());
    if (starts && absl::StartsWith(absl::StripLeadingAsciiWhitespace(after), "(")) return true;
  }
  return false;
}

// The extern call `line` makes, if any: callee and operator name.
bool ExternCall(absl::string_view line, std::string* callee, std::string* op) {
  if (Calls(line, kProxyCall)) {
    *callee = std::string(kProxyCall);
    *op = "custom op (proxy executor)";
    return true;
  }
  for (size_t at = line.find(kShimPrefix); at != absl::string_view::npos; at = line.find(kShimPrefix, at + 1)) {
    if (at > 0 && IsIdentifierChar(line[at - 1])) continue;
    const absl::string_view name = LeadingIdentifier(line.substr(at));
    if (name.size() == kShimPrefix.size() || !Calls(line.substr(at), name)) continue;
    *callee = std::string(name);
    *op = absl::StrCat("aten::", name.substr(kShimPrefix.size()));
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<WrapperCalls> ParseWrapperCalls(absl::string_view source, const std::string& name) {
  const std::vector<absl::string_view> lines = absl::StrSplit(source, '\n');
  // The generated kernels and the scope each records.
  std::map<std::string, std::string> record_names;
  std::set<std::string> kernels;
  int run_impl = -1, run_impl_end = -1;
  std::string current;
  for (size_t i = 0; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripLeadingAsciiWhitespace(lines[i]);
    if (const absl::string_view kernel = DefinedKernel(line); !kernel.empty()) {
      current = std::string(kernel);
      kernels.insert(current);
    } else if (absl::StartsWith(line, kRecordFunction) && !current.empty() && !record_names.count(current)) {
      absl::string_view scope = line.substr(kRecordFunction.size());
      record_names[current] = std::string(scope.substr(0, scope.find('"')));
    } else if (absl::StartsWith(line, kRunImpl) && run_impl < 0) {
      run_impl = static_cast<int>(i);
      current.clear();
    } else if (absl::StartsWith(line, kRunImplEnd) && run_impl >= 0 && run_impl_end < 0) {
      run_impl_end = static_cast<int>(i);
    }
  }
  if (run_impl < 0 || run_impl_end < 0) {
    return Refuse(name, absl::StrCat("not an AOTInductor wrapper source (no ", kRunImpl, "...", kRunImplEnd,
                                     "): garbled, or written by a PyTorch graphprof does not read"));
  }
  WrapperCalls out;
  std::vector<std::string> pending_nodes, pending_aten;
  for (int i = run_impl + 1; i < run_impl_end; ++i) {
    const absl::string_view line = absl::StripLeadingAsciiWhitespace(lines[i]);
    if (absl::StartsWith(line, "//")) {
      if (absl::StrContains(line, kSourceNodes)) {
        pending_nodes = ListAfter(line, kSourceNodes);
        pending_aten = ListAfter(line, kOriginalAten);
      }
      continue;
    }
    CompiledCall call;
    call.line = i + 1;
    if (const absl::string_view called = LeadingIdentifier(line); kernels.count(std::string(called)) &&
                                                                   Calls(line, called)) {
      call.kind = CompiledCall::Kind::kGenerated;
      call.name = call.callee = std::string(called);
      if (auto scope = record_names.find(call.name); scope != record_names.end()) call.record_name = scope->second;
    } else if (ExternCall(line, &call.callee, &call.name)) {
      call.kind = CompiledCall::Kind::kExtern;
      call.nodes = std::move(pending_nodes);
      call.aten = std::move(pending_aten);
      pending_nodes.clear();
      pending_aten.clear();
    } else {
      continue;
    }
    out.calls.push_back(std::move(call));
  }
  if (out.calls.empty()) return Refuse(name, "its AOTInductorModel::run_impl calls no kernel and no operator");
  out.kernel_profile = true;
  bool any_generated = false;
  for (const CompiledCall& call : out.calls) {
    if (call.kind != CompiledCall::Kind::kGenerated) continue;
    any_generated = true;
    if (call.record_name.empty()) out.kernel_profile = false;
  }
  if (!any_generated) out.kernel_profile = false;
  return out;
}

absl::Status ApplyKernelRecord(absl::string_view json_text, const std::string& name, WrapperCalls& calls) {
  using nlohmann::json;
  const json j = json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("format") || j["format"] != 1 || !j.contains("kernels") ||
      !j["kernels"].is_object()) {
    return Refuse(name, "not graphprof's kernel record (a JSON object with \"format\": 1 and \"kernels\")");
  }
  // A kernel may be called more than once (Inductor reuses a kernel whose
  // code is the same); each call computes the nodes the record names.
  std::map<std::string, std::vector<CompiledCall*>> generated;
  for (CompiledCall& call : calls.calls) {
    if (call.kind == CompiledCall::Kind::kGenerated) generated[call.name].push_back(&call);
  }
  auto strings = [](const json& list, std::vector<std::string>* out) {
    if (!list.is_array()) return false;
    for (const json& item : list) {
      if (!item.is_string()) return false;
      out->push_back(item.get<std::string>());
    }
    return true;
  };
  const json& kernels = j["kernels"];
  for (auto it = kernels.begin(); it != kernels.end(); ++it) {
    auto call = generated.find(it.key());
    // A kernel Inductor defined but the wrapper does not call (another
    // graph of the compile, say): nothing to name.
    if (call == generated.end()) continue;
    std::vector<std::string> nodes, aten;
    if (!it.value().is_object() || !strings(it.value().value("nodes", json::array()), &nodes) ||
        !strings(it.value().value("aten", json::array()), &aten)) {
      return Refuse(name, absl::StrCat("kernel '", it.key(), "': \"nodes\" and \"aten\" must be lists of strings"));
    }
    for (CompiledCall* each : call->second) {
      each->nodes = nodes;
      each->aten = aten;
    }
  }
  calls.kernel_nodes = true;
  for (const auto& [kernel, each] : generated) {
    if (each.front()->nodes.empty()) calls.kernel_nodes = false;
  }
  return absl::OkStatus();
}

}  // namespace graphprof
