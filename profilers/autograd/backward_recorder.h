// BackwardRecorder: times every autograd function of a backward pass.
//
// While armed (Begin .. End), a global RecordFunction callback for the
// BACKWARD_FUNCTION scope reads the clock when each autograd function starts
// and ends, and keeps {sequence number, start, duration} in storage
// allocated up front (no allocation, no lock per function). Only functions
// created on the thread that called Begin (RecordFunction::forwardThreadId)
// are kept, so profilers on other threads do not see each other's backward;
// the functions may run on any thread (the autograd engine runs CPU work on
// the calling thread and device work on its own threads).
//
// The callback is registered at Begin and removed at End: forward passes run
// without it, so the forward timing is unchanged. Attribution to graph
// nodes is SequenceOwners' job: see Attribute().
#ifndef GRAPHPROF_PROFILERS_AUTOGRAD_BACKWARD_RECORDER_H_
#define GRAPHPROF_PROFILERS_AUTOGRAD_BACKWARD_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "profilers/autograd/sequence_owners.h"
#include "profilers/memory_tracker.h"
#include "profilers/time_source.h"

namespace graphprof {

// One autograd function's execution.
struct BackwardEvent {
  int64_t sequence_number = -1;  // -1: AccumulateGrad and other unnumbered functions
  int64_t start_ns = 0;          // the clock's time
  int64_t duration_ns = 0;
  int32_t thread = 0;            // which thread ran it (a small number per thread)
};

class BackwardRecorder {
 public:
  // Room for `capacity` functions per Begin..End; more are counted as dropped.
  BackwardRecorder(std::shared_ptr<TimeSource> clock, size_t capacity);
  ~BackwardRecorder();
  BackwardRecorder(const BackwardRecorder&) = delete;
  BackwardRecorder& operator=(const BackwardRecorder&) = delete;

  // Starts recording functions created on this thread (clears the events).
  // With `tracker`, every function also sets the tracker's tag to the node
  // that owns it (by `owners`) while it runs, so memory peaks in backward are
  // attributed to nodes (the tracker must be tracking this thread).
  void Begin(MemoryTracker* tracker = nullptr, const SequenceOwners* owners = nullptr);
  void End();

  absl::Span<const BackwardEvent> events() const {
    return absl::MakeConstSpan(events_.data(), std::min(count_.load(), events_.size()));
  }
  int64_t dropped() const {
    const size_t n = count_.load();
    return n > events_.size() ? static_cast<int64_t>(n - events_.size()) : 0;
  }
  TimeSource& clock() const { return *clock_; }

  // The callback's work (public for the callback; not an API).
  uint64_t forward_thread() const { return forward_thread_; }
  void OnStart(int64_t sequence_number);
  void OnEnd(int64_t sequence_number, int64_t start_ns);

 private:
  std::shared_ptr<TimeSource> clock_;
  std::vector<BackwardEvent> events_;
  std::atomic<size_t> count_{0};
  uint64_t forward_thread_ = 0;
  MemoryTracker* tracker_ = nullptr;
  const SequenceOwners* owners_ = nullptr;
  bool armed_ = false;
};

// One backward pass attributed to nodes. A function's time is its own
// interval plus the engine's work on its thread until the next function
// starts: releasing the tensors it saved (freeing saved activations is the
// engine's biggest cost) and adding its gradients into the next functions'
// inputs. Per node: the time and number of the functions it created; the
// rest (AccumulateGrad, the loss's own functions) is unattributed, and the
// engine's work before a thread's first function is in neither.
struct BackwardAttribution {
  std::vector<int64_t> node_ns;         // [node]
  std::vector<int64_t> node_functions;  // [node]
  int64_t attributed_ns = 0;
  int64_t unattributed_ns = 0;
  int64_t engine_ns = 0;  // the after-function work included above
};
void Attribute(absl::Span<const BackwardEvent> events, const SequenceOwners& owners, BackwardAttribution& into);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_AUTOGRAD_BACKWARD_RECORDER_H_
