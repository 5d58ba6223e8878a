// Memory queries: the process-wide CPU tensor counter, device tensor bytes
// (absent here, with the reason), the resident set size, and their line.
// The counter stays installed once installed, so the test that sees it
// absent comes first and installs it.
#include <gtest/gtest.h>
#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

#include <thread>

#include "absl/strings/match.h"
#include "profilers/gpu/cuda_allocator_stats.h"
#include "profilers/memory_tracker.h"
#include "profilers/toolbox/cpu_tensor_counter.h"
#include "profilers/toolbox/live_memory.h"

namespace graphprof {
namespace {

int64_t Live() {
  absl::StatusOr<int64_t> live = LiveCpuTensorBytes();
  EXPECT_TRUE(live.ok()) << live.status();
  return live.ok() ? *live : -1;
}

TEST(CpuTensorCounterTest, CountsEveryLiveCpuTensorFromInstallation) {
  at::Tensor before = torch::ones({1000});  // allocated before counting
  absl::StatusOr<int64_t> not_yet = LiveCpuTensorBytes();
  EXPECT_EQ(not_yet.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(not_yet.status().message(), "CountCpuTensorMemory")) << not_yet.status();

  ASSERT_TRUE(CountCpuTensorMemory().ok());
  ASSERT_TRUE(CountCpuTensorMemory().ok()) << "idempotent";
  const int64_t base = Live();
  {
    at::Tensor a = torch::ones({1000});                      // 4000 bytes
    at::Tensor view = a.view({10, 100});                     // no new storage
    at::Tensor b = torch::zeros({250}, torch::kFloat64);     // 2000 bytes
    EXPECT_EQ(Live() - base, 6000);
    EXPECT_TRUE(torch::equal(a.sum(), torch::tensor(1000.0f))) << "the memory works as before";
    at::Tensor c;
    std::thread other([&] { c = torch::empty({512}); });  // any thread
    other.join();
    EXPECT_EQ(Live() - base, 6000 + 2048);
  }
  EXPECT_EQ(Live(), base) << "all freed";
  before = at::Tensor();  // freed by its own allocator: not counted, never negative
  EXPECT_EQ(Live(), base);

  // c10's raw interface (used by some kernels for scratch space) goes through it too.
  c10::Allocator* allocator = c10::GetCPUAllocator();
  void* raw = allocator->raw_allocate(4096);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(Live() - base, 4096);
  allocator->raw_deallocate(raw);
  EXPECT_EQ(Live(), base);
}

TEST(CpuTensorCounterTest, TheProfilersMemoryReportsAreUnchanged) {
  ASSERT_TRUE(CountCpuTensorMemory().ok());
  auto tracker = std::make_shared<MemoryTracker>();
  {
    ScopedMemoryTracking tracking(tracker);
    at::Tensor a = torch::ones({256, 256});
    at::Tensor b = a.mm(a);
  }
  EXPECT_EQ(tracker->allocated_bytes(), 2 * 256 * 256 * 4) << "c10 still reports every allocation, at its size";
  EXPECT_EQ(tracker->freed_bytes(), 2 * 256 * 256 * 4);
  EXPECT_EQ(tracker->peak_bytes(), 2 * 256 * 256 * 4);
}

// Found in review: c10's allocator reports a free only when it reported the
// allocation; a block allocated before tracking began and freed during it
// is not in the profile (else peaks would be understated).
TEST(CpuTensorCounterTest, FreesOfBlocksAllocatedBeforeTrackingAreNotReported) {
  ASSERT_TRUE(CountCpuTensorMemory().ok());
  at::Tensor old = torch::ones({1024});  // counted, but allocated before tracking
  auto tracker = std::make_shared<MemoryTracker>();
  {
    ScopedMemoryTracking tracking(tracker);
    old = at::Tensor();                   // freed while tracking
    at::Tensor a = torch::ones({512});    // 2048 bytes
  }
  EXPECT_EQ(tracker->freed_bytes(), 2048) << "only the block tracked from its allocation";
  EXPECT_EQ(tracker->allocated_bytes(), 2048);
  EXPECT_EQ(tracker->peak_bytes(), 2048);
}

TEST(LiveMemoryTest, ResidentSetFollowsTouchedMemory) {
  absl::StatusOr<int64_t> before = ResidentSetBytes();
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GT(*before, 0);
  int64_t during = 0;
  {
    at::Tensor big = torch::ones({64 * 1024 * 1024 / 4});  // 64 MiB, every page written
    absl::StatusOr<int64_t> now = ResidentSetBytes();
    ASSERT_TRUE(now.ok());
    during = *now;
  }
  EXPECT_GE(during - *before, 60 * 1024 * 1024) << "the written pages are resident";
  absl::StatusOr<int64_t> peak = PeakResidentSetBytes();
  ASSERT_TRUE(peak.ok()) << peak.status();
  // The kernel batches its RSS counter updates per thread (a few hundred KiB).
  EXPECT_GE(*peak, during - 1024 * 1024);
}

TEST(LiveMemoryTest, DeviceTensorBytesSayWhyNotHere) {
  absl::StatusOr<std::vector<DeviceTensorBytes>> device = LiveDeviceTensorBytes();
  const absl::Status available = CudaAllocatorStatsStatus();
  if (available.ok()) {
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_FALSE(device->empty());
  } else {
    EXPECT_EQ(device.status(), available);
  }
}

TEST(LiveMemoryTest, OneLineWithValuesOrReasons) {
  LiveMemory m;
  m.cpu_tensor_bytes = int64_t{3 * 1024 * 1024};
  m.resident_bytes = int64_t{100 * 1024 * 1024};
  m.peak_resident_bytes = int64_t{150 * 1024 * 1024};
  m.device_tensor_bytes = std::vector<DeviceTensorBytes>{{"cuda:0", 1024}, {"cuda:1", 0}};
  EXPECT_EQ(FormatLiveMemory(m),
            "CPU tensors 3.00 MiB; resident 100.00 MiB (peak 150.00 MiB); cuda:0 tensors 1.00 KiB; cuda:1 tensors 0 B");
  m.cpu_tensor_bytes = absl::FailedPreconditionError("not counted");
  m.device_tensor_bytes = absl::UnavailableError("LibTorch without CUDA");
  m.peak_resident_bytes = absl::UnavailableError("no VmHWM");
  EXPECT_EQ(FormatLiveMemory(m),
            "CPU tensors: not counted; resident 100.00 MiB; device tensors: LibTorch without CUDA");
}

}  // namespace
}  // namespace graphprof
