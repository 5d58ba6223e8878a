// The calls an AOTInductor model makes, read from its package's wrapper
// source (PyTorch 2.6's C++ wrapper, data/aotinductor/<model>/<hash>.cpp),
// without LibTorch:
//
//   * generated kernels: each defined as `extern "C" void cpp_fused_..._N(`,
//     with `RECORD_FUNCTION("graph_0_cpp_fused_..._N", ...)` as its first
//     statement when compiled with cpp.enable_kernel_profile, and called by
//     name in AOTInductorModel::run_impl;
//   * extern calls: ATen operators through the C shim
//     (`aoti_torch_cpu_convolution(...)`, `aoti_torch_cpu_addmm_out(...)`),
//     and custom operators through the proxy executor
//     (`aoti_torch_proxy_executor_call_function`), each after Inductor's
//     comment `// Topologically Sorted Source Nodes: [conv2d], Original
//     ATen: [aten.convolution]`, which names the program's nodes it computes.
//
// PyTorch 2.6 writes no such comment for its generated CPU kernels: their
// nodes come from graphprof.compile_aoti's record (kernels.json, read by
// ApplyKernelRecord) where the package has one.
//
// Refused in one InvalidArgument line naming the source: no run_impl, or a
// run_impl that calls nothing.
#ifndef GRAPHPROF_IR_COMPILED_WRAPPER_CALLS_H_
#define GRAPHPROF_IR_COMPILED_WRAPPER_CALLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

struct CompiledCall {
  enum class Kind { kGenerated, kExtern };
  Kind kind = Kind::kGenerated;
  // "cpp_fused_relu_0"; an extern call's operator as the shim names it
  // ("aten::addmm_out"), or "custom op (proxy executor)".
  std::string name;
  std::string callee;               // as called: "cpp_fused_relu_0", "aoti_torch_cpu_addmm_out"
  std::string record_name;          // generated, with kernel profiling: its scope's name ("graph_0_cpp_fused_relu_0")
  std::vector<std::string> nodes;   // the program's nodes it computes ("conv2d"); empty when unknown
  std::vector<std::string> aten;    // the ATen operators behind them ("aten.convolution")
  int line = 0;                     // of the call, 1-based, in the wrapper source
};

struct WrapperCalls {
  std::vector<CompiledCall> calls;  // as run_impl makes them, in source order
  // Every generated kernel records a scope (cpp.enable_kernel_profile).
  bool kernel_profile = false;
  // Generated kernels whose nodes are known (kernels.json applied).
  bool kernel_nodes = false;
};

// The calls of `source` (a wrapper's text); `name` names it in errors.
absl::StatusOr<WrapperCalls> ParseWrapperCalls(absl::string_view source, const std::string& name);

// Gives the generated kernels of `calls` their nodes and ATen operators
// from graphprof.compile_aoti's record (JSON: {"format": 1, "kernels":
// {"<kernel>": {"nodes": [...], "aten": [...]}}}). InvalidArgument naming
// `name` when it is not that, (kernels it names that the wrapper does not call are ignored).
absl::Status ApplyKernelRecord(absl::string_view json, const std::string& name, WrapperCalls& calls);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_COMPILED_WRAPPER_CALLS_H_
