#include "profilers/autograd/sequence_owners.h"

#include <algorithm>
#include <limits>

namespace graphprof {

void SequenceOwners::Assign(absl::Span<const SequenceRange> ranges) {
  uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
  for (const SequenceRange& r : ranges) {
    if (r.end <= r.begin) continue;
    lo = std::min(lo, r.begin);
    hi = std::max(hi, r.end);
  }
  if (hi <= lo) {
    base_ = 0;
    owners_.clear();
    return;
  }
  base_ = lo;
  owners_.assign(hi - lo, -1);
  // Completion order: a node's children came before it and keep theirs.
  for (const SequenceRange& r : ranges) {
    for (uint64_t s = r.begin; s < r.end; ++s) {
      int& owner = owners_[s - base_];
      if (owner < 0) owner = r.node;
    }
  }
}

}  // namespace graphprof
