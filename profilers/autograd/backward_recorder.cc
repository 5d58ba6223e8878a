#include "profilers/autograd/backward_recorder.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <array>
#include <mutex>

namespace graphprof {
namespace {

// Recorders armed now, found by the callback without a lock. One global
// callback serves them all; it is registered while any is armed.
constexpr int kMaxArmed = 64;
std::array<std::atomic<BackwardRecorder*>, kMaxArmed> armed_recorders{};
std::mutex registration_mutex;
int armed_count = 0;
at::CallbackHandle callback_handle = 0;

// Start times of the functions running on this thread (they nest only in
// double backward; deeper nesting is not timed).
constexpr int kMaxDepth = 32;
thread_local int64_t start_stack[kMaxDepth];
thread_local int start_depth = 0;

// A small number per thread, for BackwardEvent::thread.
std::atomic<int32_t> next_thread_number{0};
int32_t ThreadNumber() {
  thread_local const int32_t number = next_thread_number.fetch_add(1);
  return number;
}

BackwardRecorder* Find(uint64_t forward_thread) {
  for (std::atomic<BackwardRecorder*>& slot : armed_recorders) {
    BackwardRecorder* r = slot.load(std::memory_order_acquire);
    if (r != nullptr && r->forward_thread() == forward_thread) return r;
  }
  return nullptr;
}

std::unique_ptr<at::ObserverContext> OnFunctionStart(const at::RecordFunction& fn) {
  BackwardRecorder* r = Find(fn.forwardThreadId());
  if (r == nullptr) return nullptr;
  r->OnStart(fn.seqNr());
  if (start_depth < kMaxDepth) start_stack[start_depth] = r->clock().NowNs();
  ++start_depth;
  return nullptr;
}

void OnFunctionEnd(const at::RecordFunction& fn, at::ObserverContext* /*unused*/) {
  BackwardRecorder* r = Find(fn.forwardThreadId());
  if (r == nullptr || start_depth == 0) return;
  --start_depth;
  if (start_depth < kMaxDepth) r->OnEnd(fn.seqNr(), start_stack[start_depth]);
}

}  // namespace

BackwardRecorder::BackwardRecorder(std::shared_ptr<TimeSource> clock, size_t capacity)
    : clock_(std::move(clock)), events_(capacity) {}

BackwardRecorder::~BackwardRecorder() {
  if (armed_) End();
}

void BackwardRecorder::Begin(MemoryTracker* tracker, const SequenceOwners* owners) {
  if (armed_) End();
  count_.store(0);
  tracker_ = tracker;
  owners_ = owners;
  forward_thread_ = at::RecordFunction::currentThreadId();
  std::lock_guard<std::mutex> lock(registration_mutex);
  for (std::atomic<BackwardRecorder*>& slot : armed_recorders) {
    BackwardRecorder* expected = nullptr;
    if (slot.compare_exchange_strong(expected, this)) {
      armed_ = true;
      break;
    }
  }
  if (!armed_) return;  // more than kMaxArmed profilers at once: nothing recorded
  if (armed_count++ == 0) {
    callback_handle = at::addGlobalCallback(at::RecordFunctionCallback(&OnFunctionStart, &OnFunctionEnd)
                                                .scopes({at::RecordScope::BACKWARD_FUNCTION})
                                                .needsInputs(false));
  }
}

void BackwardRecorder::End() {
  if (!armed_) return;
  std::lock_guard<std::mutex> lock(registration_mutex);
  for (std::atomic<BackwardRecorder*>& slot : armed_recorders) {
    BackwardRecorder* expected = this;
    if (slot.compare_exchange_strong(expected, nullptr)) break;
  }
  armed_ = false;
  if (--armed_count == 0) at::removeCallback(callback_handle);
  if (tracker_ != nullptr) tracker_->set_tag(-1);
}

void BackwardRecorder::OnStart(int64_t sequence_number) {
  if (tracker_ != nullptr && owners_ != nullptr) tracker_->set_tag(owners_->OwnerOf(sequence_number));
}

void BackwardRecorder::OnEnd(int64_t sequence_number, int64_t start_ns) {
  const int64_t stop = clock_->NowNs();
  if (tracker_ != nullptr) tracker_->set_tag(-1);
  const size_t i = count_.fetch_add(1, std::memory_order_relaxed);
  if (i < events_.size()) events_[i] = BackwardEvent{sequence_number, start_ns, stop - start_ns, ThreadNumber()};
}

void Attribute(absl::Span<const BackwardEvent> events, const SequenceOwners& owners, BackwardAttribution& into) {
  std::fill(into.node_ns.begin(), into.node_ns.end(), 0);
  std::fill(into.node_functions.begin(), into.node_functions.end(), 0);
  into.attributed_ns = 0;
  into.unattributed_ns = 0;
  into.engine_ns = 0;
  const int num_nodes = static_cast<int>(into.node_ns.size());
  auto add = [&](int node, int64_t ns) {
    if (node >= 0 && node < num_nodes) {
      into.node_ns[node] += ns;
      into.attributed_ns += ns;
    } else {
      into.unattributed_ns += ns;
    }
  };
  // Events are recorded as functions end; on one thread (without double
  // backward) that is also the order they started in.
  for (size_t i = 0; i < events.size(); ++i) {
    const BackwardEvent& e = events[i];
    const int node = owners.OwnerOf(e.sequence_number);
    add(node, e.duration_ns);
    if (node >= 0 && node < num_nodes) ++into.node_functions[node];
    for (size_t j = i + 1; j < events.size(); ++j) {
      if (events[j].thread != e.thread) continue;
      const int64_t gap = events[j].start_ns - (e.start_ns + e.duration_ns);
      if (gap > 0) {
        add(node, gap);
        into.engine_ns += gap;
      }
      break;
    }
  }
}

}  // namespace graphprof
