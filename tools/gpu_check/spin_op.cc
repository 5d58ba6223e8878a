// graphprof_gpu::spin(Tensor(a) x, int us) -> Tensor(a): launches a CUDA
// kernel that runs for `us` microseconds and returns at once (the launch is
// asynchronous). Works with any LibTorch, CPU-only included: it uses the CUDA
// runtime directly and passes its input through.
#include <cuda_runtime_api.h>
#include <torch/library.h>

extern "C" int graphprof_launch_spin(int64_t microseconds);

namespace {

at::Tensor Spin(const at::Tensor& x, int64_t us) {
  const int err = graphprof_launch_spin(us);
  TORCH_CHECK(err == 0, "graphprof_gpu::spin: kernel launch failed: ",
              cudaGetErrorString(static_cast<cudaError_t>(err)));
  return x;
}

}  // namespace

TORCH_LIBRARY(graphprof_gpu, m) { m.def("spin(Tensor(a) x, int us) -> Tensor(a)", &Spin); }
