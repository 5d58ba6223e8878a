// The roofline's ceilings as a report holds them: the machine's and the
// libraries' peak rates and the bandwidth at each working-set size
// (profilers/work/peaks.h measures them; roofline.h reads them).
#ifndef GRAPHPROF_PROFILERS_REPORT_CEILINGS_H_
#define GRAPHPROF_PROFILERS_REPORT_CEILINGS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace graphprof {

// A streaming triad's bandwidth over a working set of `bytes` (its three
// buffers together), kept warm: where that working set lives (L1 ... memory).
struct BandwidthLevel {
  int64_t bytes = 0;
  double gbps = 0;
};

// The machine's and the libraries' ceilings for the roofline, in GFLOP/s and
// GB/s (-1: unknown); profilers/work/peaks.h measures them.
struct Ceilings {
  double peak_gflops = -1;  // the FMA micro-kernel, fp32, at the profiled threads
  double peak_gbps = -1;    // the triad over the largest working set (memory)
  double blas_gflops = -1;  // a large GEMM through LibTorch (its BLAS)
  double conv_gflops = -1;  // a large convolution through LibTorch (oneDNN)
  int threads = -1;
  std::string source;       // "measured", "cached (date)", "given (--peaks)"
  // The triad at working sets from L1-sized up, smallest first, the gbps
  // never growing with the size (the last is peak_gbps). Empty when given
  // (--peaks) or read from a report without it: one memory roof then.
  std::vector<BandwidthLevel> bandwidth;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_CEILINGS_H_
