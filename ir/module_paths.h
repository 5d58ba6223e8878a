// ModulePaths: the module a node of an inlined graph belongs to, named as
// Python's named_modules() names it ("layer1.0.conv1", "encoder.layers.0.self_attn";
// "" for the root module).
//
// An inlined node carries its call stack: one frame per inlined method call,
// each with the call site's source range and the callee's instance name (the
// attribute it was read from, "SELF" for a method of the same module). The
// instance name alone is not enough: a ModuleList iterated in forward is
// unrolled into calls on "0", "1", ... whose parent ("blocks" vs "heads") is
// only an attribute read in the caller. So ModulePaths scans every method
// of every module type once, before inlining, and records for each call site
// (source range + instance name) the attribute chain from the caller's
// `self` to the callee ("blocks.0"). A node's path is the concatenation of
// its frames' chains; self-method frames and free-function frames add
// nothing. Scripted and traced models (whose submodules are called through
// CallMethod too) resolve alike; measured exact against named_modules() on
// every node of torchvision resnet18/mobilenet_v2, a looped ModuleList, an
// nn.TransformerEncoder and an nn.LSTM, scripted and traced.
#ifndef GRAPHPROF_IR_MODULE_PATHS_H_
#define GRAPHPROF_IR_MODULE_PATHS_H_

#include <torch/script.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace graphprof {

class ModulePaths {
 public:
  // Scans the (non-inlined) methods of `root` and all its submodules. Works
  // for graphs inlined from `root`, also after freezing or other passes that
  // keep the call stacks.
  static std::shared_ptr<const ModulePaths> Build(const torch::jit::Module& root);

  // The named_modules() name of `node`'s module ("" at the root).
  std::string PathOf(const torch::jit::Node& node) const;

  // Without a table (bare graphs): the frames' instance names joined,
  // self-method frames skipped.
  static std::string FromCallStack(const torch::jit::Node& node);

 private:
  struct CallSite {
    const void* source;
    size_t start;
    size_t end;
    std::string instance;
    bool operator<(const CallSite& o) const {
      return std::tie(source, start, end, instance) < std::tie(o.source, o.start, o.end, o.instance);
    }
  };
  void Scan(const torch::jit::Block* block, const torch::jit::Value* self);
  // `roots`: values whose attribute chain from self is known (self: empty).
  void Scan(const torch::jit::Block* block, const std::map<const torch::jit::Value*, std::vector<std::string>>& roots);

  // Call site -> attribute chain(s) from the caller's self; more than one is
  // ambiguous (then the instance name is used).
  std::map<CallSite, std::set<std::string>> chains_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_IR_MODULE_PATHS_H_
