#include "ir/passes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <torch/csrc/jit/passes/common_subexpression_elimination.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/fold_conv_bn.h>
#include <torch/csrc/jit/passes/frozen_concat_linear.h>
#include <torch/csrc/jit/passes/frozen_conv_add_relu_fusion.h>
#include <torch/csrc/jit/passes/frozen_conv_folding.h>
#include <torch/csrc/jit/passes/frozen_linear_transpose.h>
#include <torch/csrc/jit/passes/frozen_ops_to_mkldnn.h>
#include <torch/csrc/jit/passes/fuse_linear.h>
#include <torch/csrc/jit/passes/fuse_relu.h>
#include <torch/csrc/jit/passes/peephole.h>
#include <torch/csrc/jit/passes/remove_dropout.h>

#include <map>
#include <tuple>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "common/status_util.h"
#include "ir/delay_pass.h"
#include "ir/inliner.h"
#include "ir/module_paths.h"

namespace graphprof {
namespace {

namespace jit = torch::jit;
using GraphFn = std::function<void(std::shared_ptr<jit::Graph>&)>;

// Freezing removes the `training` attribute (torch.jit.optimize_for_inference tests the same).
bool IsFrozen(const jit::Module& module) { return !module.hasattr("training"); }

std::shared_ptr<jit::Graph> GraphOf(jit::Module& module, const std::string& method) {
  return module.get_method(method).graph();
}

absl::Status Freeze(jit::Module& module, const std::string& method) {
  if (IsFrozen(module)) return absl::OkStatus();  // already frozen
  if (module.is_training()) {
    return absl::FailedPreconditionError("freezing needs a module in eval mode (call .eval() before saving)");
  }
  c10::optional<std::vector<std::string>> preserved;
  if (method != "forward") preserved = std::vector<std::string>{method};
  module = jit::freeze(module, preserved, /*optimize_numerics=*/true);
  return absl::OkStatus();
}

// --- Keeping node metadata through passes that drop it. ---

// What identifies a node across a pass: kind, module frames and source offset.
using Signature = std::tuple<std::string, std::string, size_t>;

Signature SignatureOf(const jit::Node* node) {
  return {node->kind().toQualString(), ModulePaths::FromCallStack(*node), node->sourceRange().start()};
}

void Collect(jit::Block* block, std::vector<jit::Node*>& out) {
  for (jit::Node* node : block->nodes()) {
    out.push_back(node);
    for (jit::Block* sub : node->blocks()) Collect(sub, out);
  }
}

bool HasMetadata(const jit::Node* node) { return node->callstack().has_value(); }

// The node kinds LibTorch's MKLDNN conversion and linear transpose create,
// and the kind each replaces.
const std::map<std::string, std::string>& ReplacedKinds() {
  static const auto* kinds = new std::map<std::string, std::string>{
      {"prim::MKLDNNHardTanh", "aten::hardtanh"},       {"prim::MKLDNNHardTanh_", "aten::hardtanh_"},
      {"prim::MKLDNNHardSwish", "aten::hardswish"},     {"prim::MKLDNNHardSwish_", "aten::hardswish_"},
      {"prim::MKLDNNHardSigmoid", "aten::hardsigmoid"}, {"prim::MKLDNNHardSigmoid_", "aten::hardsigmoid_"},
      {"prim::MKLDNNLayerNorm", "aten::layer_norm"},    {"prim::mkldnn_convolution", "aten::conv2d"},
      {"aten::matmul", "aten::linear"},
  };
  return *kinds;
}

// Runs `fn` on the graph, then gives the nodes it created without metadata
// that of the node they replaced (same kind family, in order), else that of
// a neighbour in the data flow (consumer first).
void RunKeepingMetadata(std::shared_ptr<jit::Graph>& graph, const GraphFn& fn) {
  std::shared_ptr<jit::Graph> before = graph->copy();
  fn(graph);
  std::vector<jit::Node*> old_nodes, new_nodes;
  Collect(before->block(), old_nodes);
  Collect(graph->block(), new_nodes);
  std::map<Signature, int> survivors;
  for (jit::Node* node : new_nodes) ++survivors[SignatureOf(node)];
  std::map<Signature, int> old_counts;
  for (jit::Node* node : old_nodes) ++old_counts[SignatureOf(node)];
  // Old nodes gone after the pass, by kind, in order.
  std::map<std::string, std::vector<jit::Node*>> gone;
  std::map<Signature, int> seen;
  for (jit::Node* node : old_nodes) {
    const Signature s = SignatureOf(node);
    if (++seen[s] > survivors[s]) gone[node->kind().toQualString()].push_back(node);
  }
  // New nodes: more of their signature than before, and no metadata.
  std::vector<jit::Node*> created;
  std::map<Signature, int> counted;
  for (jit::Node* node : new_nodes) {
    const Signature s = SignatureOf(node);
    if (++counted[s] > old_counts[s] && !HasMetadata(node) && node->kind() != jit::prim::Constant) {
      created.push_back(node);
    }
  }
  std::map<std::string, size_t> next;
  std::vector<jit::Node*> unresolved;
  for (jit::Node* node : created) {
    auto replaced = ReplacedKinds().find(node->kind().toQualString());
    if (replaced != ReplacedKinds().end()) {
      std::vector<jit::Node*>& candidates = gone[replaced->second];
      size_t& k = next[replaced->second];
      if (k < candidates.size()) {
        node->copyMetadata(candidates[k++]);
        continue;
      }
    }
    unresolved.push_back(node);
  }
  for (jit::Node* node : unresolved) {
    const jit::Node* donor = nullptr;
    for (const jit::Value* out : node->outputs()) {
      for (const jit::Use& use : out->uses()) {
        if (donor == nullptr && HasMetadata(use.user)) donor = use.user;
      }
    }
    for (const jit::Value* in : node->inputs()) {
      if (donor == nullptr && HasMetadata(in->node())) donor = in->node();
    }
    if (donor != nullptr) node->copyMetadata(const_cast<jit::Node*>(donor));
  }
}

// --- Pass definitions. ---

// `changes_parameters`: declared with the pass (Pass::changes_parameters).
Pass ModulePass(std::string name, std::string description,
                std::function<absl::Status(jit::Module&, const std::string&)> apply, bool changes_parameters) {
  return Pass{std::move(name), std::move(description), std::move(apply), changes_parameters};
}

// Whether MKLDNN tensors work in this process, probed once in a child
// process: LibTorch 2.6 with Debian 13's oneDNN 3.7 dies with SIGFPE
// (integer divide by zero in mkldnn_add_out) on some virtual machines, so
// a graph converted to MKLDNN would kill graphprof instead of being
// profiled. Only a child that exits 0 after the add says yes: one killed by
// the signal, or one whose fault a handler turned into an exit status (ASan's
// or UCX's, loaded with oneDNN: what CI's sanitizer build saw), or one that
// gives no answer in 20 s (a fork of a threaded runtime can hang) says no.
// The child also pools an MKLDNN tensor, as every CNN with pooling does
// after optimize_for_inference: Debian 13's LibTorch 2.6 (2.6.0+dfsg-7,
// seen 2026-12-06) throws "aten::max_pool2d has kernels registered to both
// CompositeImplicitAutograd and a backend mapped to AutogradOther" there,
// and PyTorch's own optimize_for_inference of resnet18 segfaults.
absl::Status MkldnnUsableImpl() {
  static const absl::Status result = [] {
    const pid_t pid = fork();
    if (pid == 0) {
      int step = 3;  // the exit status names the operation that failed
      try {
        const at::Tensor a = at::ones({1, 8, 4, 4}).to_mkldnn();
        const at::Tensor b = at::add(a, a);
        step = 4;
        const at::Tensor c = at::max_pool2d(b, {2, 2});
        _exit(b.defined() && c.defined() ? 0 : step);
      } catch (...) {
        _exit(step);
      }
    }
    if (pid < 0) return absl::OkStatus();  // no child to ask: the pass runs, as before the probe
    const std::string fault = "a LibTorch/oneDNN fault of this machine, not of the model";
    int status = 0;
    for (int waited = 0; waited < 2000; ++waited) {
      const pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) {
        if (WIFSIGNALED(status)) {
          return absl::FailedPreconditionError(absl::StrCat("LibTorch's MKLDNN (oneDNN) kills the process on this "
                                                            "machine (signal ", WTERMSIG(status),
                                                            " in a probe of an MKLDNN add and max_pool2d): ", fault));
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
          const int code = WEXITSTATUS(status);
          return absl::FailedPreconditionError(absl::StrCat(
              "LibTorch's MKLDNN (oneDNN) fails on this machine (a probe's MKLDNN ",
              code == 4 ? "max_pool2d" : code == 3 ? "add" : "add and max_pool2d", " failed, exit status ", code,
              "): ", fault));
        }
        return absl::OkStatus();
      }
      if (done < 0) return absl::OkStatus();
      usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return absl::FailedPreconditionError(
        "LibTorch's MKLDNN (oneDNN) could not be probed on this machine (a probe of an MKLDNN add and max_pool2d gave no answer in 20 "
        "s): not used");
  }();
  return result;
}

// A graph pass LibTorch defines for frozen graphs only: it rewrites what
// freeze made of the parameters (constants), so it changes parameters.
Pass FrozenGraphPass(std::string name, std::string description, GraphFn fn, bool keep_metadata = false,
                     bool needs_mkldnn = false) {
  const std::string pass_name = name;
  return Pass{std::move(name), std::move(description),
              [pass_name, fn, keep_metadata, needs_mkldnn](jit::Module& module, const std::string& method) -> absl::Status {
                if (needs_mkldnn) {
                  if (absl::Status usable = MkldnnUsableImpl(); !usable.ok()) {
                    return absl::FailedPreconditionError(absl::StrCat(pass_name, ": ", usable.message()));
                  }
                }
                if (!IsFrozen(module)) {
                  return absl::FailedPreconditionError(
                      absl::StrCat(pass_name, " works on frozen modules: put freeze before it"));
                }
                std::shared_ptr<jit::Graph> graph = GraphOf(module, method);
                if (keep_metadata) {
                  RunKeepingMetadata(graph, fn);
                } else {
                  fn(graph);
                }
                return absl::OkStatus();
              },
              /*changes_parameters=*/true};
}

std::vector<Pass> MakeBuiltinPassList();

absl::Status OptimizeForInference(jit::Module& module, const std::string& method) {
  if (absl::Status usable = MkldnnUsableImpl(); !usable.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("optimize_for_inference converts to MKLDNN: ", usable.message()));
  }
  // torch.jit.optimize_for_inference: freeze, then these three on each method.
  if (absl::Status frozen = Freeze(module, method); !frozen.ok()) return frozen;
  std::shared_ptr<jit::Graph> graph = GraphOf(module, method);
  jit::FuseFrozenConvAddRelu(graph);
  RunKeepingMetadata(graph, [](std::shared_ptr<jit::Graph>& g) { jit::ConvertFrozenOpsToMKLDNN(g); });
  RunKeepingMetadata(graph, [](std::shared_ptr<jit::Graph>& g) { jit::FrozenLinearTranspose(g); });
  return absl::OkStatus();
}

std::vector<Pass> MakeBuiltinPassList() {
  std::vector<Pass> passes;
  passes.push_back(ModulePass("freeze", "torch.jit.freeze: attributes become constants, frozen-graph folds run (eval mode)",
                              Freeze, /*changes_parameters=*/true));
  passes.push_back(ModulePass(
      "optimize_for_inference",
      "torch.jit.optimize_for_inference: freeze, fuse conv+add+relu, convert to MKLDNN, transpose linear weights",
      OptimizeForInference, /*changes_parameters=*/true));
  passes.push_back(ModulePass("fold_conv_bn",
                              "fold batch norm into the preceding convolution (frozen graph, or module-level fold)",
                              [](jit::Module& module, const std::string& method) {
                                if (IsFrozen(module)) {
                                  std::shared_ptr<jit::Graph> graph = GraphOf(module, method);
                                  jit::FoldFrozenConvBatchnorm(graph);
                                } else {
                                  module = jit::FoldConvBatchNorm(module);
                                }
                                return absl::OkStatus();
                              },
                              /*changes_parameters=*/true));
  passes.push_back(FrozenGraphPass("fold_conv_add_sub", "fold a constant add/sub into the convolution before it",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::FoldFrozenConvAddOrSub(g); }));
  passes.push_back(FrozenGraphPass("fold_conv_mul_div", "fold a constant mul/div into the convolution before it",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::FoldFrozenConvMulOrDiv(g); }));
  passes.push_back(FrozenGraphPass("fuse_conv_add_relu", "fuse conv + add + relu (frozen)",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::FuseFrozenConvAddRelu(g); }));
  passes.push_back(FrozenGraphPass("convert_to_mkldnn", "run convolutions, linears and their neighbours in MKLDNN (frozen)",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::ConvertFrozenOpsToMKLDNN(g); },
                                   /*keep_metadata=*/true, /*needs_mkldnn=*/true));
  passes.push_back(FrozenGraphPass("frozen_linear_transpose", "pre-transpose constant linear weights: matmul + add",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::FrozenLinearTranspose(g); },
                                   /*keep_metadata=*/true));
  passes.push_back(FrozenGraphPass("frozen_concat_linear", "concatenate linears that share an input (frozen)",
                                   [](std::shared_ptr<jit::Graph>& g) { jit::FrozenConcatLinear(g); }));
  passes.push_back(ModulePass("remove_dropout", "remove dropout (eval mode)",
                              [](jit::Module& module, const std::string&) -> absl::Status {
                                if (!IsFrozen(module) && module.is_training()) {
                                  return absl::FailedPreconditionError("remove_dropout needs a module in eval mode");
                                }
                                jit::removeDropout(module);
                                return absl::OkStatus();
                              },
                              /*changes_parameters=*/false));
  passes.push_back(GraphPass("inline", "inline method and function calls",
                             [](std::shared_ptr<jit::Graph>& g) { InlineCalls(*g); }));
  passes.push_back(GraphPass("constant_propagation", "evaluate nodes whose inputs are constants",
                             [](std::shared_ptr<jit::Graph>& g) { jit::ConstantPropagation(g); }));
  passes.push_back(GraphPass("constant_pooling", "merge identical constants",
                             [](std::shared_ptr<jit::Graph>& g) { jit::ConstantPooling(g); }));
  passes.push_back(GraphPass("cse", "common subexpression elimination",
                             [](std::shared_ptr<jit::Graph>& g) { jit::EliminateCommonSubexpression(g); }));
  passes.push_back(GraphPass("dce", "dead code elimination",
                             [](std::shared_ptr<jit::Graph>& g) { jit::EliminateDeadCode(g); }));
  passes.push_back(GraphPass("peephole", "peephole optimisations (shape and arithmetic identities)",
                             [](std::shared_ptr<jit::Graph>& g) { jit::PeepholeOptimize(g); }));
  passes.push_back(GraphPass("fuse_linear", "matmul + add / addmm patterns into aten::linear",
                             [](std::shared_ptr<jit::Graph>& g) { jit::FuseLinear(g); }));
  passes.push_back(GraphPass("fuse_add_relu", "add + relu into aten::_add_relu",
                             [](std::shared_ptr<jit::Graph>& g) { jit::FuseAddRelu(g); }));
  return passes;
}

}  // namespace

Pass GraphPass(std::string name, std::function<void(std::shared_ptr<torch::jit::Graph>&)> fn) {
  return GraphPass(std::move(name), "a graph pass", std::move(fn));
}

Pass GraphPass(std::string name, std::string description,
               std::function<void(std::shared_ptr<torch::jit::Graph>&)> fn) {
  return Pass{std::move(name), std::move(description),
              [fn](jit::Module& module, const std::string& method) {
                std::shared_ptr<jit::Graph> graph = GraphOf(module, method);
                fn(graph);
                return absl::OkStatus();
              }};
}

const std::vector<Pass>& BuiltinPasses() {
  static const auto* passes = new std::vector<Pass>(MakeBuiltinPassList());
  return *passes;
}

absl::StatusOr<std::vector<Pass>> ParsePasses(absl::string_view comma_separated) {
  std::vector<Pass> passes;
  // The explicit "no pass": --ab=none compares the module with itself.
  if (absl::StripAsciiWhitespace(comma_separated) == "none") return passes;
  std::vector<absl::string_view> names = absl::StrSplit(comma_separated, ',');
  for (absl::string_view name : names) {
    name = absl::StripAsciiWhitespace(name);
    // "cse,,dce" or a trailing comma: a name left out, not a pass.
    if (name.empty() && names.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat("an empty pass name in '", comma_separated,
                                                     "' (pass names separated by single commas, e.g. cse,dce)"));
    }
    if (name.empty()) continue;
    if (absl::StartsWith(name, kDelayPassPrefix)) {
      absl::StatusOr<Pass> delay = ParseDelayPass(name);
      if (!delay.ok()) return delay.status();
      passes.push_back(*std::move(delay));
      continue;
    }
    const Pass* found = nullptr;
    for (const Pass& pass : BuiltinPasses()) {
      if (pass.name == name) found = &pass;
    }
    if (found == nullptr) {
      std::vector<std::string> names;
      for (const Pass& pass : BuiltinPasses()) names.push_back(pass.name);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown pass '", name, "' (known: ", absl::StrJoin(names, ", "), "; and delay:MODULE:US)"));
    }
    passes.push_back(*found);
  }
  if (passes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no pass named in '", comma_separated,
                                                   "' (pass names separated by commas, e.g. cse,dce; or none)"));
  }
  return passes;
}

absl::StatusOr<torch::jit::Module> ApplyPasses(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                               const std::string& method) {
  jit::Module result;
  try {
    if (!module.find_method(method).has_value()) {
      return absl::NotFoundError(absl::StrCat("the module has no method '", method, "'"));
    }
    result = module.clone();
    // Module::clone copies parameters with Tensor::clone, which under a
    // NoGradGuard (the CLI's, Python's torch.no_grad) gives tensors that do
    // not require grad: a pass must not change which parameters train.
    // Clone's copies are leaves, so requires_grad can be set back on them.
    const auto original = module.named_parameters(/*recurse=*/true);
    const auto copies = result.named_parameters(/*recurse=*/true);
    auto copy = copies.begin();
    for (auto it = original.begin(); it != original.end() && copy != copies.end(); ++it, ++copy) {
      const at::Tensor& from = (*it).value;
      at::Tensor to = (*copy).value;
      if ((*it).name == (*copy).name && from.requires_grad() != to.requires_grad() && to.is_leaf()) {
        to.requires_grad_(from.requires_grad());
      }
    }
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, "cloning the module", e);
  }
  for (const Pass& pass : passes) {
    try {
      if (absl::Status status = pass.apply(result, method); !status.ok()) return Annotate(status, pass.name);
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, pass.name, e);
    }
  }
  return result;
}

std::string DescribePasses(const std::vector<Pass>& passes) {
  std::vector<std::string> names;
  for (const Pass& pass : passes) names.push_back(pass.name);
  return names.empty() ? "no pass" : absl::StrJoin(names, " -> ");
}

absl::Status MkldnnUsable() { return MkldnnUsableImpl(); }

}  // namespace graphprof
