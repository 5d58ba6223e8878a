// FNV-1a, 64 bits: a fast non-cryptographic hash of bytes, for telling
// files and libraries apart (header only).
#ifndef GRAPHPROF_COMMON_FNV1A_H_
#define GRAPHPROF_COMMON_FNV1A_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace graphprof {

inline constexpr uint64_t kFnv1a64Offset = 14695981039346656037ull;

// The hash of `bytes`, or of what came before and then `bytes` when
// `hash` is the hash of what came before (so a file may be hashed in
// chunks).
inline uint64_t Fnv1a64(absl::string_view bytes, uint64_t hash = kFnv1a64Offset) {
  for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_FNV1A_H_
