// A CUDA kernel of known duration for the GPU check: one thread spins on the
// device's global timer for the requested time.
#include <cuda_runtime.h>

#include <cstdint>

extern "C" __global__ void graphprof_spin_kernel(uint64_t ns) {
  uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= ns) break;
  }
}

// Launches asynchronously on the default stream; returns the cudaError_t of
// the launch.
extern "C" int graphprof_launch_spin(int64_t microseconds) {
  graphprof_spin_kernel<<<1, 1>>>(static_cast<uint64_t>(microseconds) * 1000);
  return static_cast<int>(cudaGetLastError());
}
