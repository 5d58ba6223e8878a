// The CUDA runtime behind the device profilers: is there a device, and
// events on it. Compiled against the CUDA toolkit under --config=cuda (any
// LibTorch works: only the runtime API on the default stream is used);
// otherwise ProbeCuda() reports that graphprof was built without CUDA.
#ifndef GRAPHPROF_PROFILERS_GPU_CUDA_RUNTIME_H_
#define GRAPHPROF_PROFILERS_GPU_CUDA_RUNTIME_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profilers/gpu/device_timer.h"

namespace graphprof {

struct CudaStatus {
  bool available = false;
  // Why not, one line: "no CUDA device" or "graphprof was built without CUDA".
  std::string reason;
  // More detail from the runtime, e.g. "CUDA driver version is insufficient
  // for CUDA runtime version".
  std::string detail;
  std::string device_name;  // "cuda:0 NVIDIA H200"

  // OK when available, else Unavailable("<reason> (<detail>)").
  absl::Status ToStatus() const;
};

CudaStatus ProbeCuda();

// The calling thread's current CUDA device, or -1 without CUDA or a device.
int CurrentCudaDevice();

// The PCI bus id of CUDA device `device` ("0000:3B:00.0"): how NVML's
// numbering is matched to CUDA's. Unavailable without CUDA or a device.
absl::StatusOr<std::string> CudaPciBusId(int device);

// cudaDeviceSynchronize() on the current device: true when it succeeded;
// false without CUDA (or a device).
bool SynchronizeCuda();

// Events on the current device's default stream; null unless ProbeCuda() is available.
std::unique_ptr<EventApi> MakeCudaEventApi();

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_CUDA_RUNTIME_H_
