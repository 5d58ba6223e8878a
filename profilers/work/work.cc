#include "profilers/work/work.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace graphprof {
namespace {

using Kind = ArgInfo::Kind;

int64_t Product(const std::vector<int64_t>& v, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

const ArgInfo* Arg(const std::vector<ArgInfo>& args, size_t i) { return i < args.size() ? &args[i] : nullptr; }
bool IsTensor(const std::vector<ArgInfo>& args, size_t i) { return i < args.size() && args[i].is_tensor(); }
double Numel(const std::vector<ArgInfo>& args, size_t i) {
  return IsTensor(args, i) ? static_cast<double>(args[i].numel()) : 0;
}
bool Flag(const std::vector<ArgInfo>& args, size_t i) { return i < args.size() && args[i].kind == Kind::kBool && args[i].b; }

// "aten::add_" -> "add"; "prim::mkldnn_convolution" -> "mkldnn_convolution".
std::string BaseName(const std::string& kind) {
  const size_t colon = kind.rfind(':');
  std::string name = colon == std::string::npos ? kind : kind.substr(colon + 1);
  while (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') name.pop_back();
  return name;
}

bool In(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

// --- Families. Each returns the FLOPs of one execution; false when the
// shapes do not determine them. ---

bool Convolution(const std::string& name, const std::vector<ArgInfo>& in, const std::vector<ArgInfo>& out,
                 double* flops) {
  if (!IsTensor(in, 0) || !IsTensor(in, 1) || !IsTensor(out, 0) || in[1].sizes.size() < 3) return false;
  const std::vector<int64_t>& w = in[1].sizes;
  const bool transposed =
      name.find("transpose") != std::string::npos || ((name == "_convolution" || name == "convolution") && Flag(in, 6));
  const double macs_per = static_cast<double>(w[1]) * static_cast<double>(Product(w, 2));
  const double macs = (transposed ? Numel(in, 0) : Numel(out, 0)) * macs_per;
  *flops = 2 * macs + (IsTensor(in, 2) ? Numel(out, 0) : 0);
  return true;
}

// K of a matrix product whose first operand is `a`.
int64_t Inner(const ArgInfo& a) { return a.sizes.empty() ? 1 : a.sizes.back(); }

bool MatrixProduct(const std::string& name, const std::vector<ArgInfo>& in, const std::vector<ArgInfo>& out,
                   double* flops) {
  if (!IsTensor(out, 0)) return false;
  const double result = Numel(out, 0);  // an empty product does no work
  if (name == "linear") {
    if (!IsTensor(in, 0) || !IsTensor(in, 1) || in[1].sizes.size() != 2) return false;
    *flops = 2 * result * static_cast<double>(in[1].sizes[1]) + (IsTensor(in, 2) ? result : 0);
    return true;
  }
  if (name == "matmul" || name == "mm" || name == "bmm" || name == "dot" || name == "mv") {
    if (!IsTensor(in, 0) || !IsTensor(in, 1)) return false;
    *flops = 2 * result * static_cast<double>(Inner(in[0]));
    return true;
  }
  if (name == "addmm" || name == "baddbmm" || name == "addbmm" || name == "addmv") {
    if (!IsTensor(in, 1) || !IsTensor(in, 2)) return false;
    // addbmm sums b products into one [n, p] result: b times the products.
    const double batches = name == "addbmm" && in[1].sizes.size() == 3 ? static_cast<double>(in[1].sizes[0]) : 1;
    *flops = 2 * result * static_cast<double>(Inner(in[1])) * batches + result;
    return true;
  }
  return false;
}

// einsum("ij,jk->ik", [a, b]): 2 x the product of every letter's size when
// a letter is contracted, else the product (an outer or elementwise product).
bool Einsum(const std::vector<ArgInfo>& in, double* flops) {
  const ArgInfo* equation = Arg(in, 0);
  const ArgInfo* operands = Arg(in, 1);
  if (equation == nullptr || equation->kind != Kind::kString || operands == nullptr ||
      operands->kind != Kind::kTensorList || operands->tensors.size() != 2) {
    return false;
  }
  std::string eq;
  for (char c : equation->s) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find("...") != std::string::npos) return false;
  const std::string lhs = eq.substr(0, arrow), rhs = eq.substr(arrow + 2);
  const size_t comma = lhs.find(',');
  if (comma == std::string::npos) return false;
  const std::string terms[2] = {lhs.substr(0, comma), lhs.substr(comma + 1)};
  std::map<char, int64_t> size;
  for (int t = 0; t < 2; ++t) {
    const std::vector<int64_t>& s = operands->tensors[t].sizes;
    if (terms[t].size() != s.size()) return false;
    for (size_t k = 0; k < s.size(); ++k) size[terms[t][k]] = std::max(size[terms[t][k]], s[k]);
  }
  double all = 1;
  bool contracted = false;
  for (const auto& [letter, n] : size) {
    all *= static_cast<double>(n);
    contracted = contracted || rhs.find(letter) == std::string::npos;
  }
  *flops = contracted ? 2 * all : all;
  return true;
}

// Multi-head attention over queries [.., Lq, E] and keys [.., Lk, E]:
// the three input projections, scores, softmax, weighted sum, output projection.
double AttentionFlops(const ArgInfo& query, const ArgInfo& key, double heads) {
  if (query.sizes.size() < 2 || key.sizes.size() < 2) return 0;
  const double e = static_cast<double>(query.sizes.back());
  const double lq = static_cast<double>(query.sizes[query.sizes.size() - 2]);
  const double lk = static_cast<double>(key.sizes[key.sizes.size() - 2]);
  const double batch = static_cast<double>(query.numel()) / std::max(1.0, lq * e);
  const double projections = 2 * batch * (lq + 2 * lk) * e * e + 2 * batch * lq * e * e;
  // Each head scores Lq x Lk pairs over E / heads: 2 B Lq Lk E in all, and
  // softmax 5 per score, B heads Lq Lk scores.
  const double scores = 2 * batch * lq * lk * e + 5 * batch * heads * lq * lk + 2 * batch * lq * lk * e;
  return projections + scores;
}

// Where the mask (a tensor) and is_causal sit in each scaled dot-product
// attention's schema; -1: the op has none.
struct SdpaArgs {
  const char* name;
  int mask;
  int causal;
};
constexpr SdpaArgs kSdpa[] = {
    {"scaled_dot_product_attention", 3, 5},                  // (q, k, v, attn_mask, dropout_p, is_causal)
    {"_scaled_dot_product_attention_math", 3, 5},            // (q, k, v, attn_mask, dropout_p, is_causal, ...)
    {"_scaled_dot_product_flash_attention_for_cpu", 5, 4},   // (q, k, v, dropout_p, is_causal, *, attn_mask)
    {"_scaled_dot_product_flash_attention", -1, 4},          // (q, k, v, dropout_p, is_causal, ...)
    {"_scaled_dot_product_efficient_attention", 3, 6},       // (q, k, v, attn_bias, compute_lse, dropout_p, is_causal)
    {"_scaled_dot_product_cudnn_attention", 3, 6},           // (q, k, v, attn_bias, compute_lse, dropout_p, is_causal)
};

const SdpaArgs* FindSdpa(const std::string& name) {
  for (const SdpaArgs& s : kSdpa) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

// softmax(Q K^T * scale + mask) V over queries [..., L, E], keys [..., S, E]
// and values [..., S, Ev]: every leading dimension of Q (batch, heads; with
// grouped keys too, each query head does its own products) times 2 L S E
// for the scores, 2 L S Ev for the weighted sum, 5 L S for the softmax (as
// softmax is counted everywhere), and L S more with a mask or is_causal.
bool ScaledDotProductAttention(const SdpaArgs& op, const std::vector<ArgInfo>& in, double* flops) {
  if (!IsTensor(in, 0) || !IsTensor(in, 1) || !IsTensor(in, 2)) return false;
  const std::vector<int64_t>& q = in[0].sizes;
  const std::vector<int64_t>& k = in[1].sizes;
  const std::vector<int64_t>& v = in[2].sizes;
  if (q.size() < 2 || k.size() < 2 || v.size() < 2) return false;
  const double l = static_cast<double>(q[q.size() - 2]);
  const double e = static_cast<double>(q.back());
  const double s = static_cast<double>(k[k.size() - 2]);
  const double ev = static_cast<double>(v.back());
  const double n = l * e > 0 ? Numel(in, 0) / (l * e) : 0;
  const bool masked = (op.mask >= 0 && IsTensor(in, static_cast<size_t>(op.mask))) ||
                      (op.causal >= 0 && Flag(in, static_cast<size_t>(op.causal)));
  *flops = n * l * s * (2 * e + 2 * ev + 5 + (masked ? 1 : 0));
  return true;
}

bool Attention(const std::string& name, const std::vector<ArgInfo>& in, double* flops) {
  if (const SdpaArgs* sdpa = FindSdpa(name)) return ScaledDotProductAttention(*sdpa, in, flops);
  if (name == "_native_multi_head_attention") {
    if (!IsTensor(in, 0) || !IsTensor(in, 1)) return false;
    // (query, key, value, embed_dim, num_head, ...)
    const double heads = in.size() > 4 && in[4].kind == Kind::kInt ? static_cast<double>(in[4].i) : 1;
    *flops = AttentionFlops(in[0], in[1], std::max(1.0, heads));
    return true;
  }
  if (name == "_transformer_encoder_layer_fwd") {
    if (!IsTensor(in, 0) || !IsTensor(in, 14)) return false;
    const double tokens = static_cast<double>(in[0].numel()) / std::max<int64_t>(1, Inner(in[0]));
    const double e = static_cast<double>(Inner(in[0]));
    const double f = in[14].sizes.empty() ? 0 : static_cast<double>(in[14].sizes[0]);
    // (src, embed_dim, num_heads, ...)
    const double heads = in.size() > 2 && in[2].kind == Kind::kInt ? static_cast<double>(in[2].i) : 1;
    *flops = AttentionFlops(in[0], in[0], std::max(1.0, heads)) + 2 * 7 * tokens * e  // two layer norms
             + 2 * tokens * e                                 // two residual adds
             + 4 * tokens * e * f + tokens * f + tokens * e;  // the feed-forward block
    return true;
  }
  return false;
}

bool Norm(const std::string& name, const std::vector<ArgInfo>& in, double* flops) {
  if (!IsTensor(in, 0)) return false;
  const double n = Numel(in, 0);
  if (name == "batch_norm" || name == "native_batch_norm" || name == "_native_batch_norm_legit") {
    *flops = (Flag(in, 5) ? 7 : 2) * n;
    return true;
  }
  if (In(name, {"layer_norm", "native_layer_norm", "group_norm", "native_group_norm", "instance_norm"})) {
    *flops = 7 * n;
    return true;
  }
  return false;
}

bool Pooling(const std::string& name, const std::vector<ArgInfo>& in, const std::vector<ArgInfo>& out,
             double* flops) {
  if (name.find("pool") == std::string::npos || !IsTensor(in, 0) || !IsTensor(out, 0)) return false;
  if (name.find("adaptive") != std::string::npos) {
    *flops = Numel(in, 0);
    return true;
  }
  const ArgInfo* kernel = Arg(in, 1);
  if (kernel == nullptr) return false;
  double window = 1;
  if (kernel->kind == Kind::kIntList) {
    for (int64_t k : kernel->ints) window *= static_cast<double>(k);
    // A one-value list means that size in every spatial dimension.
    const size_t spatial = name.find("3d") != std::string::npos ? 3 : name.find("1d") != std::string::npos ? 1 : 2;
    if (kernel->ints.size() == 1) window = std::pow(window, static_cast<double>(spatial));
  } else if (kernel->kind == Kind::kInt) {
    window = static_cast<double>(kernel->i);
  } else {
    return false;
  }
  *flops = Numel(out, 0) * window + (name.find("avg") != std::string::npos ? Numel(out, 0) : 0);
  return true;
}

// One LSTM/GRU/RNN step per time step, batch element, layer and direction:
// the two matrix-vector products (2 x weight elements), biases, gates.
bool Recurrent(const std::string& name, const std::vector<ArgInfo>& in, double* flops) {
  const bool lstm = name.find("lstm") != std::string::npos;
  const double gate_ops = lstm ? 10 : name.find("gru") != std::string::npos ? 8 : 2;
  if (name == "lstm" || name == "gru" || name == "rnn_tanh" || name == "rnn_relu") {
    // (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
    const ArgInfo* params = Arg(in, 2);
    if (!IsTensor(in, 0) || params == nullptr || params->kind != Kind::kTensorList || in[0].sizes.size() != 3) {
      return false;  // packed sequences take another overload
    }
    // [T, B, I] or, batch first, [B, T, I]: T x B steps either way.
    const double steps = static_cast<double>(in[0].sizes[0] * in[0].sizes[1]);
    double per_step = 0;
    for (const ArgInfo& w : params->tensors) {
      if (w.sizes.size() == 2) per_step += 2 * static_cast<double>(w.numel());
      if (w.sizes.size() == 1) per_step += static_cast<double>(w.numel());
    }
    // Gate work: H per layer and direction, from each hidden-hidden weight [G*H, H].
    double hidden = 0;
    for (size_t k = 1; k < params->tensors.size(); k += Flag(in, 3) ? 4 : 2) {
      const ArgInfo& w_hh = params->tensors[k];
      if (w_hh.sizes.size() == 2) hidden += static_cast<double>(w_hh.sizes[1]);
    }
    *flops = steps * (per_step + gate_ops * hidden);
    return true;
  }
  if (name == "lstm_cell" || name == "gru_cell" || name == "rnn_tanh_cell" || name == "rnn_relu_cell") {
    // (input, hx, w_ih, w_hh, b_ih, b_hh)
    if (!IsTensor(in, 0) || !IsTensor(in, 2) || !IsTensor(in, 3) || in[0].sizes.size() != 2) return false;
    const double batch = static_cast<double>(in[0].sizes[0]);
    const double h = static_cast<double>(in[3].sizes.size() == 2 ? in[3].sizes[1] : 0);
    *flops = batch * (2 * Numel(in, 2) + 2 * Numel(in, 3) + Numel(in, 4) + Numel(in, 5) + gate_ops * h);
    return true;
  }
  return false;
}

// Ops per output element of elementwise kinds.
int Elementwise(const std::string& name) {
  if (In(name, {"relu", "relu6", "gelu", "sigmoid", "tanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                "sqrt", "rsqrt", "neg", "abs", "hardtanh", "hardswish", "hardsigmoid", "silu", "mish", "clamp",
                "clamp_min", "clamp_max", "elu", "selu", "celu", "leaky_relu", "softplus", "sin", "cos", "tan",
                "reciprocal", "sign", "floor", "ceil", "round", "trunc", "frac", "erf", "erfc", "threshold",
                "square", "pow", "add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "maximum",
                "minimum", "fmod", "remainder", "eq", "ne", "lt", "le", "gt", "ge", "where", "masked_fill",
                "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or",
                "bitwise_xor", "bitwise_not", "MKLDNNHardTanh", "MKLDNNHardSwish", "MKLDNNHardSigmoid",
                "MKLDNNRelu6", "isnan", "nan_to_num", "lerp", "hypot", "atan2", "glu", "prelu"})) {
    return 1;
  }
  if (In(name, {"_add_relu", "addcmul", "addcdiv", "upsample_bilinear2d"})) return name == "_add_relu" ? 2 : 3;
  return 0;
}

bool Reduction(const std::string& name) {
  return In(name, {"sum", "mean", "amax", "amin", "max", "min", "prod", "norm", "frobenius_norm", "var", "std",
                   "var_mean", "std_mean", "argmax", "argmin", "logsumexp", "all", "any", "cumsum", "cumprod",
                   "nansum", "count_nonzero", "linalg_vector_norm"});
}

// Kinds that only move or reshape data, or make tensors: 0 FLOPs.
bool DataMovement(const std::string& name) {
  return In(name, {"view", "reshape", "flatten", "unflatten", "permute", "transpose", "t", "contiguous", "clone",
                   "copy", "to", "type_as", "expand", "expand_as", "squeeze", "unsqueeze", "select", "slice",
                   "narrow", "chunk", "split", "split_with_sizes", "unbind", "cat", "concat", "stack", "index",
                   "index_select", "gather", "scatter", "index_put", "masked_select", "repeat", "tile", "roll",
                   "flip", "pad", "constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
                   "replication_pad2d", "dropout", "feature_dropout", "alpha_dropout", "detach", "view_as",
                   "reshape_as", "zeros", "ones", "full", "empty", "arange", "linspace", "zeros_like", "ones_like",
                   "empty_like", "full_like", "rand", "randn", "rand_like", "randn_like", "new_zeros", "new_ones",
                   "new_empty", "new_full", "fill", "zero", "to_mkldnn", "to_dense", "ConstantChunk",
                   "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "embedding", "one_hot",
                   "tensor", "as_tensor", "masked_scatter", "diagonal", "tril", "triu", "movedim", "swapaxes",
                   "lift_fresh", "alias", "_reshape_alias", "channel_shuffle", "pixel_shuffle", "flatten_dense_tensors"});
}

// Whether a floating tensor is among the arguments (a comparison of floats
// is floating-point work; `x & mask` on integers is not).
bool AnyFloating(const std::vector<ArgInfo>& inputs, const std::vector<ArgInfo>& outputs) {
  for (const std::vector<ArgInfo>* list : {&inputs, &outputs}) {
    for (const ArgInfo& a : *list) {
      if (a.kind == Kind::kTensor && a.floating) return true;
    }
  }
  return false;
}

// Nodes that no tensor passes through: the graph's own bookkeeping.
bool NoTensors(const std::vector<ArgInfo>& args) {
  for (const ArgInfo& a : args) {
    if (a.kind == Kind::kTensor || a.kind == Kind::kTensorList) return false;
  }
  return true;
}

}  // namespace

int64_t ArgInfo::numel() const {
  if (kind != Kind::kTensor) return 0;
  return Product(sizes);
}

double TensorBytes(const std::vector<ArgInfo>& inputs, const std::vector<ArgInfo>& outputs) {
  std::map<const void*, int64_t> by_storage;  // largest view of each storage
  double loose = 0;                             // tensors without a storage identity
  auto add = [&](const ArgInfo& t) {
    if (t.kind != Kind::kTensor) return;
    if (t.storage == nullptr) {
      loose += static_cast<double>(t.bytes());
      return;
    }
    int64_t& b = by_storage[t.storage];
    b = std::max(b, t.bytes());
  };
  for (const std::vector<ArgInfo>* list : {&inputs, &outputs}) {
    for (const ArgInfo& a : *list) {
      add(a);
      for (const ArgInfo& t : a.tensors) add(t);
    }
  }
  double bytes = loose;
  for (const auto& [storage, b] : by_storage) bytes += static_cast<double>(b);
  return bytes;
}

bool WorkReadsArguments(const std::string& kind) {
  const std::string name = BaseName(kind);
  const bool prim = kind.rfind("prim::", 0) == 0;
  // The graph's own nodes: If/Loop count their blocks' nodes, not themselves.
  if (prim && In(name, {"Constant", "GetAttr", "SetAttr", "ListConstruct", "ListUnpack", "TupleConstruct",
                        "TupleUnpack", "TupleIndex", "TupleSlice", "DictConstruct", "If", "Loop", "unchecked_cast",
                        "NumToTensor", "ConstantMKLDNNTensor", "fork", "isinstance", "Uninitialized", "device",
                        "dtype", "RaiseException", "Print", "requires_grad"})) {
    return false;
  }
  // Tensor metadata and container access: read, not computed.
  return !In(name, {"wait", "warn", "size", "dim", "len", "numel", "__getitem__", "item", "Int", "Float",
                    "ScalarImplicit", "format", "append", "__is__", "__isnot__", "list"}) &&
         !In(name, {"is_cuda", "is_cpu", "is_mkldnn", "is_quantized", "is_sparse", "is_meta", "is_xpu", "is_nested",
                    "is_floating_point", "is_complex", "is_contiguous", "layout", "stride", "storage_offset",
                    "device", "dtype", "requires_grad", "is_leaf"});
}

Work CountWork(const std::string& kind, const std::vector<ArgInfo>& inputs, const std::vector<ArgInfo>& outputs) {
  Work work;
  if (!WorkReadsArguments(kind)) {
    work.counted = true;  // no work, whatever the arguments
    return work;
  }
  const std::string name = BaseName(kind);
  if (NoTensors(inputs) && NoTensors(outputs)) {
    work.counted = true;  // scalars, strings, containers of them: no work worth counting
    return work;
  }
  work.bytes = TensorBytes(inputs, outputs);
  double flops = 0;
  if (name.find("conv") != std::string::npos && name != "convert_element_type") {
    work.counted = Convolution(name, inputs, outputs, &flops);
  } else if (In(name, {"linear", "matmul", "mm", "bmm", "dot", "mv", "addmm", "baddbmm", "addbmm", "addmv"})) {
    work.counted = MatrixProduct(name, inputs, outputs, &flops);
  } else if (name == "einsum") {
    work.counted = Einsum(inputs, &flops);
  } else if (name == "_native_multi_head_attention" || name == "_transformer_encoder_layer_fwd" ||
             FindSdpa(name) != nullptr) {
    work.counted = Attention(name, inputs, &flops);
  } else if (name.find("norm") != std::string::npos && !Reduction(name)) {
    work.counted = Norm(name, inputs, &flops);
  } else if (In(name, {"softmax", "log_softmax", "_softmax", "_log_softmax"})) {
    flops = 5 * Numel(inputs, 0);
    work.counted = IsTensor(inputs, 0);
  } else if (name.find("pool") != std::string::npos) {
    work.counted = Pooling(name, inputs, outputs, &flops);
  } else if (name.find("lstm") != std::string::npos || name.find("gru") != std::string::npos ||
             name.rfind("rnn_", 0) == 0) {
    work.counted = Recurrent(name, inputs, &flops);
  } else if (const int per = Elementwise(name); per > 0) {
    // Integer and bool arithmetic (index math, masks) is no floating-point work.
    flops = AnyFloating(inputs, outputs) ? per * Numel(outputs, 0) : 0;
    work.counted = IsTensor(outputs, 0);
  } else if (Reduction(name)) {
    flops = IsTensor(inputs, 0) && inputs[0].floating ? Numel(inputs, 0) : 0;
    work.counted = IsTensor(inputs, 0);
  } else if (name == "embedding_bag" || name == "_embedding_bag") {
    // Gathered rows are added up: indices x embedding dim.
    flops = Numel(inputs, 1) * (IsTensor(inputs, 0) && inputs[0].sizes.size() == 2 ? inputs[0].sizes[1] : 0);
    work.counted = IsTensor(inputs, 0);
  } else if (DataMovement(name)) {
    work.counted = true;
  }
  work.flops = work.counted ? flops : 0;
  if (!work.counted) work.bytes = 0;
  return work;
}

}  // namespace graphprof
