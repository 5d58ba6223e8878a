// Model and data sizes (torch_geometric.profile's count_parameters,
// get_model_size and get_data_size, in C++).
#ifndef GRAPHPROF_PROFILERS_TOOLBOX_SIZES_H_
#define GRAPHPROF_PROFILERS_TOOLBOX_SIZES_H_

#include <torch/script.h>

#include <cstdint>

#include "absl/status/statusor.h"

namespace graphprof {

// Number of parameter elements, recursively; only those requiring grad when
// `trainable_only` (the default, like count_parameters).
int64_t CountParameters(const torch::jit::Module& module, bool trainable_only = true);

// Bytes of the module as saved by Module::save (in memory, nothing on disk).
absl::StatusOr<int64_t> SerializedModelSize(const torch::jit::Module& module);

// Bytes of the tensors in an IValue tree, each storage counted once (views
// and repeated references share one storage).
int64_t DataSize(const c10::IValue& value);
int64_t DataSize(const std::vector<c10::IValue>& values);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_TOOLBOX_SIZES_H_
