// ScopeRecorder: the top-level RecordFunction scopes of given names one
// thread enters while a compiled model runs (AOTInductor's generated
// kernels, compiled with kernel profiling, each open one:
// RECORD_FUNCTION("graph_0_cpp_...")), with their start and end on the
// steady clock. Scopes of other names (ATen operators an extern call
// reaches through the dispatcher) are not recorded, nor is anything nested
// in a top-level scope.
//
// Recording is a thread-local RecordFunction callback of this thread,
// added by Start() and removed by Stop() (and the destructor). The hot path
// allocates nothing and takes no lock: scopes go into a buffer sized at
// construction; what does not fit is counted (dropped()).
//
// A scope is recorded by the index of its name among the names the
// recorder was made with (-1 for any other name): the name RecordFunction
// gives lives only as long as the scope (LibTorch 1.13 keeps a copy in the
// RecordFunction), and copying it would allocate.
#ifndef GRAPHPROF_PROFILERS_COMPILED_SCOPE_RECORDER_H_
#define GRAPHPROF_PROFILERS_COMPILED_SCOPE_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"


namespace graphprof {

struct RecordedScope {
  int name = -1;         // index into the recorder's names
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;
};

class ScopeRecorder {
 public:
  ScopeRecorder(size_t capacity, std::vector<std::string> names);
  ~ScopeRecorder();
  ScopeRecorder(const ScopeRecorder&) = delete;
  ScopeRecorder& operator=(const ScopeRecorder&) = delete;

  // Starts recording on the calling thread; Stop() on the same thread ends
  // it. FailedPrecondition when another recorder records on this thread.
  absl::Status Start();
  void Stop();
  // Forgets the scopes recorded (before each run).
  void Clear();

  const std::vector<RecordedScope>& scopes() const { return scopes_; }
  int64_t dropped() const { return dropped_; }

  // The steady clock graphprof's compiled profiles read (ns).
  static int64_t Now();

 private:
  static void OnEnter(const char* name);
  int IndexOf(const char* name) const;
  static void OnExit();

  std::vector<std::string> names_;
  // Into names_ (std::unordered_map: Abseil 20240722's flat_hash_map of
  // string_view does not compile under GCC 14 with -fsanitize=undefined).
  std::unordered_map<std::string_view, int> index_;
  std::vector<RecordedScope> scopes_;  // reserved at construction
  size_t capacity_;
  int depth_ = 0;
  bool open_ = false;  // the top-level scope entered last is recorded
  int64_t dropped_ = 0;
  uint64_t handle_ = 0;
  bool started_ = false;
  friend struct ScopeRecorderCallbacks;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COMPILED_SCOPE_RECORDER_H_
