#include "profilers/machine.h"

#include <ATen/Config.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <sys/utsname.h>
#include <torch/version.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "profilers/work/vector_isa.h"

namespace graphprof {
namespace {

std::string FirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

// The value of the first "key : value" line of /proc/cpuinfo with `key`.
std::string CpuInfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (absl::StripAsciiWhitespace(line.substr(0, colon)) == key) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

// The file a loaded symbol comes from, its symlinks followed (Debian's
// libblas.so.3 is an alternatives link to the BLAS actually installed).
std::string LibraryOf(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  if (address == nullptr) return "";
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  char resolved[PATH_MAX];
  if (realpath(info.dli_fname, resolved) != nullptr) return resolved;
  return info.dli_fname;
}

int BlasThreads() {
  // OpenBLAS (its threads ignore at::set_num_threads); others do not say.
  using GetThreads = int (*)();
  if (auto* get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))) return get();
  if (auto* get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "mkl_get_max_threads"))) return get();
  return -1;
}

// OpenBLAS picks its kernels by CPU model and may not know a new one
// (0.3.21 runs its AVX2 "Haswell" kernels on AVX-512 Zen CPUs).
std::string BlasCore() {
  using GetCore = char* (*)();
  if (auto* get = reinterpret_cast<GetCore>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
    if (const char* core = get(); core != nullptr) return core;
  }
  return "";
}

}  // namespace

Machine DescribeMachine() {
  Machine m;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) m.host = host;
  m.cpu = CpuInfo("model name");
  double mhz = 0;
  if (absl::SimpleAtod(CpuInfo("cpu MHz"), &mhz)) m.cpu_mhz = mhz;
  m.governor = FirstLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  m.cores = cores > 0 ? static_cast<int>(cores) : -1;
  m.threads = at::get_num_threads();
  // The backend that runs those threads (ATen/Config.h): Debian's 1.13 and
  // 2.6 both use OpenMP; LibTorch built with ATEN_THREADING=NATIVE does not.
#if AT_PARALLEL_OPENMP
  m.parallel = "OpenMP";
#elif AT_PARALLEL_NATIVE
  m.parallel = "native";
#else
  m.parallel = "other";
#endif
  m.interop_threads = at::get_num_interop_threads();
  m.blas = LibraryOf("sgemm_");
  m.blas_threads = BlasThreads();
  m.blas_core = BlasCore();
  m.vector_isa = VectorIsaName(DetectVectorIsa());
  m.libtorch = TORCH_VERSION;
  struct utsname u {};
  if (uname(&u) == 0) m.kernel = u.release;
  double load[1];
  if (getloadavg(load, 1) == 1) m.load_average = load[0];
  return m;
}

}  // namespace graphprof
