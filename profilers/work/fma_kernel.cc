// The FMA-throughput and streaming kernels of peaks.cc, compiled with -O2
// whatever the build (an -O0 kernel measures its loads and stores).
//
// Both are written so that what they measure does not depend on the
// optimizer's unrolling or vectorizing decisions:
// - the FMA kernels keep their accumulators in registers only because the
//   inner loop is unrolled completely (GCC at -O2 kept the array in memory,
//   and the kernel measured a store-to-load chain: 66 instead of 220 GFLOP/s
//   with AVX-512 on the development machine);
// - the triads are written with the vector width's intrinsics (GCC at -O2
//   does not vectorize a loop whose arrays may alias: the scalar loop
//   measured 40 GB/s where the caches deliver 150-300).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace graphprof::kernels {

// Independent accumulators: FMA latency (4-5 cycles) times its ports (2).
__attribute__((target("avx512f"))) float FmaAvx512(int64_t iterations) {
  __m512 acc[16];
  for (int k = 0; k < 16; ++k) acc[k] = _mm512_set1_ps(1.0f + 0.001f * k);
  __m512 b = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  asm("" : "+v"(b), "+v"(c));  // opaque: with constants the loop can be folded away (clang does)
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) acc[k] = _mm512_fmadd_ps(acc[k], b, c);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < 16; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float FmaAvx2(int64_t iterations) {
  __m256 acc[12];
  for (int k = 0; k < 12; ++k) acc[k] = _mm256_set1_ps(1.0f + 0.001f * k);
  __m256 b = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  asm("" : "+v"(b), "+v"(c));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
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
  float b = 0.9999999f, c = 1e-7f;
  asm("" : "+x"(b), "+x"(c));  // GCC folded this loop with constants
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) acc[k] = acc[k] * b + c;
  }
  float total = 0;
  for (float v : acc) total += v;
  return total;
}

// a[i] = b[i] + s * c[i] over [begin, end), the widest vectors the CPU has
// (peaks.cc picks one); the tail is scalar.
__attribute__((target("avx512f"))) void TriadAvx512(float* a, const float* b, const float* c, float s,
                                                    size_t begin, size_t end) {
  const __m512 vs = _mm512_set1_ps(s);
  size_t i = begin;
  for (; i + 16 <= end; i += 16) {
    _mm512_storeu_ps(a + i, _mm512_fmadd_ps(vs, _mm512_loadu_ps(c + i), _mm512_loadu_ps(b + i)));
  }
  for (; i < end; ++i) a[i] = b[i] + s * c[i];
}

__attribute__((target("avx2,fma"))) void TriadAvx2(float* a, const float* b, const float* c, float s, size_t begin,
                                                   size_t end) {
  const __m256 vs = _mm256_set1_ps(s);
  size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    _mm256_storeu_ps(a + i, _mm256_fmadd_ps(vs, _mm256_loadu_ps(c + i), _mm256_loadu_ps(b + i)));
  }
  for (; i < end; ++i) a[i] = b[i] + s * c[i];
}

// SSE2 is baseline x86-64.
void TriadSse2(float* a, const float* b, const float* c, float s, size_t begin, size_t end) {
  const __m128 vs = _mm_set1_ps(s);
  size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    _mm_storeu_ps(a + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(vs, _mm_loadu_ps(c + i))));
  }
  for (; i < end; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace graphprof::kernels
