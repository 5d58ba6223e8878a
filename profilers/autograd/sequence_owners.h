// SequenceOwners: which graph node created each autograd function.
//
// Every autograd function (grad_fn) LibTorch creates on a thread takes the
// next value of that thread's sequence counter (at::sequence_number), and the
// backward pass reports it back (RecordFunction::seqNr) when the function
// runs. While a node runs forward, the values it takes are the range
// [peek() before, peek() after): ProfilingInterpreter records one
// SequenceRange per node execution, in completion order. Ranges nest like
// the nodes (a Loop's range holds its body's): the innermost node that ran
// when a function was created owns it, so children, which complete first,
// claim their values before their parents.
#ifndef GRAPHPROF_PROFILERS_AUTOGRAD_SEQUENCE_OWNERS_H_
#define GRAPHPROF_PROFILERS_AUTOGRAD_SEQUENCE_OWNERS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace graphprof {

// The sequence numbers one node execution took.
struct SequenceRange {
  uint64_t begin = 0;  // at::sequence_number::peek() before the node
  uint64_t end = 0;    // ... and after
  int node = -1;
};

class SequenceOwners {
 public:
  // Owners from one forward run's ranges, in completion order. Reuses its
  // storage: after the first run of a graph, assigning allocates nothing.
  void Assign(absl::Span<const SequenceRange> ranges);
  // The node that created the function with this sequence number, or -1
  // (created outside the graph's nodes: the loss, AccumulateGrad's -1).
  int OwnerOf(int64_t sequence_number) const {
    if (sequence_number < 0) return -1;
    const uint64_t s = static_cast<uint64_t>(sequence_number);
    if (s < base_ || s - base_ >= owners_.size()) return -1;
    return owners_[s - base_];
  }
  // Functions created by the run's nodes.
  int64_t size() const { return static_cast<int64_t>(owners_.size()); }

 private:
  uint64_t base_ = 0;
  std::vector<int> owners_;  // [sequence number - base_]
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_AUTOGRAD_SEQUENCE_OWNERS_H_
