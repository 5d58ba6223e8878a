// One transformer encoder block (post-norm, like torch.nn.TransformerEncoderLayer):
// multi-head self-attention, residual + LayerNorm, GELU feed-forward, residual + LayerNorm.
#include <cmath>

#include "absl/strings/str_format.h"
#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {
namespace {

constexpr int64_t kModel = 256;
constexpr int64_t kHeads = 4;
constexpr int64_t kFeedForward = 1024;

torch::jit::Module SelfAttention(WeightInit& init) {
  torch::jit::Module m = NewModule("MultiheadAttention");
  const double bound = std::sqrt(6.0 / (kModel + 3 * kModel));
  AddParameter(m, "in_proj_weight", init.Uniform({3 * kModel, kModel}, -bound, bound));
  AddParameter(m, "in_proj_bias", init.Uniform({3 * kModel}, -0.02, 0.02));
  m.register_module("out_proj", Linear(init, kModel, kModel));
  const int64_t head_dim = kModel / kHeads;
  Define(m, absl::StrFormat(R"(
def forward(self, x):
    b = x.size(0)
    s = x.size(1)
    qkv = torch.linear(x, self.in_proj_weight, self.in_proj_bias)
    q, k, v = qkv.chunk(3, -1)
    q = q.reshape([b, s, %d, %d]).transpose(1, 2)
    k = k.reshape([b, s, %d, %d]).transpose(1, 2)
    v = v.reshape([b, s, %d, %d]).transpose(1, 2)
    scores = torch.matmul(q, k.transpose(-2, -1)) * %.17g
    attn = torch.softmax(scores, -1)
    ctx = torch.matmul(attn, v).transpose(1, 2).reshape([b, s, %d])
    return self.out_proj.forward(ctx)
)", kHeads, head_dim, kHeads, head_dim, kHeads, head_dim, 1.0 / std::sqrt(static_cast<double>(head_dim)),
                            kModel));
  return m;
}

}  // namespace

ZooModel TransformerBlock(uint64_t seed) {
  WeightInit init(seed);
  torch::jit::Module m = NewModule("TransformerEncoderLayer");
  m.register_module("self_attn", SelfAttention(init));
  m.register_module("linear1", Linear(init, kModel, kFeedForward));
  m.register_module("linear2", Linear(init, kFeedForward, kModel));
  m.register_module("norm1", LayerNorm(init, kModel));
  m.register_module("norm2", LayerNorm(init, kModel));
  Define(m, R"(
def forward(self, x):
    x = self.norm1.forward(x + self.self_attn.forward(x))
    ff = self.linear2.forward(torch.gelu(self.linear1.forward(x)))
    return self.norm2.forward(x + ff)
)");
  ZooModel model{"transformer", "transformer encoder block, d_model 256, 4 heads, FFN 1024", m, {}};
  model.inputs = {InputSpec{InputSpec::Kind::kTensor, {2, 64, kModel}, c10::ScalarType::Float}};
  return model;
}

}  // namespace graphprof::zoo
