// Stand-in for the header CMake generates in a CUDA LibTorch build, which
// Debian's CPU-only libtorch-dev does not ship. Only for compiling the CUDA
// LibTorch side of profilers/gpu/cuda_allocator_stats.cc under --config=cuda
// against Debian's headers (//profilers/gpu:cuda_allocator_stats_compile_check);
// never used with a real CUDA LibTorch.
#pragma once
#define C10_CUDA_BUILD_SHARED_LIBS
