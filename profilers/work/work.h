// The work one node execution does: floating-point operations and bytes
// moved, from its kind and the shapes, dtypes and scalar arguments of its
// inputs and outputs (seen in the inspection run). docs/roofline.md gives the
// conventions; in short:
//
//   FLOPs   a multiply-add is 2. Convolutions (any dimension, grouped,
//           depthwise, transposed, MKLDNN), linear / matmul / mm / bmm /
//           addmm / baddbmm / einsum (two operands), the fused attention and
//           encoder-layer kinds, LSTM / GRU (and cells): their arithmetic.
//           Elementwise ops: 1 per output element (in-place too, broadcast
//           outputs). Reductions: 1 per input element. Softmax: 5 per
//           element. Norms: batch norm in eval 2 per element (scale and
//           shift), in training 7; layer / group / instance norm 7 (mean,
//           variance, normalize, scale, shift). Pooling: 1 per window
//           element per output (adaptive: 1 per input element).
//   bytes   the logical size (elements x element size) of every tensor read
//           and written, each storage once (an in-place output is its input);
//           a view counts what it covers, not its whole storage.
//
// Data movement (views, reshape, cat, index, copy, ...) and the graph's own
// nodes (constants, attributes, containers, control flow) are counted with 0
// FLOPs. Kinds in neither list are *not counted* (Work::counted false), and
// reports list them with their share of time: never a silent zero.
#ifndef GRAPHPROF_PROFILERS_WORK_WORK_H_
#define GRAPHPROF_PROFILERS_WORK_WORK_H_

#include <cstdint>
#include <string>
#include <vector>

namespace graphprof {

// One input or output of a node, as much of it as counting needs.
struct ArgInfo {
  enum class Kind { kNone, kTensor, kInt, kDouble, kBool, kIntList, kString, kTensorList, kOther };
  Kind kind = Kind::kOther;
  // kTensor: logical shape and element size; kTensorList: one per element in `tensors`.
  std::vector<int64_t> sizes;
  int64_t element_size = 0;
  bool floating = false;
  const void* storage = nullptr;  // identity of the tensor's storage (bytes counted once)
  std::vector<ArgInfo> tensors;   // kTensorList
  // Scalars.
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::vector<int64_t> ints;  // kIntList
  std::string s;              // kString

  int64_t numel() const;
  int64_t bytes() const { return numel() * element_size; }
  bool is_tensor() const { return kind == Kind::kTensor; }
};

struct Work {
  double flops = 0;
  double bytes = 0;
  bool counted = false;
};

// The work of one execution of a node of `kind` ("aten::conv2d").
Work CountWork(const std::string& kind, const std::vector<ArgInfo>& inputs, const std::vector<ArgInfo>& outputs);

// False for kinds CountWork counts as no work whatever their arguments (the
// graph's own nodes, tensor metadata, container access): a caller may pass
// no ArgInfo for them. Describing a 100,000-element list for every
// __getitem__ of a loop over it made profiling quadratic in its length.
bool WorkReadsArguments(const std::string& kind);

// Bytes of the tensors among `inputs` and `outputs`, each storage once (the
// largest view of it), as CountWork adds them.
double TensorBytes(const std::vector<ArgInfo>& inputs, const std::vector<ArgInfo>& outputs);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_WORK_WORK_H_
