#include "ir/delay_pass.h"

#include <torch/library.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/module_path.h"
#include "ir/inliner.h"
#include "ir/module_paths.h"

namespace graphprof {
namespace {

namespace jit = torch::jit;

at::Tensor Delay(const at::Tensor& x, int64_t us) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < deadline) {
  }
  return x;
}

// The process's rank (RANK, as torchrun sets it), read once; -1 without.
int64_t ProcessRank() {
  static const int64_t rank = [] {
    const char* value = std::getenv("RANK");
    int64_t parsed = -1;
    return value != nullptr && absl::SimpleAtoi(value, &parsed) ? parsed : int64_t{-1};
  }();
  return rank;
}

at::Tensor DelayOnRank(const at::Tensor& x, int64_t us, int64_t rank) {
  return rank == ProcessRank() ? Delay(x, us) : x;
}

// Registered when the pass is first applied, and only if no other copy of
// graphprof in the process registered it (an embedder may link graphprof
// into two libraries; TORCH_LIBRARY at static initialisation would then
// abort the process when the second loads).
void RegisterDelayOp() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (c10::Dispatcher::singleton().findSchema({kDelayOp, ""}).has_value()) return;  // and delay_on_rank
    static torch::Library* library = new torch::Library(torch::Library::DEF, "graphprof", c10::nullopt, __FILE__, __LINE__);
    // Its own schema's alias annotation: the result is x (no copy).
    library->def("delay(Tensor(a) x, int us) -> Tensor(a)", &Delay);
    library->def("delay_on_rank(Tensor(a) x, int us, int rank) -> Tensor(a)", &DelayOnRank);
  });
}

jit::Value* FirstTensorOutput(jit::Node* node) {
  for (jit::Value* out : node->outputs()) {
    if (out->type()->kind() == c10::TypeKind::TensorType) return out;
  }
  return nullptr;
}

}  // namespace

Pass DelayPass(std::string module_path, int64_t us, int64_t rank) {
  Pass pass;
  pass.name = absl::StrCat(kDelayPassPrefix, module_path, ":", us, rank >= 0 ? absl::StrCat("@", rank) : "");
  pass.description = absl::StrCat("busy-waits ", us, " us after module ", module_path,
                                  rank >= 0 ? absl::StrCat(" on rank ", rank, " only (a known straggler)")
                                            : " (a known slowdown)");
  pass.apply = [module_path, us, rank](jit::Module& module, const std::string& method) -> absl::Status {
    RegisterDelayOp();
    // Paths need the module's methods as they are before inlining.
    std::shared_ptr<const ModulePaths> paths = ModulePaths::Build(module);
    std::shared_ptr<jit::Graph> graph = module.get_method(method).graph();
    InlineCalls(*graph);
    jit::Node* chosen = nullptr;
    std::vector<std::string> seen;
    for (jit::Node* node : graph->nodes()) {
      const std::string path = paths->PathOf(*node);
      if (InModule(path, module_path) && FirstTensorOutput(node) != nullptr) chosen = node;
      if (seen.size() < 6 && !path.empty() && (seen.empty() || seen.back() != path)) seen.push_back(path);
    }
    if (chosen == nullptr) {
      return absl::NotFoundError(absl::StrCat("no node of module '", module_path, "' with a Tensor output in ",
                                              method, " (its modules: ", absl::StrJoin(seen, ", "), ", ...)"));
    }
    jit::Value* x = FirstTensorOutput(chosen);
    jit::WithInsertPoint guard(chosen->next());
    jit::Value* wait = graph->insertConstant(us);
    std::vector<jit::Value*> args = {x, wait};
    if (rank >= 0) args.push_back(graph->insertConstant(rank));
    jit::Node* delay = graph->create(c10::Symbol::fromQualString(rank >= 0 ? kDelayOnRankOp : kDelayOp), args, 1);
    graph->insertNode(delay);
    delay->output()->setType(x->type());
    // The chosen node's module, source and call stack: a row of that module.
    std::vector<jit::Node*> made = {wait->node(), delay};
    if (rank >= 0) made.push_back(args[2]->node());
    for (jit::Node* n : made) {
      n->setScope(chosen->scope());
      n->setSourceRange(chosen->sourceRange());
      if (chosen->callstack()) n->setCallStack(*chosen->callstack());
    }
    x->replaceAllUsesAfterNodeWith(delay, delay->output());
    return absl::OkStatus();
  };
  return pass;
}

absl::StatusOr<Pass> ParseDelayPass(absl::string_view text) {
  const std::string usage = absl::StrCat("'", text, "': the delay pass is delay:MODULE:US (e.g. delay:layer3:500, "
                                         "US microseconds after module layer3), or delay:MODULE:US@RANK (on that "
                                         "rank only)");
  if (!absl::ConsumePrefix(&text, kDelayPassPrefix)) return absl::InvalidArgumentError(usage);
  const size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) return absl::InvalidArgumentError(usage);
  absl::string_view amount = text.substr(colon + 1);
  int64_t rank = -1;
  if (const size_t at = amount.find('@'); at != absl::string_view::npos) {
    if (!absl::SimpleAtoi(amount.substr(at + 1), &rank) || rank < 0) {
      return absl::InvalidArgumentError(absl::StrCat(usage, "; @RANK is a rank, 0 or more"));
    }
    amount = amount.substr(0, at);
  }
  int64_t us = 0;
  if (!absl::SimpleAtoi(amount, &us) || us < 1 || us > kMaxDelayUs) {
    return absl::InvalidArgumentError(absl::StrCat(usage, "; US is a whole number from 1 to ", kMaxDelayUs));
  }
  return DelayPass(std::string(text.substr(0, colon)), us, rank);
}

}  // namespace graphprof
