#include "profilers/compiled/scope_recorder.h"

#include <ATen/record_function.h>

#include <chrono>
#include <utility>

namespace graphprof {
namespace {

// The recorder of this thread, between its Start() and Stop().
thread_local ScopeRecorder* active = nullptr;

}  // namespace

struct ScopeRecorderCallbacks {
  static std::unique_ptr<at::ObserverContext> Enter(const at::RecordFunction& fn) {
    ScopeRecorder::OnEnter(fn.name());
    return nullptr;
  }
  static void Exit(const at::RecordFunction&, at::ObserverContext*) { ScopeRecorder::OnExit(); }
};

ScopeRecorder::ScopeRecorder(size_t capacity, std::vector<std::string> names)
    : names_(std::move(names)), capacity_(capacity) {
  for (size_t i = 0; i < names_.size(); ++i) index_.emplace(names_[i], static_cast<int>(i));
  scopes_.reserve(capacity);
}

int ScopeRecorder::IndexOf(const char* name) const {
  if (name == nullptr) return -1;
  auto found = index_.find(std::string_view(name));
  return found == index_.end() ? -1 : found->second;
}

ScopeRecorder::~ScopeRecorder() {
  if (started_) Stop();
}

int64_t ScopeRecorder::Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

absl::Status ScopeRecorder::Start() {
  if (started_) return absl::OkStatus();
  if (active != nullptr) {
    return absl::FailedPreconditionError("another scope recorder is recording on this thread");
  }
  active = this;
  depth_ = 0;
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&ScopeRecorderCallbacks::Enter, &ScopeRecorderCallbacks::Exit)
          .needsInputs(false)
          .needsOutputs(false)
          .needsIds(false));
  started_ = true;
  return absl::OkStatus();
}

void ScopeRecorder::Stop() {
  if (!started_) return;
  at::removeCallback(handle_);
  if (active == this) active = nullptr;
  started_ = false;
}

void ScopeRecorder::Clear() {
  scopes_.clear();
  dropped_ = 0;
  depth_ = 0;
  open_ = false;
}

void ScopeRecorder::OnEnter(const char* name) {
  ScopeRecorder* self = active;
  if (self == nullptr) return;
  if (self->depth_++ > 0) return;
  const int index = self->IndexOf(name);
  self->open_ = false;
  if (index < 0) return;
  if (self->scopes_.size() == self->capacity_) {
    ++self->dropped_;
    return;
  }
  self->scopes_.push_back(RecordedScope{index, Now(), 0});
  self->open_ = true;
}

void ScopeRecorder::OnExit() {
  ScopeRecorder* self = active;
  if (self == nullptr || self->depth_ == 0) return;
  if (--self->depth_ > 0) return;
  if (self->open_) self->scopes_.back().end_ns = Now();
  self->open_ = false;
}

}  // namespace graphprof
