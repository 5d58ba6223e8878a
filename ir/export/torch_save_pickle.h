// The pickle of a torch.save archive (its data.pkl), read into plain values
// without LibTorch: what torch.export writes into a .pt2 (the state dict of
// parameters and buffers, the constants, the example inputs) and what
// graphprof.save_export adds (reference outputs).
//
// LibTorch's own unpickler cannot read these: a parameter is pickled as
// torch._utils._rebuild_parameter, which it refuses ("Unpickler found
// unknown type"), in 1.13 and 2.6 alike. This reader takes the subset that
// torch.save writes for tensors and the containers around them: None,
// bools, ints, floats, strings, tuples, lists, dicts and OrderedDicts,
// tensors (_rebuild_tensor_v2) and parameters (_rebuild_parameter, and
// _rebuild_parameter_with_state, its state dropped) whose
// storages are persistent ids ("storage", torch.<Type>Storage, key, location,
// element count). Any other global is refused by name; a damaged pickle
// (stack underflow, a mark missing, a tuple where a list must be, ...) is
// refused with its offset. Nothing here allocates by what the pickle claims
// beyond its own length: tensors are descriptions (dtype, storage key and
// element count, offset, sizes, strides) checked to lie inside their storage.
#ifndef GRAPHPROF_IR_EXPORT_TORCH_SAVE_PICKLE_H_
#define GRAPHPROF_IR_EXPORT_TORCH_SAVE_PICKLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// A tensor of the pickle: a view of storage `key` (data/<key> in the archive).
struct PickledTensor {
  std::string storage_key;
  std::string storage_type;    // "FloatStorage", ...
  int64_t element_bytes = 0;   // of the storage type
  int64_t storage_numel = 0;   // elements the storage holds
  int64_t offset = 0;          // in elements
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  bool requires_grad = false;
  bool parameter = false;      // _rebuild_parameter
};

struct PickleValue {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kTuple, kList, kDict, kTensor };
  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::shared_ptr<PickleValue>> items;  // tuple, list; dict: key, value, key, value, ...
  PickledTensor tensor;
  // Levels of values, this one included, and values reached walking it
  // (a shared one each time it is reached): both bounded (kMaxPickle*).
  int depth = 1;
  int64_t reached = 1;
  // The reader's own: inside a container already (complete), and a storage
  // not yet made a tensor by _rebuild_tensor_v2.
  bool sealed_by_reader = false;
  bool storage_only = false;
};
using PickleValuePtr = std::shared_ptr<PickleValue>;

// Values more deeply nested, or more of them, are refused.
inline constexpr int kMaxPickleDepth = 100;
inline constexpr int64_t kMaxPickleValues = int64_t{1} << 22;

// Reads `pickle`. InvalidArgument with one sentence ("the pickle holds
// builtins.eval, which graphprof does not read", "the pickle is damaged: ...
// at offset N").
absl::StatusOr<PickleValuePtr> ReadTorchSavePickle(absl::string_view pickle);

// The element size of torch.<name> storages graphprof reads ("FloatStorage"
// -> 4), or 0.
int64_t StorageElementBytes(absl::string_view storage_type);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_EXPORT_TORCH_SAVE_PICKLE_H_
