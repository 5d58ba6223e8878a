// The widest vector instruction set this CPU runs among those graphprof's
// measured ceilings have kernels for: one check (cpuid), used to pick the
// FMA and triad kernels (peaks.cc) and named in Machine::vector_isa.
#ifndef GRAPHPROF_PROFILERS_WORK_VECTOR_ISA_H_
#define GRAPHPROF_PROFILERS_WORK_VECTOR_ISA_H_

namespace graphprof {

enum class VectorIsa {
  kSse2,     // every x86-64
  kAvx2Fma,  // AVX2 with FMA3 (every AVX2 CPU graphprof has met)
  kAvx512,   // AVX-512F
};

inline VectorIsa DetectVectorIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return VectorIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorIsa::kAvx2Fma;
  return VectorIsa::kSse2;
}

// "avx512f", "avx2", "sse2": the names reports carry (Machine::vector_isa).
inline const char* VectorIsaName(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::kAvx512: return "avx512f";
    case VectorIsa::kAvx2Fma: return "avx2";
    case VectorIsa::kSse2: return "sse2";
  }
  return "sse2";
}

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_WORK_VECTOR_ISA_H_
