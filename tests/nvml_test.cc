// NVML loaded at run time: against a stand-in library with NVML's C ABI
// (tests/fake_nvml.cc), and the real one's absence on a machine without the
// NVIDIA driver.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/nvml.h"

namespace graphprof {
namespace {

constexpr char kFake[] = "tests/libfake_nvml.so";

// The fake's controls, from the same loaded copy Nvml::Load opens.
struct FakeControls {
  FakeControls() {
    handle = dlopen(kFake, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    set = reinterpret_cast<decltype(set)>(dlsym(handle, "FakeNvmlSet"));
    fail_init = reinterpret_cast<decltype(fail_init)>(dlsym(handle, "FakeNvmlFailInit"));
    initialised = reinterpret_cast<decltype(initialised)>(dlsym(handle, "FakeNvmlInitialised"));
  }
  ~FakeControls() { dlclose(handle); }
  void* handle = nullptr;
  void (*set)(int, unsigned long long, unsigned long long, unsigned long long) = nullptr;
  void (*fail_init)(int) = nullptr;
  int (*initialised)() = nullptr;
};

TEST(NvmlTest, ReadsMemoryThroughTheCAbi) {
  FakeControls fake;
  ASSERT_NE(fake.set, nullptr);
  fake.set(0, 80'000'000'000ull, 60'000'000'000ull, 20'000'000'000ull);
  fake.set(1, 16'000'000'000ull, 15'000'000'000ull, 1'000'000'000ull);
  {
    absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Load(kFake);
    ASSERT_TRUE(nvml.ok()) << nvml.status();
    EXPECT_EQ(fake.initialised(), 1) << "nvmlInit_v2 called once";
    absl::StatusOr<int> count = (*nvml)->DeviceCount();
    ASSERT_TRUE(count.ok()) << count.status();
    EXPECT_EQ(*count, 2);

    absl::StatusOr<DeviceMemoryInfo> first = (*nvml)->MemoryInfo(0);
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_EQ(first->device, "nvml:0");
    EXPECT_EQ(first->total_bytes, 80'000'000'000);  // above 2^32: 64-bit fields all the way
    EXPECT_EQ(first->free_bytes, 60'000'000'000);
    EXPECT_EQ(first->used_bytes, 20'000'000'000);

    absl::StatusOr<DeviceMemoryInfo> by_bus = (*nvml)->MemoryInfoByPciBusId("0000:86:00.0");
    ASSERT_TRUE(by_bus.ok()) << by_bus.status();
    EXPECT_EQ(by_bus->device, "pci:0000:86:00.0");
    EXPECT_EQ(by_bus->free_bytes, 15'000'000'000);
    EXPECT_EQ(by_bus->used_bytes, 1'000'000'000);

    absl::StatusOr<DeviceMemoryInfo> missing = (*nvml)->MemoryInfo(5);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().message(), "NVML device 5: Invalid Argument (NVML 2)");
    absl::StatusOr<DeviceMemoryInfo> no_bus = (*nvml)->MemoryInfoByPciBusId("0000:00:00.0");
    EXPECT_EQ(no_bus.status().message(), "NVML device at PCI 0000:00:00.0: Not Found (NVML 6)");
    EXPECT_EQ((*nvml)->MemoryInfo(-1).status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(fake.initialised(), 0) << "nvmlShutdown when the Nvml goes";
}

TEST(NvmlTest, SaysWhyItCannotLoad) {
  absl::StatusOr<std::unique_ptr<Nvml>> absent = Nvml::Load("libgraphprof-no-such-nvml.so.1");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StartsWith(absent.status().message(), "NVML not loaded (no NVIDIA driver?): ")) << absent.status();
  EXPECT_TRUE(absl::StrContains(absent.status().message(), "libgraphprof-no-such-nvml.so.1")) << absent.status();

  // A library that is not NVML.
  absl::StatusOr<std::unique_ptr<Nvml>> not_nvml = Nvml::Load("libc.so.6");
  ASSERT_FALSE(not_nvml.ok());
  EXPECT_EQ(not_nvml.status().message(), "NVML not usable: libc.so.6 has no nvmlInit_v2");

  FakeControls fake;
  fake.fail_init(9);
  absl::StatusOr<std::unique_ptr<Nvml>> no_driver = Nvml::Load(kFake);
  fake.fail_init(0);
  ASSERT_FALSE(no_driver.ok());
  EXPECT_EQ(no_driver.status().message(), "NVML did not initialise: Driver Not Loaded (9)");
}

TEST(NvmlTest, TheProcessNvmlAndCudaDevicesHereSayWhyNot) {
  // This machine has neither the NVIDIA driver nor a GPU; a GPU machine
  // (tools/gpu_check) checks the real library.
  const CudaStatus cuda = ProbeCuda();
  std::unique_ptr<DeviceMemoryInfoSource> source = MakeNvmlMemoryInfo(0);
  absl::StatusOr<DeviceMemoryInfo> info = source->Read();
  if (!cuda.available) {
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status(), cuda.ToStatus()) << "the reason is CUDA's: without a device there is nothing to match";
    EXPECT_FALSE(info.status().message().empty());
  }
  absl::StatusOr<Nvml*> nvml = ProcessNvml();
  if (!nvml.ok()) {
    EXPECT_TRUE(absl::StartsWith(nvml.status().message(), "NVML")) << nvml.status();
    EXPECT_EQ(ProcessNvml().status(), nvml.status()) << "loaded once, the same answer every time";
  }
}

}  // namespace
}  // namespace graphprof
