#include "profilers/toolbox/cpu_tensor_counter.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include "common/torch_compat.h"

#include <c10/core/alignment.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

namespace graphprof {
namespace {

// Every block starts kHeader bytes before the pointer handed out: the header
// holds the requested size, which keeps frees free of any lookup, and
// whether the allocation was reported to c10's memory profiler; its size
// keeps the data at c10's alignment.
constexpr size_t kHeader = c10::gAlignment;
constexpr size_t kReportedOffset = sizeof(size_t);
static_assert(kHeader >= kReportedOffset + 1 && kHeader % alignof(std::max_align_t) == 0);

std::atomic<int64_t> live_bytes{0};
std::atomic<bool> installed{false};

void CountingDelete(void* data) {
  if (data == nullptr) return;
  char* base = static_cast<char*>(data) - kHeader;
  size_t bytes;
  std::memcpy(&bytes, base, sizeof(bytes));
  const int64_t live = live_bytes.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed) -
                       static_cast<int64_t>(bytes);
  // As c10's allocator: a free is reported only when its allocation was (a
  // block allocated before profiling started is not freed in the profile).
  if (base[kReportedOffset] != 0 && c10::memoryProfilingEnabled()) {
    c10::reportMemoryUsageToProfiler(data, -static_cast<int64_t>(bytes), live, 0, c10::Device(c10::DeviceType::CPU));
  }
  std::free(base);
}

// c10's default CPU allocator (posix_memalign at c10::gAlignment, c10's
// memory reports with every allocation and free), plus the count.
class CountingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) GRAPHPROF_ALLOCATE_CONST override {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (bytes == 0) return {nullptr, nullptr, &CountingDelete, cpu};
    void* base = nullptr;
    TORCH_CHECK(bytes <= std::numeric_limits<size_t>::max() - kHeader &&
                    posix_memalign(&base, c10::gAlignment, bytes + kHeader) == 0,
                "CPU allocator (graphprof's counting one): not enough memory: you tried to allocate ", bytes,
                " bytes.");
    std::memcpy(base, &bytes, sizeof(bytes));
    void* data = static_cast<char*>(base) + kHeader;
    const int64_t live = live_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) +
                         static_cast<int64_t>(bytes);
    const bool reported = c10::memoryProfilingEnabled();
    static_cast<char*>(base)[kReportedOffset] = reported ? 1 : 0;
    if (reported) c10::reportMemoryUsageToProfiler(data, static_cast<int64_t>(bytes), live, 0, cpu);
    // Context == data, as c10's raw_allocate() requires of CPU allocators.
    return {data, data, &CountingDelete, cpu};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &CountingDelete; }

#if GRAPHPROF_ALLOCATOR_HAS_COPY_DATA
  // LibTorch 2.3 made copy_data part of the interface (not in 1.13).
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
#endif
};

}  // namespace

absl::Status CountCpuTensorMemory() {
  static std::once_flag once;
  static absl::Status* result = nullptr;
  std::call_once(once, [] {
    // It stands in for c10's default allocator, so it only goes where that one is.
    if (c10::GetCPUAllocator() != c10::GetDefaultCPUAllocator()) {
      result = new absl::Status(absl::FailedPreconditionError(
          "another CPU allocator than c10's default is installed: CPU tensor memory is not counted"));
      return;
    }
    static CountingCpuAllocator* counter = new CountingCpuAllocator();  // never destroyed: blocks outlive main
    c10::SetCPUAllocator(counter, std::numeric_limits<uint8_t>::max());
    if (c10::GetCPUAllocator() != counter) {
      result = new absl::Status(absl::FailedPreconditionError(
          "c10 kept its CPU allocator: CPU tensor memory is not counted"));
      return;
    }
    installed.store(true);
    result = new absl::Status();
  });
  return *result;
}

absl::StatusOr<int64_t> LiveCpuTensorBytes() {
  if (!installed.load()) {
    return absl::FailedPreconditionError("CPU tensor memory is not being counted (call CountCpuTensorMemory() first)");
  }
  return live_bytes.load(std::memory_order_relaxed);
}

}  // namespace graphprof
