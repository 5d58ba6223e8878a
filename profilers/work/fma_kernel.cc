// The FMA-throughput and streaming kernels of peaks.cc, compiled with -O2
// whatever the build (an -O0 kernel measures its loads and stores).
#include <immintrin.h>

#include <cstdint>
#include <cstddef>

namespace graphprof::kernels {

// Independent accumulators: FMA latency (4-5 cycles) times its ports (2).
__attribute__((target("avx512f"))) float FmaAvx512(int64_t iterations) {
  __m512 acc[16];
  for (int k = 0; k < 16; ++k) acc[k] = _mm512_set1_ps(1.0f + 0.001f * k);
  const __m512 b = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 16; ++k) acc[k] = _mm512_fmadd_ps(acc[k], b, c);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < 16; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float FmaAvx2(int64_t iterations) {
  __m256 acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = _mm256_set1_ps(1.0f + 0.001f * k);
  const __m256 b = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 12; ++k) acc[k] = _mm256_fmadd_ps(acc[k], b, c);
  }
  __m256 sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = _mm256_add_ps(sum, acc[k]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

float FmaScalar(int64_t iterations) {
  float acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = 1.0f + 0.001f * k;
  for (int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < 8; ++k) acc[k] = acc[k] * 0.9999999f + 1e-7f;
  }
  float total = 0;
  for (float v : acc) total += v;
  return total;
}

// a[i] = b[i] + s * c[i] over [begin, end).
void Triad(float* a, const float* b, const float* c, float s, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace graphprof::kernels
