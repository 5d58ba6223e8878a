#include "profilers/gpu/cupti_collector.h"

#include "absl/strings/str_cat.h"
#include "profilers/gpu/kernel_attribution.h"

#ifdef GRAPHPROF_WITH_CUDA
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <vector>
#endif

namespace graphprof {

#ifdef GRAPHPROF_WITH_CUDA
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kAlignment = 8;
constexpr CUpti_ExternalCorrelationKind kCorrelationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

const CUpti_ActivityKind kActivities[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

// Completed buffers, handed over by CUPTI (possibly on its own thread).
struct Buffers {
  std::mutex mutex;
  std::vector<std::pair<uint8_t*, size_t>> completed;
};

Buffers& CompletedBuffers() {
  static auto* buffers = new Buffers();
  return *buffers;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  Buffers& buffers = CompletedBuffers();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  buffers.completed.emplace_back(buffer, valid);
}

std::string CuptiError(const char* what, CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return absl::StrCat(what, ": ", text != nullptr ? text : "unknown CUPTI error");
}

const char* MemcpyName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    default: return "memcpy";
  }
}

void Parse(uint8_t* buffer, size_t valid, KernelAttribution& attribution) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
        attribution.AddActivity(ActivityRecord{ActivityRecord::Kind::kKernel, k->name != nullptr ? k->name : "kernel",
                                               k->correlationId, static_cast<int64_t>(k->start),
                                               static_cast<int64_t>(k->end)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
        attribution.AddActivity(ActivityRecord{ActivityRecord::Kind::kMemcpy, MemcpyName(m->copyKind),
                                               m->correlationId, static_cast<int64_t>(m->start),
                                               static_cast<int64_t>(m->end)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(record);
        attribution.AddActivity(ActivityRecord{ActivityRecord::Kind::kMemset, "memset", m->correlationId,
                                               static_cast<int64_t>(m->start), static_cast<int64_t>(m->end)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* c = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(record);
        if (c->externalKind == kCorrelationKind) attribution.AddCorrelation(CorrelationRecord{c->correlationId, c->externalId});
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

CuptiKernelCollector::CuptiKernelCollector() = default;

CuptiKernelCollector::~CuptiKernelCollector() { StopActivities(); }

void CuptiKernelCollector::StopActivities() {
  if (enabled_) {
    for (CUpti_ActivityKind kind : kActivities) cuptiActivityDisable(kind);
  }
  enabled_ = false;
}

void CuptiKernelCollector::Disable(std::string why) {
  StopActivities();
  why_ = std::move(why);
}

absl::Status CuptiKernelCollector::Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) {
  runs_ = runs;
  num_nodes_ = static_cast<int>(plan.nodes().size());
  if (CUptiResult r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted); r != CUPTI_SUCCESS) {
    Disable(CuptiError("cuptiActivityRegisterCallbacks", r));
    return absl::OkStatus();
  }
  enabled_ = true;
  for (CUpti_ActivityKind kind : kActivities) {
    if (CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
      Disable(CuptiError("cuptiActivityEnable", r));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

void CuptiKernelCollector::BeginRun(int run) {
  run_ = run;
  if (run == 0 && enabled_) cuptiGetTimestamp(&device_origin_ns_);
}

void CuptiKernelCollector::BeginNode(const NodePlan& node) {
  if (enabled_) cuptiActivityPushExternalCorrelationId(kCorrelationKind, KernelAttribution::ExternalId(run_, node.id, num_nodes_));
}

void CuptiKernelCollector::EndNode(const NodePlan& node) {
  uint64_t last = 0;
  if (enabled_) cuptiActivityPopExternalCorrelationId(kCorrelationKind, &last);
}

absl::StatusOr<Collected> CuptiKernelCollector::Collect(int runs) {
  Collected disabled;
  if (!enabled_) {
    if (!why_.empty()) disabled.device_notes.push_back(absl::StrCat(why_, ": kernel columns disabled"));
    return disabled;
  }
  // cuptiActivityFlushAll does not synchronise: wait for the device first so
  // that the last run's kernels have records (the event timer synchronises
  // too, but this collector may run without it).
  cudaDeviceSynchronize();
  if (CUptiResult r = cuptiActivityFlushAll(1); r != CUPTI_SUCCESS) {
    Disable(CuptiError("cuptiActivityFlushAll", r));
    disabled.device_notes.push_back(absl::StrCat(why_, ": kernel columns disabled"));
    return disabled;
  }
  StopActivities();
  KernelAttribution attribution(num_nodes_, runs_);
  std::vector<std::pair<uint8_t*, size_t>> buffers;
  {
    Buffers& completed = CompletedBuffers();
    std::lock_guard<std::mutex> lock(completed.mutex);
    buffers.swap(completed.completed);
  }
  for (auto& [buffer, valid] : buffers) {
    Parse(buffer, valid, attribution);
    std::free(buffer);
  }
  const int64_t origin = static_cast<int64_t>(device_origin_ns_);
  Collected collected = attribution.Collect(runs, [origin](int64_t t) { return t - origin; });
  if (int64_t lost = attribution.unattributed(); lost > 0) {
    // Beside what another observer noted (the event timer's dropped events).
    collected.device_notes.push_back(absl::StrCat(lost, " device operations could not be attributed to a node"));
  }
  return collected;
}

#else  // !GRAPHPROF_WITH_CUDA

CuptiKernelCollector::CuptiKernelCollector() = default;
CuptiKernelCollector::~CuptiKernelCollector() = default;
void CuptiKernelCollector::StopActivities() { enabled_ = false; }
void CuptiKernelCollector::Disable(std::string why) {
  enabled_ = false;
  why_ = std::move(why);
}
absl::Status CuptiKernelCollector::Prepare(const GraphPlan&, int, int64_t) {
  Disable("graphprof was built without CUDA");
  return absl::OkStatus();
}
void CuptiKernelCollector::BeginRun(int) {}
void CuptiKernelCollector::BeginNode(const NodePlan&) {}
void CuptiKernelCollector::EndNode(const NodePlan&) {}
absl::StatusOr<Collected> CuptiKernelCollector::Collect(int) {
  Collected disabled;
  disabled.device_notes.push_back(absl::StrCat(why_, ": kernel columns disabled"));
  return disabled;
}

#endif

std::vector<Column> CuptiKernelCollector::Columns() const { return KernelAttribution::Columns(); }

}  // namespace graphprof
