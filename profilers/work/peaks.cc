#include "profilers/work/peaks.h"

#include <ATen/ATen.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profilers/report/report_checks.h"
#include "profilers/work/vector_isa.h"

namespace graphprof {
namespace kernels {
float FmaAvx512(int64_t iterations);
float FmaAvx2(int64_t iterations);
float FmaScalar(int64_t iterations);
void TriadAvx512(float* a, const float* b, const float* c, float s, size_t begin, size_t end);
void TriadAvx2(float* a, const float* b, const float* c, float s, size_t begin, size_t end);
void TriadSse2(float* a, const float* b, const float* c, float s, size_t begin, size_t end);
}  // namespace kernels

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The best and the median of `repeats` measurements of `measure` (a rate).
struct Rates {
  double best = 0;
  double median = 0;
  bool steady() const { return best > 0 && median >= 0.9 * best; }
};

template <typename F>
Rates Repeat(int repeats, F measure) {
  std::vector<double> rates;
  for (int i = 0; i < repeats; ++i) rates.push_back(measure());
  std::sort(rates.begin(), rates.end());
  return Rates{rates.back(), rates[rates.size() / 2]};
}

struct Fma {
  float (*kernel)(int64_t);
  double flops_per_iteration;
};

Fma BestFma() {
  switch (DetectVectorIsa()) {
    case VectorIsa::kAvx512: return Fma{kernels::FmaAvx512, 16 * 16 * 2};
    case VectorIsa::kAvx2Fma: return Fma{kernels::FmaAvx2, 12 * 8 * 2};
    case VectorIsa::kSse2: break;
  }
  return Fma{kernels::FmaScalar, 8 * 2};
}

volatile float g_sink;

double FmaOnce(int threads, int64_t iterations) {
  const Fma fma = BestFma();
  std::vector<std::thread> workers;
  std::vector<float> results(threads);
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { results[t] = fma.kernel(iterations); });
  }
  for (std::thread& w : workers) w.join();
  const double seconds = Seconds(start, Clock::now());
  for (float r : results) g_sink = g_sink + r;
  return threads * iterations * fma.flops_per_iteration / seconds / 1e9;
}

Rates FmaRates(int threads) {
  // About 30 ms a repeat.
  int64_t iterations = 1 << 16;
  while (iterations < (int64_t{1} << 30)) {
    const auto start = Clock::now();
    FmaOnce(threads, iterations);
    if (Seconds(start, Clock::now()) > 0.03) break;
    iterations *= 2;
  }
  return Repeat(7, [&] { return FmaOnce(threads, iterations); });
}

using TriadKernel = void (*)(float*, const float*, const float*, float, size_t, size_t);

TriadKernel BestTriad() {
  switch (DetectVectorIsa()) {
    case VectorIsa::kAvx512: return kernels::TriadAvx512;
    case VectorIsa::kAvx2Fma: return kernels::TriadAvx2;
    case VectorIsa::kSse2: break;
  }
  return kernels::TriadSse2;
}

// 64-byte aligned floats (LibTorch's tensors are): an unaligned buffer
// makes every 512-bit access straddle two cache lines.
struct AlignedFloats {
  explicit AlignedFloats(size_t n, float value)
      : data(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64))) {
    std::fill(data, data + n, value);
  }
  ~AlignedFloats() { std::free(data); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data;
};

// The triad over a working set of `bytes` (three buffers), each thread on
// its share (whole cache lines), repeated so that a measurement moves at
// least 512 MB (a few ms even where it runs from L1, so that starting the
// threads does not count).
Rates TriadRates(int threads, size_t bytes) {
  const TriadKernel triad = BestTriad();
  constexpr size_t kLine = 16;  // floats in a 64-byte line
  const size_t lines = std::max<size_t>(threads, bytes / (3 * sizeof(float)) / kLine);
  const size_t floats = lines * kLine;
  const size_t moved = 3 * floats * sizeof(float);
  const size_t at_least = size_t{512} << 20;
  const int passes = static_cast<int>((at_least + moved - 1) / moved);
  AlignedFloats a(floats, 0.0f), b(floats, 1.0f), c(floats, 2.0f);
  auto once = [&] {
    std::vector<std::thread> workers;
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t) {
      const size_t begin = lines * t / threads * kLine, end = lines * (t + 1) / threads * kLine;
      workers.emplace_back([&, begin, end] {
        for (int p = 0; p < passes; ++p) triad(a.data, b.data, c.data, 3.0f, begin, end);
      });
    }
    for (std::thread& w : workers) w.join();
    const double seconds = Seconds(start, Clock::now());
    return static_cast<double>(moved) * passes / seconds / 1e9;
  };
  once();  // first touch, and into the caches
  Rates r = Repeat(5, once);
  g_sink = g_sink + a.data[floats / 2];
  return r;
}

// Working sets from L1-sized (12 KB) up by 4x to 192 MB: past the last-level
// cache of most machines (a VM may report its host's; the levels say where
// the bandwidth stops falling).
constexpr size_t kSmallestLevel = 12 << 10;
constexpr size_t kLargestLevel = size_t{192} << 20;

std::string CacheDir(const PeakOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') return absl::StrCat(xdg, "/graphprof/peaks");
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return absl::StrCat(home, "/.cache/graphprof/peaks");
  return "";
}

}  // namespace

std::string CeilingsCachePath(const Machine& machine, const PeakOptions& options) {
  const std::string dir = CacheDir(options);
  if (dir.empty()) return "";
  // v2: the kernels before it measured their loads and stores (3x low).
  // The BLAS's kernel set too: OPENBLAS_CORETYPE changes GEMM's ceiling 2x.
  const std::string key = absl::StrCat("v2|", machine.cpu, "|", machine.cores, "|", options.threads, "|", machine.blas,
                                       "|", machine.blas_core, "|", machine.libtorch);
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : key) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%s/peaks-%016x.txt", dir, h);
}

namespace {

void MakeDirectories(const std::string& path) {
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
  }
  mkdir(path.c_str(), 0755);
}

}  // namespace

double FmaPeakGflops(int threads) { return FmaRates(std::max(1, threads)).best; }
double TriadGbps(int threads) { return TriadRates(std::max(1, threads), kLargestLevel).best; }

std::vector<BandwidthLevel> BandwidthLadder(int threads, bool* steady) {
  std::vector<BandwidthLevel> levels;
  bool memory_steady = false;
  for (size_t bytes = kSmallestLevel; bytes <= kLargestLevel; bytes *= 4) {
    const Rates r = TriadRates(std::max(1, threads), bytes);
    memory_steady = r.steady();  // the last (memory) level's, in the end
    levels.push_back(BandwidthLevel{static_cast<int64_t>(bytes), r.best});
  }
  // A smaller working set never streams slower than a larger one: a level
  // measured below the next (a disturbance) takes the next one's figure.
  for (size_t i = levels.size() - 1; i-- > 0;) levels[i].gbps = std::max(levels[i].gbps, levels[i + 1].gbps);
  // Steadiness is judged on the memory level: the cache levels' repeats are
  // a few ms each and disagree by over 10% on most runs of a shared VM (4
  // of 6 ladders in bench/results/peaks.txt), while their best stays put.
  if (steady != nullptr) *steady = memory_steady;
  return levels;
}

double GemmGflops() {
  // Square products from 128 doubling up to 1024, stopping after the first
  // whose best of 3 takes over 0.05 s (the reference BLAS runs at about 2
  // GFLOP/s, an optimized one at tens): the best rate seen.
  int64_t n = 128;
  double best = 0;
  while (n <= 1024) {
    const at::Tensor a = at::randn({n, n}), b = at::randn({n, n});
    double seconds = 1e9;
    for (int i = 0; i < 3; ++i) {
      const auto start = Clock::now();
      const at::Tensor c = at::mm(a, b);
      seconds = std::min(seconds, Seconds(start, Clock::now()));
      g_sink = g_sink + c.data_ptr<float>()[0];
    }
    best = std::max(best, 2.0 * n * n * n / seconds / 1e9);
    if (seconds > 0.05) break;
    n *= 2;
  }
  return best;
}

double ConvGflops() {
  const at::Tensor x = at::randn({1, 64, 56, 56}), w = at::randn({64, 64, 3, 3});
  const double flops = 2.0 * 64 * 56 * 56 * 64 * 9;
  double seconds = 1e9;
  for (int i = 0; i < 4; ++i) {
    const auto start = Clock::now();
    const at::Tensor y = at::conv2d(x, w, {}, 1, 1);
    if (i > 0) seconds = std::min(seconds, Seconds(start, Clock::now()));  // the first pays for setup
    g_sink = g_sink + y.data_ptr<float>()[0];
  }
  return flops / seconds / 1e9;
}

bool MatchBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  if (auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(threads);
    return true;
  }
  return false;
}

namespace {

// The cache file replaced whole: written to a temporary file beside it and
// renamed over it, so a reader never sees half of it, and a symlink at
// `path` is replaced, never written through.
bool ReplaceCacheFile(const std::string& path, const std::string& text) {
  std::string tmp = absl::StrCat(path, ".tmp.XXXXXX");
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = close(fd) == 0 && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) unlink(tmp.c_str());
  return ok;
}

}  // namespace

std::optional<Ceilings> CachedCeilings(const Machine& machine, const PeakOptions& options) {
  const std::string path = CeilingsCachePath(machine, options);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  Ceilings c;
  std::string date;
  size_t levels = 0;
  if (!(in >> c.peak_gflops >> c.peak_gbps >> c.blas_gflops >> c.conv_gflops >> date >> levels)) return std::nullopt;
  // A cache that is not one graphprof could have written is not used (the
  // ceilings are measured again and the cache replaced).
  if (!PlausibleCeiling(c.peak_gflops) || !PlausibleCeiling(c.peak_gbps) || levels > 64) return std::nullopt;
  for (double rate : {c.blas_gflops, c.conv_gflops}) {
    if (rate != -1 && !PlausibleCeiling(rate)) return std::nullopt;
  }
  for (size_t i = 0; i < levels; ++i) {
    BandwidthLevel level;
    if (!(in >> level.bytes >> level.gbps) || level.bytes <= 0 || !PlausibleCeiling(level.gbps)) return std::nullopt;
    if (!c.bandwidth.empty() && level.bytes <= c.bandwidth.back().bytes) return std::nullopt;
    c.bandwidth.push_back(level);
  }
  c.threads = options.threads;
  c.source = absl::StrCat("cached (measured ", date, ")");
  return c;
}

Ceilings MeasureCeilings(const Machine& machine, const PeakOptions& options) {
  if (!options.remeasure) {
    if (std::optional<Ceilings> cached = CachedCeilings(machine, options)) return *cached;
  }
  const int threads = std::max(1, options.threads);
  const Rates fma = FmaRates(threads);
  bool bandwidth_steady = false;
  Ceilings c;
  c.bandwidth = BandwidthLadder(threads, &bandwidth_steady);
  c.peak_gflops = fma.best;
  c.peak_gbps = c.bandwidth.back().gbps;
  c.blas_gflops = GemmGflops();
  c.conv_gflops = ConvGflops();
  c.threads = threads;
  const bool steady = fma.steady() && bandwidth_steady;
  c.source = steady ? "measured" : "measured (repeats disagreed by over 10%: not cached)";
  const std::string path = CeilingsCachePath(machine, options);
  if (steady && !path.empty()) {
    MakeDirectories(path.substr(0, path.rfind('/')));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    std::string text = absl::StrFormat("%.6g %.6g %.6g %.6g %s %d", c.peak_gflops, c.peak_gbps, c.blas_gflops,
                                       c.conv_gflops, date, c.bandwidth.size());
    for (const BandwidthLevel& level : c.bandwidth) absl::StrAppendFormat(&text, " %d %.6g", level.bytes, level.gbps);
    text += "\n";
    if (!ReplaceCacheFile(path, text)) c.source = "measured (the cache could not be written)";
  }
  return c;
}

}  // namespace graphprof
