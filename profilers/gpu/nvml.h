// NVML: the NVIDIA driver's management library (libnvidia-ml, what
// nvidia-smi reads), loaded at run time with dlopen. graphprof has no build
// dependency on it: where the driver is not installed, Load() says so and
// the device memory fields that need it are absent.
//
//   absl::StatusOr<Nvml*> nvml = ProcessNvml();
//   if (nvml.ok()) { absl::StatusOr<DeviceMemoryInfo> m = (*nvml)->MemoryInfo(0); }
//
// The declarations graphprof needs are its own (the CUDA toolkit here ships
// no nvml.h); they follow NVML's stable C ABI: nvmlInit_v2, nvmlShutdown,
// nvmlErrorString, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
// nvmlDeviceGetHandleByPciBusId_v2 and nvmlDeviceGetMemoryInfo (version 1 of
// nvmlMemory_t: total, free, used; "used" includes the driver's reserved
// memory, as older nvidia-smi versions print it).
#ifndef GRAPHPROF_PROFILERS_GPU_NVML_H_
#define GRAPHPROF_PROFILERS_GPU_NVML_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "profilers/gpu/device_memory.h"

namespace graphprof {

class Nvml {
 public:
  static constexpr char kLibrary[] = "libnvidia-ml.so.1";

  // Loads `library` (a name for the dynamic linker's search, or a path) and
  // initialises NVML. Unavailable, with the reason, when the library is
  // missing, lacks a function, or NVML cannot initialise (no driver loaded).
  static absl::StatusOr<std::unique_ptr<Nvml>> Load(const std::string& library = kLibrary);
  ~Nvml();  // nvmlShutdown, then unloads the library
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  absl::StatusOr<int> DeviceCount();
  // By NVML's device index (nvidia-smi's numbering; CUDA's may differ,
  // e.g. under CUDA_VISIBLE_DEVICES: prefer the PCI bus id).
  absl::StatusOr<DeviceMemoryInfo> MemoryInfo(int index);
  // By PCI bus id ("0000:3B:00.0", as cudaDeviceGetPCIBusId writes it).
  absl::StatusOr<DeviceMemoryInfo> MemoryInfoByPciBusId(const std::string& bus_id);

 private:
  struct Api;
  Nvml(void* handle, std::unique_ptr<Api> api);
  absl::StatusOr<DeviceMemoryInfo> MemoryInfoOf(void* device, std::string name);
  absl::Status Error(const char* what, int code) const;

  void* handle_;
  std::unique_ptr<Api> api_;
};

// The process's NVML (libnvidia-ml.so.1 by the loader's search, else from
// /usr/local/nvidia/lib64, /usr/lib/x86_64-linux-gnu or /usr/lib64), loaded
// on first use and kept; the same error on every call when it cannot be loaded.
absl::StatusOr<Nvml*> ProcessNvml();

// Free/used memory of CUDA device `cuda_device` (the CUDA runtime's
// numbering, matched to NVML's device by PCI bus id). Needs a build with
// --config=cuda, a device and the driver's libnvidia-ml; otherwise every
// Read() says which is missing.
std::unique_ptr<DeviceMemoryInfoSource> MakeNvmlMemoryInfo(int cuda_device);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_NVML_H_
