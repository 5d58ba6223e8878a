#include "profilers/gpu/cuda_runtime.h"

#include "absl/strings/str_cat.h"

#ifdef GRAPHPROF_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace graphprof {

absl::Status CudaStatus::ToStatus() const {
  if (available) return absl::OkStatus();
  return absl::UnavailableError(detail.empty() ? reason : absl::StrCat(reason, " (", detail, ")"));
}

#ifdef GRAPHPROF_WITH_CUDA
namespace {

absl::Status CudaError(const char* what, cudaError_t err) {
  return absl::InternalError(absl::StrCat(what, ": ", cudaGetErrorString(err)));
}

class CudaEventApi final : public EventApi {
 public:
  explicit CudaEventApi(std::string name) : name_(std::move(name)) {}

  absl::Status Create(size_t count, std::vector<Event>* events) override {
    for (size_t i = 0; i < count; ++i) {
      cudaEvent_t event;
      if (cudaError_t err = cudaEventCreate(&event); err != cudaSuccess) return CudaError("cudaEventCreate", err);
      events->push_back(event);
    }
    return absl::OkStatus();
  }
  void Destroy(const std::vector<Event>& events) override {
    for (Event e : events) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  }
  void Record(Event event) override { cudaEventRecord(static_cast<cudaEvent_t>(event), /*stream=*/0); }
  absl::Status Synchronize(Event event) override {
    if (cudaError_t err = cudaEventSynchronize(static_cast<cudaEvent_t>(event)); err != cudaSuccess) {
      return CudaError("cudaEventSynchronize", err);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> ElapsedMs(Event start, Event stop) override {
    float ms = 0;
    if (cudaError_t err = cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop));
        err != cudaSuccess) {
      return CudaError("cudaEventElapsedTime", err);
    }
    return static_cast<double>(ms);
  }
  std::string DeviceName() const override { return name_; }

 private:
  std::string name_;
};

}  // namespace

CudaStatus ProbeCuda() {
  CudaStatus status;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    status.reason = "no CUDA device";
    status.detail = err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount found 0 devices";
    cudaGetLastError();  // clear the sticky error
    return status;
  }
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    status.device_name = absl::StrCat("cuda:", device, " ", prop.name);
  } else {
    status.device_name = absl::StrCat("cuda:", device);
  }
  status.available = true;
  return status;
}

bool SynchronizeCuda() { return cudaDeviceSynchronize() == cudaSuccess; }

int CurrentCudaDevice() {
  static const bool available = ProbeCuda().available;
  int device = -1;
  if (!available || cudaGetDevice(&device) != cudaSuccess) return -1;
  return device;
}

absl::StatusOr<std::string> CudaPciBusId(int device) {
  if (CudaStatus cuda = ProbeCuda(); !cuda.available) return cuda.ToStatus();
  char bus_id[32] = {};
  if (cudaError_t err = cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device); err != cudaSuccess) {
    cudaGetLastError();
    return absl::InvalidArgumentError(absl::StrCat("CUDA device ", device, ": ", cudaGetErrorString(err)));
  }
  return std::string(bus_id);
}

std::unique_ptr<EventApi> MakeCudaEventApi() {
  CudaStatus status = ProbeCuda();
  if (!status.available) return nullptr;
  return std::make_unique<CudaEventApi>(status.device_name);
}

#else  // !GRAPHPROF_WITH_CUDA

CudaStatus ProbeCuda() {
  CudaStatus status;
  status.reason = "graphprof was built without CUDA";
  status.detail = "rebuild with --config=cuda";
  return status;
}

bool SynchronizeCuda() { return false; }

int CurrentCudaDevice() { return -1; }

absl::StatusOr<std::string> CudaPciBusId(int device) { return ProbeCuda().ToStatus(); }

std::unique_ptr<EventApi> MakeCudaEventApi() { return nullptr; }

#endif

}  // namespace graphprof
