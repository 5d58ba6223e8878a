// A model source that exists only in tests: a graph built in code,
// relu(x * 2 + x), opened as "in_code:NAME". It is registered here, in its
// own file, and nowhere else: no line of tools/, python/ or sources/ knows
// it, which is what source_registry_test shows (profile, --ab=none,
// --compare_model, --workers=2 through a profile_graph linked with it, and
// ProfileSource, the session graphprof.profile(path) runs).
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/prepared_graph.h"
#include "sources/model_source.h"

namespace graphprof::testing {
namespace {

constexpr char kPrefix[] = "in_code:";

std::shared_ptr<torch::jit::Graph> BuildGraph() {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* x = graph->addInput("x");
  x->setType(c10::TensorType::get());
  torch::jit::Value* two = graph->insertConstant(2.0);
  torch::jit::Value* doubled = graph->insert(c10::Symbol::fromQualString("aten::mul"), {x, two});
  torch::jit::Value* sum = graph->insert(c10::Symbol::fromQualString("aten::add"), {doubled, x});
  torch::jit::Value* out = graph->insert(c10::Symbol::fromQualString("aten::relu"), {sum});
  graph->registerOutput(out);
  return graph;
}

class GraphInCodeSource final : public ModelSource {
 public:
  static absl::StatusOr<std::unique_ptr<ModelSource>> Open(const std::string& path, const SourceRequest&) {
    absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(BuildGraph(), path);
    if (!prepared.ok()) return prepared.status();
    auto source = std::make_unique<GraphInCodeSource>();
    source->path_ = path;
    source->prepared_ = *std::move(prepared);
    return std::unique_ptr<ModelSource>(std::move(source));
  }

  std::string name() const override { return path_; }
  const SourceAbilities& abilities() const override {
    static const SourceAbilities kAbilities{"a graph built in code", "in code", /*passes=*/false,
                                            /*backward=*/false, /*methods=*/false, /*devices=*/false};
    return kAbilities;
  }
  const PreparedGraph& prepared() const override { return prepared_; }

  absl::StatusOr<SuppliedInputs> SupplyInputs(uint64_t seed) const override {
    torch::manual_seed(seed);
    return SuppliedInputs{{torch::randn({4, 8})}, "a 4x8 tensor made by the test's source"};
  }

  Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const override {
    Reference reference;
    reference.run = [](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
      torch::jit::GraphFunction native("native", BuildGraph(), nullptr);
      torch::jit::Stack stack(in.begin(), in.end());
      native.run(stack);
      return stack.at(0);
    };
    reference.check.reference = "the graph built in code, run by the JIT";
    return reference;
  }

  absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const override { return Open(path_, SourceRequest()); }

  void Describe(Report& report) const override {
    report.notes.push_back("a graph built in code (tests/graph_in_code_source.cc)");
  }

 private:
  std::string path_;
  PreparedGraph prepared_;
};

SourceFormat GraphInCodeFormat() {
  SourceFormat format;
  format.name = "in_code";
  format.claims = [](const std::string& path) { return absl::StartsWith(path, kPrefix); };
  format.open = &GraphInCodeSource::Open;
  return format;
}

// The registration: the one line that makes the format known.
[[maybe_unused]] const bool kRegistered = RegisterSourceFormat(GraphInCodeFormat());

}  // namespace
}  // namespace graphprof::testing
