// The work counter's formulas against hand-computed values, family by family
// (profilers/work/work.h has the conventions).
#include "profilers/work/work.h"

#include <gtest/gtest.h>

namespace graphprof {
namespace {

using K = ArgInfo::Kind;

ArgInfo T(std::vector<int64_t> sizes, const void* storage = nullptr, int64_t element_size = 4) {
  ArgInfo a;
  a.kind = K::kTensor;
  a.sizes = std::move(sizes);
  a.element_size = element_size;
  a.floating = true;
  a.storage = storage;
  return a;
}
ArgInfo None() { ArgInfo a; a.kind = K::kNone; return a; }
ArgInfo Int(int64_t i) { ArgInfo a; a.kind = K::kInt; a.i = i; return a; }
ArgInfo Bool(bool b) { ArgInfo a; a.kind = K::kBool; a.b = b; return a; }
ArgInfo Ints(std::vector<int64_t> v) { ArgInfo a; a.kind = K::kIntList; a.ints = std::move(v); return a; }
ArgInfo Str(std::string s) { ArgInfo a; a.kind = K::kString; a.s = std::move(s); return a; }
ArgInfo List(std::vector<ArgInfo> t) { ArgInfo a; a.kind = K::kTensorList; a.tensors = std::move(t); return a; }

double Flops(const std::string& kind, std::vector<ArgInfo> in, std::vector<ArgInfo> out) {
  const Work w = CountWork(kind, in, out);
  EXPECT_TRUE(w.counted) << kind;
  return w.flops;
}

TEST(WorkTest, Convolutions) {
  // resnet18's stem: 64 x 112 x 112 outputs, each 3 x 7 x 7 multiply-adds.
  EXPECT_DOUBLE_EQ(Flops("aten::conv2d", {T({1, 3, 224, 224}), T({64, 3, 7, 7}), None(), Ints({2, 2}), Ints({3, 3}),
                                          Ints({1, 1}), Int(1)},
                         {T({1, 64, 112, 112})}),
                   2.0 * 64 * 112 * 112 * 3 * 49);
  // Depthwise (groups 32) with a bias: 1 x 3 x 3 per output, plus the bias adds.
  EXPECT_DOUBLE_EQ(Flops("aten::conv2d", {T({1, 32, 56, 56}), T({32, 1, 3, 3}), T({32}), Ints({1, 1}), Ints({1, 1}),
                                          Ints({1, 1}), Int(32)},
                         {T({1, 32, 56, 56})}),
                   2.0 * 32 * 56 * 56 * 9 + 32 * 56 * 56);
  // Transposed: every input element feeds Cout/groups x kernel outputs.
  EXPECT_DOUBLE_EQ(Flops("aten::conv_transpose2d", {T({1, 16, 8, 8}), T({16, 8, 4, 4}), None()}, {T({1, 8, 16, 16})}),
                   2.0 * 16 * 8 * 8 * 8 * 16);
  std::vector<ArgInfo> conv = {T({1, 16, 8, 8}), T({16, 8, 4, 4}), None(), Ints({2, 2}), Ints({1, 1}), Ints({1, 1}),
                               Bool(true), Ints({0, 0}), Int(1)};
  EXPECT_DOUBLE_EQ(Flops("aten::_convolution", conv, {T({1, 8, 16, 16})}), 2.0 * 1024 * 8 * 16);
  conv[6] = Bool(false);
  EXPECT_DOUBLE_EQ(Flops("aten::_convolution", conv, {T({1, 16, 5, 5})}), 2.0 * 16 * 25 * 8 * 16);
  // 1-d and 3-d, and MKLDNN's: the same rule.
  EXPECT_DOUBLE_EQ(Flops("aten::conv1d", {T({2, 4, 10}), T({6, 4, 3}), None()}, {T({2, 6, 8})}), 2.0 * 96 * 12);
  EXPECT_DOUBLE_EQ(Flops("aten::conv3d", {T({1, 2, 4, 4, 4}), T({3, 2, 2, 2, 2}), None()}, {T({1, 3, 3, 3, 3})}),
                   2.0 * 81 * 16);
  EXPECT_DOUBLE_EQ(Flops("prim::mkldnn_convolution", {T({1, 3, 8, 8}), T({4, 3, 1, 1}), T({4})}, {T({1, 4, 8, 8})}),
                   2.0 * 256 * 3 + 256);
}

TEST(WorkTest, MatrixProducts) {
  EXPECT_DOUBLE_EQ(Flops("aten::linear", {T({8, 128}), T({64, 128}), T({64})}, {T({8, 64})}), 2.0 * 512 * 128 + 512);
  EXPECT_DOUBLE_EQ(Flops("aten::linear", {T({2, 5, 128}), T({64, 128}), None()}, {T({2, 5, 64})}), 2.0 * 640 * 128);
  // Batched matmul: 4 x 10 x 5 outputs, each a 32-long dot product.
  EXPECT_DOUBLE_EQ(Flops("aten::matmul", {T({4, 10, 32}), T({4, 32, 5})}, {T({4, 10, 5})}), 2.0 * 200 * 32);
  EXPECT_DOUBLE_EQ(Flops("aten::matmul", {T({32}), T({32})}, {T({})}), 2.0 * 32);  // a dot product
  EXPECT_DOUBLE_EQ(Flops("aten::bmm", {T({3, 4, 6}), T({3, 6, 2})}, {T({3, 4, 2})}), 2.0 * 24 * 6);
  EXPECT_DOUBLE_EQ(Flops("aten::addmm", {T({5}), T({3, 4}), T({4, 5}), Int(1), Int(1)}, {T({3, 5})}), 2.0 * 15 * 4 + 15);
  // addbmm adds 7 products of [3, 4] x [4, 5] into one [3, 5] (reviewed: the 7 was missing).
  EXPECT_DOUBLE_EQ(Flops("aten::addbmm", {T({3, 5}), T({7, 3, 4}), T({7, 4, 5}), Int(1), Int(1)}, {T({3, 5})}),
                   7 * 2.0 * 15 * 4 + 15);
  // An empty product does no work (reviewed: it was counted as one output).
  EXPECT_DOUBLE_EQ(Flops("aten::mm", {T({0, 4}), T({4, 5})}, {T({0, 5})}), 0);
  EXPECT_DOUBLE_EQ(Flops("aten::einsum", {Str("bij,bjk->bik"), List({T({2, 3, 4}), T({2, 4, 5})})}, {T({2, 3, 5})}),
                   2.0 * 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(Flops("aten::einsum", {Str("i,j->ij"), List({T({3}), T({4})})}, {T({3, 4})}), 12);
  EXPECT_FALSE(CountWork("aten::einsum", {Str("...ij,...jk"), List({T({2, 3}), T({3, 2})})}, {T({2, 2})}).counted);
}

TEST(WorkTest, ElementwiseReductionsNormsPooling) {
  // Broadcasting: the output's elements.
  EXPECT_DOUBLE_EQ(Flops("aten::add", {T({4, 1, 3}), T({1, 5, 3}), Int(1)}, {T({4, 5, 3})}), 60);
  EXPECT_DOUBLE_EQ(Flops("aten::relu", {T({2, 8})}, {T({2, 8})}), 16);
  EXPECT_DOUBLE_EQ(Flops("aten::sum", {T({4, 5}), Ints({1}), Bool(false)}, {T({4})}), 20);
  EXPECT_DOUBLE_EQ(Flops("aten::softmax", {T({3, 7}), Int(1)}, {T({3, 7})}), 105);
  EXPECT_DOUBLE_EQ(Flops("aten::batch_norm", {T({2, 4, 8, 8}), T({4}), T({4}), T({4}), T({4}), Bool(false)},
                         {T({2, 4, 8, 8})}),
                   2.0 * 512);
  EXPECT_DOUBLE_EQ(Flops("aten::batch_norm", {T({2, 4, 8, 8}), T({4}), T({4}), T({4}), T({4}), Bool(true)},
                         {T({2, 4, 8, 8})}),
                   7.0 * 512);
  EXPECT_DOUBLE_EQ(Flops("aten::layer_norm", {T({2, 10, 32}), Ints({32}), T({32}), T({32})}, {T({2, 10, 32})}),
                   7.0 * 640);
  EXPECT_DOUBLE_EQ(Flops("aten::max_pool2d", {T({1, 64, 112, 112}), Ints({3, 3}), Ints({2, 2})}, {T({1, 64, 56, 56})}),
                   64.0 * 56 * 56 * 9);
  EXPECT_DOUBLE_EQ(Flops("aten::max_pool2d", {T({1, 64, 112, 112}), Ints({3}), Ints({2})}, {T({1, 64, 56, 56})}),
                   64.0 * 56 * 56 * 9);
  EXPECT_DOUBLE_EQ(Flops("aten::avg_pool2d", {T({1, 2, 4, 4}), Ints({2, 2})}, {T({1, 2, 2, 2})}), 8.0 * 4 + 8);
  EXPECT_DOUBLE_EQ(Flops("aten::adaptive_avg_pool2d", {T({1, 512, 7, 7}), Ints({1, 1})}, {T({1, 512, 1, 1})}),
                   512.0 * 49);
}

TEST(WorkTest, RecurrentAndAttention) {
  // One LSTM layer, T = 5, B = 3, I = 10, H = 20: per step the two
  // matrix-vector products and biases, and 10 ops per hidden unit for the gates.
  const double per_step = 2.0 * 80 * 10 + 2.0 * 80 * 20 + 80 + 80 + 10 * 20;
  EXPECT_DOUBLE_EQ(Flops("aten::lstm", {T({5, 3, 10}), List({T({1, 3, 20}), T({1, 3, 20})}),
                                        List({T({80, 10}), T({80, 20}), T({80}), T({80})}), Bool(true), Int(1),
                                        ArgInfo{}, Bool(false), Bool(false), Bool(false)},
                         {T({5, 3, 20}), T({1, 3, 20}), T({1, 3, 20})}),
                   15 * per_step);
  EXPECT_DOUBLE_EQ(Flops("aten::lstm_cell", {T({3, 10}), List({T({3, 20}), T({3, 20})}), T({80, 10}), T({80, 20}),
                                             T({80}), T({80})},
                         {T({3, 20}), T({3, 20})}),
                   3 * per_step);
  // Self-attention, B = 2, L = 10, E = 32, H = 4 heads: projections 2 B (3 L) E E
  // + 2 B L E E, scores and weighted sum 2 x 2 B L L E (the heads split E),
  // softmax 5 per score: B H L L scores (reviewed: the heads were left out).
  const double b = 2, l = 10, e = 32, h = 4;
  EXPECT_DOUBLE_EQ(Flops("aten::_native_multi_head_attention",
                         {T({2, 10, 32}), T({2, 10, 32}), T({2, 10, 32}), Int(32), Int(4)}, {T({2, 10, 32})}),
                   2 * b * 3 * l * e * e + 2 * b * l * e * e + 4 * b * l * l * e + 5 * b * h * l * l);
}

// Scaled dot-product attention (PyTorch 2.x's nn.MultiheadAttention and
// F.scaled_dot_product_attention), q [2,4,16,8], k [2,4,32,8], v [2,4,32,6]:
// the two products are what torch.utils.flop_counter counts (114688, from
// torch 2.6 in the Debian 13 root: FlopCounterMode around
// F.scaled_dot_product_attention(q, k, v) with and without attn_mask),
// plus the softmax, 5 per score (8 x 16 x 32 scores), and 1 per score for a
// mask or is_causal.
TEST(WorkTest, ScaledDotProductAttention) {
  const double products = 114688, scores = 2 * 4 * 16 * 32;
  const ArgInfo q = T({2, 4, 16, 8}), k = T({2, 4, 32, 8}), v = T({2, 4, 32, 6}), out = T({2, 4, 16, 6});
  EXPECT_DOUBLE_EQ(Flops("aten::scaled_dot_product_attention", {q, k, v, None(), ArgInfo{}, Bool(false)}, {out}),
                   products + 5 * scores);
  EXPECT_DOUBLE_EQ(Flops("aten::scaled_dot_product_attention", {q, k, v, T({16, 32}), ArgInfo{}, Bool(false)}, {out}),
                   products + 6 * scores);
  EXPECT_DOUBLE_EQ(Flops("aten::scaled_dot_product_attention", {q, k, v, None(), ArgInfo{}, Bool(true)}, {out}),
                   products + 6 * scores);
  // The CPU kernel it dispatches to (in exported programs): is_causal 5th, the mask 6th.
  EXPECT_DOUBLE_EQ(Flops("aten::_scaled_dot_product_flash_attention_for_cpu",
                         {q, k, v, ArgInfo{}, Bool(false), None()}, {out, T({2, 4, 16})}),
                   products + 5 * scores);
  EXPECT_DOUBLE_EQ(Flops("aten::_scaled_dot_product_flash_attention_for_cpu",
                         {q, k, v, ArgInfo{}, Bool(true), None()}, {out, T({2, 4, 16})}),
                   products + 6 * scores);
  EXPECT_FALSE(CountWork("aten::scaled_dot_product_attention", {q, None(), v}, {out}).counted);
}

TEST(WorkTest, BytesAndWhatIsNotCounted) {
  int s1, s2;
  // In place: the output is its input's storage, counted once.
  const Work inplace = CountWork("aten::add_", {T({10}, &s1), T({10}, &s2), Int(1)}, {T({10}, &s1)});
  EXPECT_DOUBLE_EQ(inplace.flops, 10);
  EXPECT_DOUBLE_EQ(inplace.bytes, 80);
  // A view moves no arithmetic; it covers its input once.
  const Work view = CountWork("aten::view", {T({2, 3}, &s1), Ints({6})}, {T({6}, &s1)});
  EXPECT_TRUE(view.counted);
  EXPECT_DOUBLE_EQ(view.flops, 0);
  EXPECT_DOUBLE_EQ(view.bytes, 24);
  // A slice of a big storage counts what it covers, not the storage.
  const Work sliced = CountWork("aten::relu", {T({4}, &s1)}, {T({4}, &s2)});
  EXPECT_DOUBLE_EQ(sliced.bytes, 32);
  // cat reads every tensor of its list.
  EXPECT_DOUBLE_EQ(CountWork("aten::cat", {List({T({2, 3}), T({4, 3})}), Int(0)}, {T({6, 3})}).bytes, 24 + 48 + 72);
  // Integer and bool arithmetic is no floating-point work (reviewed: index
  // math and masks were counted as FLOPs); a comparison of floats is.
  auto Integers = [](std::vector<int64_t> sizes) {
    ArgInfo a = T(std::move(sizes), nullptr, 8);
    a.floating = false;
    return a;
  };
  const Work masks = CountWork("aten::logical_and", {Integers({16}), Integers({16})}, {Integers({16})});
  EXPECT_TRUE(masks.counted);
  EXPECT_DOUBLE_EQ(masks.flops, 0);
  EXPECT_GT(masks.bytes, 0);
  EXPECT_DOUBLE_EQ(CountWork("aten::sum", {Integers({16})}, {Integers({})}).flops, 0);
  EXPECT_DOUBLE_EQ(CountWork("aten::mul", {Integers({16}), Int(2)}, {Integers({16})}).flops, 0);
  EXPECT_DOUBLE_EQ(CountWork("aten::lt", {T({16}), T({16})}, {Integers({16})}).flops, 16);
  // Unknown kinds are not counted (never a silent zero); the graph's own nodes are, with nothing.
  const Work unknown = CountWork("aten::frobnicate", {T({4})}, {T({4})});
  EXPECT_FALSE(unknown.counted);
  EXPECT_DOUBLE_EQ(unknown.bytes, 0);
  EXPECT_TRUE(CountWork("aten::add", {Int(1), Int(2)}, {Int(3)}).counted);
  const Work list = CountWork("prim::ListConstruct", {T({4})}, {List({T({4})})});
  EXPECT_TRUE(list.counted);
  EXPECT_DOUBLE_EQ(list.bytes, 0);
  EXPECT_FALSE(CountWork("quantized::linear_dynamic", {T({4, 8}), ArgInfo{}}, {T({4, 2})}).counted);
}

// Kinds whose work is none whatever their arguments: the profiler need not
// describe them (a __getitem__ of a 100,000-element list, every execution),
// and CountWork gives the same without them as with them.
TEST(WorkTest, KindsThatReadNoArguments) {
  for (const char* kind : {"aten::__getitem__", "aten::len", "aten::append", "aten::size", "prim::ListUnpack",
                           "prim::ListConstruct", "prim::GetAttr", "aten::dim", "aten::is_floating_point"}) {
    EXPECT_FALSE(WorkReadsArguments(kind)) << kind;
    const Work with = CountWork(kind, {List({T({4}), T({8})}), Int(1)}, {T({4})});
    const Work without = CountWork(kind, {}, {});
    EXPECT_TRUE(with.counted && without.counted) << kind;
    EXPECT_DOUBLE_EQ(with.bytes, without.bytes) << kind;
    EXPECT_DOUBLE_EQ(with.flops, without.flops) << kind;
  }
  for (const char* kind : {"aten::cat", "aten::dropout", "aten::relu", "aten::lstm", "aten::frobnicate", "prim::max"}) {
    EXPECT_TRUE(WorkReadsArguments(kind)) << kind;
  }
}

}  // namespace
}  // namespace graphprof
