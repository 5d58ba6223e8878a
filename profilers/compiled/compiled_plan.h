// CompiledPlan: how a compiled model's run is cut into the rows of its
// report, planned once from the calls its wrapper makes
// (ir/compiled/wrapper_calls.h) and the program's nodes; then, per run,
// Attribute() turns the scopes the run recorded (scope_recorder.h) into
// each row's time.
//
// Rows, in call order:
//   * one per generated-kernel call: its time is its RecordFunction scope's
//     (the kernel's body, its parallel region included, and the scope's own
//     entry and exit);
//   * one per stretch of extern calls between two generated kernels (one
//     extern call, or several in a row: "aten::convolution +
//     aten::addmm_out"): its time is the stretch from the end of the
//     kernel before to the start of the kernel after (the run's start or
//     end at the ends). The C shim calls ATen kernels without a
//     RecordFunction scope of their own, so an extern call is timed by what
//     surrounds it: the stretch also holds the wrapper's code there
//     (allocating the extern's output, views), which is small beside an
//     extern's matrix product or convolution.
// What is left, stretches between kernels without an extern call (the
// wrapper allocating, freeing, reinterpreting), is the wrapper's own time:
// Attribute returns it; a report shows it as the run time outside the rows
// (1 - coverage). The rows' share of the run is high by construction (every
// stretch holding an extern call is a row): it says how much of the run is
// kernels and extern stretches, not that the time is inside the calls.
//
// A row's module is the deepest module holding all its nodes (a rule, no
// model of how a fused kernel's time splits among them), its source the
// first of its nodes with one; for a stretch of extern calls naming a
// convolution or matrix product, those nodes only (Inductor's comment on an
// extern call also names the nodes whose outputs it reads). Nodes the
// program does not have (Inductor's own, from its decompositions) are
// listed and not located. A row whose nodes lie in several modules lists
// them in identity.fused_modules (a diff pairs a module's nodes with the
// kernel that computes them, and compares such a module only at the row's
// module: report_diff.h); a generated kernel leaves out the modules of
// convolutions and matrix products an extern call computes (it packs their
// weights), though its own module still holds them.
#ifndef GRAPHPROF_PROFILERS_COMPILED_COMPILED_PLAN_H_
#define GRAPHPROF_PROFILERS_COMPILED_COMPILED_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/compiled/wrapper_calls.h"
#include "ir/ir_line.h"
#include "ir/node_identity.h"
#include "profilers/compiled/scope_recorder.h"

namespace graphprof {

// Where a program's node is: its module and source (PreparedGraph::origins'),
// and its kind ("aten::conv2d").
struct NodePlace {
  std::string module;
  std::string source;
  std::string kind;
};

// Whether a node of kind `kind` ("aten::conv2d") is a convolution or a
// matrix product (conv*, linear, mm, bmm, addmm, matmul, baddbmm, scaled
// dot product attention, mkldnn's): what Inductor calls as extern kernels
// on the CPU.
bool IsExternKind(const std::string& kind);

struct CompiledRow {
  NodeIdentity identity;            // kind "inductor::cpp_fused_relu_0" or "aten::convolution"
  std::vector<int> calls;           // indices into the wrapper's calls
  std::vector<std::string> nodes;   // the program's nodes it computes
  bool generated = false;
  std::string record_name;          // generated: its scope's name
};

class CompiledPlan {
 public:
  // `places`: the program's nodes by name (empty: nothing is located).
  // FailedPrecondition when the wrapper's generated kernels record no
  // scope (compiled without kernel profiling): nothing could be timed
  // apart from the whole run.
  static absl::StatusOr<CompiledPlan> Build(const WrapperCalls& calls, const std::map<std::string, NodePlace>& places);

  const std::vector<CompiledRow>& rows() const { return rows_; }
  // The report's IR: one line per row, the wrapper's call(s) as written.
  const std::vector<IrLine>& ir() const { return ir_; }
  // The scope names of its generated kernels: what its ScopeRecorder
  // records by index (RecordedScope::name).
  const std::vector<std::string>& kernel_scopes() const { return kernel_scopes_; }

  // One run's time per row (`row_ns`, sized rows(), summed into) and the
  // wrapper's own (`unattributed_ns`), from the scopes it recorded between
  // `start_ns` and `end_ns`. InvalidArgument when the scopes are not the
  // wrapper's kernels in its order (a run_impl with control flow).
  // `spans` (optional, cleared first; reserve rows() to keep it from
  // allocating) receives each row's stretches of the run as they came:
  // row, start and duration (steady clock).
  struct Span {
    int row;
    int64_t start_ns;
    int64_t duration_ns;
  };
  absl::Status Attribute(const std::vector<RecordedScope>& scopes, int64_t start_ns, int64_t end_ns,
                         std::vector<int64_t>& row_ns, int64_t& unattributed_ns,
                         std::vector<Span>* spans = nullptr) const;

 private:
  std::vector<CompiledRow> rows_;
  std::vector<IrLine> ir_;
  // Per generated kernel, in call order: its row. Per gap between them
  // (kernels + 1 gaps: before the first, between, after the last): the
  // extern row that owns it, or -1 (the wrapper's own time).
  std::vector<int> kernel_rows_;
  std::vector<int> kernel_scope_of_;  // per generated kernel call: its index in kernel_scopes_
  std::vector<std::string> kernel_scopes_;
  std::vector<int> gap_rows_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COMPILED_COMPILED_PLAN_H_
