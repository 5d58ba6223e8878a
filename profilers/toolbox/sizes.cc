#include "profilers/toolbox/sizes.h"

#include <sstream>

#include "ir/ivalue_util.h"
#include "common/status_util.h"

namespace graphprof {

int64_t CountParameters(const torch::jit::Module& module, bool trainable_only) {
  int64_t count = 0;
  for (const at::Tensor& p : module.parameters(/*recurse=*/true)) {
    if (!trainable_only || p.requires_grad()) count += p.numel();
  }
  return count;
}

absl::StatusOr<int64_t> SerializedModelSize(const torch::jit::Module& module) {
  try {
    std::ostringstream out;
    module.save(out);
    return static_cast<int64_t>(out.str().size());
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInternal, "serializing the module", e);
  }
}

int64_t DataSize(const c10::IValue& value) { return IValueBytes(value); }

int64_t DataSize(const std::vector<c10::IValue>& values) { return IValueBytes(absl::MakeConstSpan(values)); }

}  // namespace graphprof
