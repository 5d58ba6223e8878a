// A 2-layer graph convolutional network written as explicit message passing:
// symmetric degree normalisation with self loops, messages gathered with
// index_select and reduced with index_add_ (layer 1) or scatter_add_ (layer 2),
// as torch_geometric's GCNConv does.
#include "absl/strings/str_format.h"
#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {
namespace {

constexpr int64_t kNodes = 1000;
constexpr int64_t kEdges = 5000;
constexpr int64_t kFeatures = 64;
constexpr int64_t kHidden = 128;
constexpr int64_t kClasses = 16;

torch::jit::Module GcnConv(WeightInit& init, int64_t in, int64_t out, bool scatter) {
  torch::jit::Module m = NewModule("GCNConv");
  m.register_module("lin", Linear(init, in, out, /*bias=*/false));
  AddParameter(m, "bias", init.Uniform({out}, -0.1, 0.1));
  const char* reduce = scatter
      ? "torch.zeros_like(h).scatter_add_(0, dst.unsqueeze(1).expand_as(msg), msg)"
      : "torch.zeros_like(h).index_add_(0, dst, msg)";
  Define(m, absl::StrFormat(R"(
def forward(self, x, edge_index):
    n = x.size(0)
    loops = torch.arange(n, dtype=4, device=x.device)
    src = torch.cat([edge_index[0], loops])
    dst = torch.cat([edge_index[1], loops])
    deg = torch.zeros([n], dtype=x.dtype, device=x.device).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
    norm = deg.pow(-0.5)
    weight = norm.index_select(0, src) * norm.index_select(0, dst)
    h = self.lin.forward(x)
    msg = h.index_select(0, src) * weight.unsqueeze(1)
    out = %s
    return out + self.bias
)", reduce));
  return m;
}

}  // namespace

ZooModel Gcn(uint64_t seed) {
  WeightInit init(seed);
  torch::jit::Module m = NewModule("GCN");
  m.register_module("conv1", GcnConv(init, kFeatures, kHidden, /*scatter=*/false));
  m.register_module("conv2", GcnConv(init, kHidden, kClasses, /*scatter=*/true));
  Define(m, R"(
def forward(self, x, edge_index):
    x = torch.relu(self.conv1.forward(x, edge_index))
    x = self.conv2.forward(x, edge_index)
    return torch.log_softmax(x, 1)
)");
  ZooModel model{"gcn", "2-layer GCN, message passing over an edge list", m, {}};
  InputSpec x{InputSpec::Kind::kTensor, {kNodes, kFeatures}, c10::ScalarType::Float};
  InputSpec edges{InputSpec::Kind::kTensor, {2, kEdges}, c10::ScalarType::Long};
  edges.low = 0;
  edges.high = kNodes;
  edges.has_range = true;
  model.inputs = {x, edges};
  return model;
}

}  // namespace graphprof::zoo
