// The ceilings of the roofline, measured on this machine (Report::ceilings):
//
//   peak_gflops   an FMA micro-kernel: fp32, the widest vector extension the
//                 CPU reports at run time (AVX-512F, else AVX2+FMA, else
//                 scalar; target attributes and cpuid dispatch, the build
//                 targeting baseline x86-64), enough independent accumulators
//                 to cover the FMA latency, on `threads` threads at once
//   bandwidth     a streaming triad (a = b + s c), the widest vectors the CPU
//                 reports (AVX-512F, AVX2, SSE2), on `threads` threads, over
//                 working sets of 12 KB, 48 KB, ... 192 MB (L1 to memory),
//                 each kept warm; a level never below the next larger one
//   peak_gbps     the 192 MB level (memory on most machines)
//   blas_gflops   a large fp32 GEMM through LibTorch (at::mm: its BLAS)
//   conv_gflops   a large convolution through LibTorch (oneDNN)
//
// Each is the best of several repeats (about 2 s in all; the kernels are in
// fma_kernel.cc). Results are cached per CPU model, core count, thread
// count, BLAS library and kernel set and LibTorch version in
// $XDG_CACHE_HOME/graphprof/peaks (~/.cache/graphprof/peaks), unless the FMA
// or the memory level's repeats disagree by more than 10% (the machine was
// disturbed: measured again next time) or the directory cannot be written.
#ifndef GRAPHPROF_PROFILERS_WORK_PEAKS_H_
#define GRAPHPROF_PROFILERS_WORK_PEAKS_H_

#include <optional>
#include <string>
#include <vector>

#include "profilers/report/ceilings.h"
#include "profilers/report/machine_info.h"

namespace graphprof {

struct PeakOptions {
  int threads = 1;
  bool remeasure = false;  // ignore the cache
  std::string cache_dir;   // "" : the default above
};

// The machine's ceilings: cached, or measured (and cached).
Ceilings MeasureCeilings(const Machine& machine, const PeakOptions& options);

// The cached ceilings for this machine and thread count, if any (never measures).
std::optional<Ceilings> CachedCeilings(const Machine& machine, const PeakOptions& options);

// The file they are cached in ("" where there is no cache directory): one
// line, "GFLOPS GBPS BLAS_GFLOPS CONV_GFLOPS DATE LEVELS (BYTES GBPS)...".
std::string CeilingsCachePath(const Machine& machine, const PeakOptions& options);

// The parts, for benchmarks and tests.
double FmaPeakGflops(int threads);
double TriadGbps(int threads);  // the largest level
std::vector<BandwidthLevel> BandwidthLadder(int threads, bool* steady = nullptr);
double GemmGflops();
double ConvGflops();

// OpenBLAS runs its own threads (ignoring at::set_num_threads): set them to
// `threads` where the library allows it. Returns whether it could.
bool MatchBlasThreads(int threads);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_WORK_PEAKS_H_
