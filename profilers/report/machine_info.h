// The machine a report was measured on, as plain data (profilers/machine.h
// fills it), how two machines differ, and its one-line description.
#ifndef GRAPHPROF_PROFILERS_REPORT_MACHINE_INFO_H_
#define GRAPHPROF_PROFILERS_REPORT_MACHINE_INFO_H_

#include <string>
#include <vector>

namespace graphprof {

// The machine a report was measured on (profilers/machine.h fills it).
// Strings are empty and numbers -1 where unknown.
struct Machine {
  std::string host;
  std::string cpu;            // model name
  std::string governor;       // cpufreq scaling governor of CPU 0
  double cpu_mhz = -1;        // CPU 0's frequency at the start
  int cores = -1;             // logical CPUs online
  int threads = -1;           // intra-op threads used (at::get_num_threads)
  std::string parallel;       // LibTorch's intra-op backend: "OpenMP", "native"
  int interop_threads = -1;
  std::string blas;           // the library sgemm_ resolves to (symlinks followed)
  int blas_threads = -1;      // the BLAS's own threads, where it says
  std::string blas_core;      // OpenBLAS's kernel set ("Haswell", "SkylakeX"), where it says
  std::string vector_isa;     // the widest vector extension: "avx512f", "avx2", "sse2"
  std::string libtorch;       // "1.13.1"
  std::string kernel;         // uname -r
  double load_average = -1;   // 1-minute, at the start
};

// The fields in which two machines differ that change timings ("cpu",
// "threads", ...; not the frequency or load, which vary minute by minute):
// for one-line warnings when reports of different machines are compared.
std::vector<std::string> MachineDifferences(const Machine& a, const Machine& b);

// "Intel(R) Xeon(R) ..., 2 cores, 1 thread, BLAS libblas.so.3.11.0, LibTorch
// 1.13.1, Linux 6.1.0, load 0.40" for summaries.
std::string FormatMachine(const Machine& machine);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_MACHINE_INFO_H_
