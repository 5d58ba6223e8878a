// Device time per node from events recorded on the device's stream around
// each node, resolved after each run (no synchronisation per node).
//
// EventApi is the device: the CUDA runtime (cuda_runtime.h) or a fake in
// tests. DeviceEventTimer is a NodeObserver: BeginNode/EndNode record an
// event pair from a pool sized in Prepare (two per node execution of the
// inspection run), EndRun waits for the run's last event and adds each pair's
// elapsed time to its node; Collect returns the "device" metric's values.
//
// Only nodes without blocks are timed: an If/Loop would contain its body's
// device time again, so leaf nodes carry all of it (the metric is recorded
// as self time) and an If/Loop's total is its blocks'.
#ifndef GRAPHPROF_PROFILERS_GPU_DEVICE_TIMER_H_
#define GRAPHPROF_PROFILERS_GPU_DEVICE_TIMER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/node_observer.h"

namespace graphprof {

class EventApi {
 public:
  using Event = void*;
  virtual ~EventApi() = default;
  virtual absl::Status Create(size_t count, std::vector<Event>* events) = 0;
  virtual void Destroy(const std::vector<Event>& events) = 0;
  // Records `event` on the current stream. Hot path: must not block.
  virtual void Record(Event event) = 0;
  // Waits until `event` has completed.
  virtual absl::Status Synchronize(Event event) = 0;
  // Device time between two completed events, in milliseconds.
  virtual absl::StatusOr<double> ElapsedMs(Event start, Event stop) = 0;
  // "cuda:0 NVIDIA H200".
  virtual std::string DeviceName() const = 0;
};

class DeviceEventTimer : public NodeObserver {
 public:
  bool ObservesNodes() const override { return true; }
  // The Report metric this observer adds.
  static constexpr const char* kMetricName = "device";

  explicit DeviceEventTimer(std::unique_ptr<EventApi> api);
  ~DeviceEventTimer() override;

  absl::Status Prepare(const GraphPlan& plan, int runs, int64_t executions_per_run) override;
  void BeginRun(int run) override;
  void BeginNode(const NodePlan& node) override;
  void EndNode(const NodePlan& node) override;
  void EndRun(int run) override;
  absl::StatusOr<Collected> Collect(int runs) override;
  std::vector<Column> Columns() const override { return {MetricColumn()}; }
  // kMetricName, without values (no device needed: profile_graph checks
  // --sort against it before anything is probed).
  static Column MetricColumn();

  // Node executions that found the event pool exhausted (untimed).
  int64_t dropped() const { return dropped_; }

 private:
  std::unique_ptr<EventApi> api_;
  std::vector<EventApi::Event> starts_;
  std::vector<EventApi::Event> stops_;
  std::vector<int> node_of_pair_;  // node id of each recorded pair this run
  size_t next_pair_ = 0;
  bool open_ = false;  // a pair's start is recorded, its stop not yet
  int run_ = 0;
  size_t num_nodes_ = 0;
  std::vector<bool> has_blocks_;
  std::vector<int64_t> device_ns_;  // [run][node]
  int64_t dropped_ = 0;
  absl::Status error_;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_GPU_DEVICE_TIMER_H_
