#include "profilers/gpu/nvml.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "profilers/gpu/cuda_runtime.h"

namespace graphprof {
namespace {

// NVML's C ABI (nvml.h): return codes are an int enum, 0 is success.
constexpr int kNvmlSuccess = 0;
struct NvmlMemoryV1 {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
using NvmlDevice = void*;

}  // namespace

struct Nvml::Api {
  int (*init)();
  int (*shutdown)();
  const char* (*error_string)(int);
  int (*device_count)(unsigned int*);
  int (*handle_by_index)(unsigned int, NvmlDevice*);
  int (*handle_by_pci_bus_id)(const char*, NvmlDevice*);
  int (*memory_info)(NvmlDevice, NvmlMemoryV1*);
};

absl::StatusOr<std::unique_ptr<Nvml>> Nvml::Load(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(absl::StrCat("NVML not loaded (no NVIDIA driver?): ", why ? why : library));
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  auto find = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  find(api->init, "nvmlInit_v2");
  find(api->shutdown, "nvmlShutdown");
  find(api->error_string, "nvmlErrorString");
  find(api->device_count, "nvmlDeviceGetCount_v2");
  find(api->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  find(api->handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  find(api->memory_info, "nvmlDeviceGetMemoryInfo");
  if (!missing.empty()) {
    dlclose(handle);
    return absl::UnavailableError(absl::StrCat("NVML not usable: ", library, " has no ", missing));
  }
  if (const int code = api->init(); code != kNvmlSuccess) {
    // The message lives in the library: copy it before unloading.
    const char* text = api->error_string(code);
    std::string message = text != nullptr ? text : "error";
    dlclose(handle);
    return absl::UnavailableError(absl::StrCat("NVML did not initialise: ", message, " (", code, ")"));
  }
  return std::unique_ptr<Nvml>(new Nvml(handle, std::move(api)));
}

Nvml::Nvml(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(handle_);
}

absl::Status Nvml::Error(const char* what, int code) const {
  const char* text = api_->error_string(code);
  return absl::UnavailableError(absl::StrCat(what, ": ", text ? text : "error", " (NVML ", code, ")"));
}

absl::StatusOr<int> Nvml::DeviceCount() {
  unsigned int count = 0;
  if (const int code = api_->device_count(&count); code != kNvmlSuccess) return Error("nvmlDeviceGetCount", code);
  return static_cast<int>(count);
}

absl::StatusOr<DeviceMemoryInfo> Nvml::MemoryInfoOf(void* device, std::string name) {
  NvmlMemoryV1 memory{};
  if (const int code = api_->memory_info(device, &memory); code != kNvmlSuccess) {
    return Error("nvmlDeviceGetMemoryInfo", code);
  }
  DeviceMemoryInfo info;
  info.device = std::move(name);
  info.total_bytes = static_cast<int64_t>(memory.total);
  info.free_bytes = static_cast<int64_t>(memory.free);
  info.used_bytes = static_cast<int64_t>(memory.used);
  return info;
}

absl::StatusOr<DeviceMemoryInfo> Nvml::MemoryInfo(int index) {
  NvmlDevice device = nullptr;
  if (index < 0) return absl::InvalidArgumentError(absl::StrCat("NVML device index ", index, " is negative"));
  if (const int code = api_->handle_by_index(static_cast<unsigned int>(index), &device); code != kNvmlSuccess) {
    return Error(absl::StrCat("NVML device ", index).c_str(), code);
  }
  return MemoryInfoOf(device, absl::StrCat("nvml:", index));
}

absl::StatusOr<DeviceMemoryInfo> Nvml::MemoryInfoByPciBusId(const std::string& bus_id) {
  NvmlDevice device = nullptr;
  if (const int code = api_->handle_by_pci_bus_id(bus_id.c_str(), &device); code != kNvmlSuccess) {
    return Error(absl::StrCat("NVML device at PCI ", bus_id).c_str(), code);
  }
  return MemoryInfoOf(device, absl::StrCat("pci:", bus_id));
}

absl::StatusOr<Nvml*> ProcessNvml() {
  static std::once_flag once;
  static absl::StatusOr<std::unique_ptr<Nvml>>* loaded = nullptr;  // never destroyed: used until exit
  std::call_once(once, [] {
    // The loader's search first; then where drivers are installed or mounted
    // when that search does not cover them (containers mount the driver's
    // libraries under /usr/local/nvidia).
    loaded = new absl::StatusOr<std::unique_ptr<Nvml>>(Nvml::Load());
    if (loaded->ok() || !absl::StrContains(loaded->status().message(), "not loaded")) return;
    for (const char* path : {"/usr/local/nvidia/lib64/libnvidia-ml.so.1", "/usr/local/nvidia/lib/libnvidia-ml.so.1",
                             "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"}) {
      absl::StatusOr<std::unique_ptr<Nvml>> found = Nvml::Load(path);
      if (found.ok()) {
        *loaded = std::move(found);
        return;
      }
    }
  });
  if (!loaded->ok()) return loaded->status();
  return loaded->value().get();
}

namespace {

class NvmlMemoryInfoSource final : public DeviceMemoryInfoSource {
 public:
  NvmlMemoryInfoSource(Nvml* nvml, std::string bus_id, int cuda_device)
      : nvml_(nvml), bus_id_(std::move(bus_id)), cuda_device_(cuda_device) {}
  absl::StatusOr<DeviceMemoryInfo> Read() override {
    absl::StatusOr<DeviceMemoryInfo> info = nvml_->MemoryInfoByPciBusId(bus_id_);
    if (info.ok()) info->device = absl::StrCat("cuda:", cuda_device_);
    return info;
  }

 private:
  Nvml* nvml_;
  std::string bus_id_;
  int cuda_device_;
};

}  // namespace

std::unique_ptr<DeviceMemoryInfoSource> MakeNvmlMemoryInfo(int cuda_device) {
  absl::StatusOr<std::string> bus_id = CudaPciBusId(cuda_device);
  if (!bus_id.ok()) return UnavailableDeviceMemoryInfo(bus_id.status());
  absl::StatusOr<Nvml*> nvml = ProcessNvml();
  if (!nvml.ok()) return UnavailableDeviceMemoryInfo(nvml.status());
  return std::make_unique<NvmlMemoryInfoSource>(*nvml, *std::move(bus_id), cuda_device);
}

}  // namespace graphprof
