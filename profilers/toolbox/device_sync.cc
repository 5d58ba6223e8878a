#include "profilers/toolbox/device_sync.h"

#include <torch/cuda.h>

#include "profilers/gpu/cuda_runtime.h"

namespace graphprof {

bool SynchronizeDevice() {
  static const bool runtime = ProbeCuda().available;  // false unless built with --config=cuda
  if (runtime) return SynchronizeCuda();
  static const bool torch_cuda = torch::cuda::is_available();  // false on a CPU LibTorch
  if (!torch_cuda) return false;
  try {
    torch::cuda::synchronize();
  } catch (const std::exception&) {
    return false;  // a device error surfaces at the next CUDA call that checks
  }
  return true;
}

}  // namespace graphprof
