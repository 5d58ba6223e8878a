#include "profilers/toolbox/cpu_tensor_counter.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace graphprof {
namespace {

// A block handed out: its size and how the allocator behind frees it.
struct Block {
  size_t bytes;
  c10::DeleterFnPtr deleter;
  void* context;
};

struct Blocks {
  std::mutex mutex;
  std::unordered_map<void*, Block> live;
  std::atomic<int64_t> bytes{0};
};

Blocks& TheBlocks() {
  static Blocks* blocks = new Blocks();  // never destroyed: tensors may be freed during exit
  return *blocks;
}

void CountingDelete(void* data) {
  Blocks& blocks = TheBlocks();
  Block block{};
  {
    std::lock_guard<std::mutex> lock(blocks.mutex);
    auto it = blocks.live.find(data);
    if (it == blocks.live.end()) return;  // cannot happen: only our blocks carry this deleter
    block = it->second;
    blocks.live.erase(it);
  }
  blocks.bytes.fetch_sub(static_cast<int64_t>(block.bytes), std::memory_order_relaxed);
  if (block.deleter != nullptr) block.deleter(block.context);
}

class CountingCpuAllocator final : public c10::Allocator {
 public:
  explicit CountingCpuAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t bytes) const override {
    c10::DataPtr inner = inner_->allocate(bytes);
    void* data = inner.get();
    if (data == nullptr) return inner;  // zero bytes: nothing to count
    const c10::Device device = inner.device();
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    void* context = inner.release_context();  // now ours to free, through `deleter`
    Blocks& blocks = TheBlocks();
    {
      std::lock_guard<std::mutex> lock(blocks.mutex);
      blocks.live[data] = Block{bytes, deleter, context};
    }
    blocks.bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    // Context == data, as c10's raw_allocate() requires of CPU allocators.
    return {data, data, &CountingDelete, device};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &CountingDelete; }

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  // LibTorch 2.3 made copy_data part of the interface (not in 1.13).
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
#endif

 private:
  c10::Allocator* inner_;
};

std::atomic<bool> installed{false};

}  // namespace

absl::Status CountCpuTensorMemory() {
  static std::once_flag once;
  static absl::Status* result = nullptr;
  std::call_once(once, [] {
    static CountingCpuAllocator* counter = new CountingCpuAllocator(c10::GetCPUAllocator());
    c10::SetCPUAllocator(counter, std::numeric_limits<uint8_t>::max());
    if (c10::GetCPUAllocator() != counter) {
      result = new absl::Status(absl::FailedPreconditionError(
          "c10 keeps another CPU allocator in front: CPU tensor memory cannot be counted"));
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
  return TheBlocks().bytes.load(std::memory_order_relaxed);
}

}  // namespace graphprof
