#include "sources/ir_text/ir_text_source.h"

#include <torch/csrc/jit/api/function_impl.h>

#include <utility>

#include "common/status_util.h"
#include "ir/loader.h"

namespace graphprof {
namespace {

class IrTextSource final : public ModelSource {
 public:
  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(const std::string& path, const SourceRequest& request) {
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = LoadGraphFile(path);
    if (!graph.ok()) return graph.status();
    // The parsed graph is ours: prepared in place, no copy. Inlining does
    // nothing to IR text (it has no calls) and dead code elimination keeps
    // every side effect, so the reference runs a copy of it natively.
    absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(*std::move(graph), path);
    if (!prepared.ok()) return prepared.status();
    auto source = std::unique_ptr<IrTextSource>(new IrTextSource);
    source->path_ = path;
    source->request_ = request;
    source->prepared_ = *std::move(prepared);
    return std::unique_ptr<ModelSource>(std::move(source));
  }

  std::string name() const override { return path_; }
  const SourceAbilities& abilities() const override {
    static const SourceAbilities kAbilities{"an IR graph", "IR", /*passes=*/false, /*backward=*/true, /*methods=*/false,
                                            /*devices=*/true};
    return kAbilities;
  }
  const PreparedGraph& prepared() const override { return prepared_; }
  c10::Device device() const override { return request_.device; }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    Reference reference;
    std::shared_ptr<const torch::jit::Graph> parsed = prepared_.graph;
    reference.run = [parsed](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
      try {
        torch::jit::GraphFunction native("native", const_cast<torch::jit::Graph&>(*parsed).copy(), nullptr);
        torch::jit::Stack stack(in.begin(), in.end());
        native.run(stack);
        if (stack.size() == 1) return stack[0];
        return c10::IValue(c10::ivalue::Tuple::create(std::move(stack)));
      } catch (const std::exception& e) {
        return StatusFromException(absl::StatusCode::kInvalidArgument, "native graph run", e);
      }
    };
    reference.check.float64_reference = !tolerance.given;
    reference.check.rtol = tolerance.rtol;
    reference.check.atol = tolerance.atol;
    reference.check.reference = "native execution";
    return reference;
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override { return Open(path_, request_); }

 private:
  IrTextSource() = default;

  std::string path_;
  SourceRequest request_;
  PreparedGraph prepared_;
};

}  // namespace

SourceFormat IrTextFormat() {
  SourceFormat format;
  format.name = "ir";
  format.claims = [](const std::string&) { return false; };
  format.open = &IrTextSource::Open;
  return format;
}

}  // namespace graphprof
