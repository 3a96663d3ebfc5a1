// Cluster: an embedded, in-memory Kubernetes cluster for `ksched simulate` and the tests. It holds
// the objects from manifests, feeds them to a scheduler (a ClusterEventSink) as informers would,
// and takes the scheduler's writes (binds, events, pod conditions) as the API server would.
//
//   sim::Cluster cluster(objects);
//   cluster.Start(scheduler);           // nodes, then bound pods, then pending pods
//   while (scheduler.ScheduleOne()) cluster.Deliver(scheduler);
//
// Thread safety: the ClusterWriter methods may be called from binding threads; Start and Deliver
// from the thread that drives the scheduler.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "ksched/cluster_writer.h"
#include "src/api/decode.h"
#include "src/api/event_sink.h"

namespace ksched::sim {

struct RecordedEvent {
  std::string namespace_, pod, type, reason, action, message;
};

// The PodScheduled message the API server gives a pod created with scheduling gates.
inline constexpr std::string_view kSchedulingGatedMessage =
    "Scheduling is blocked due to non-empty scheduling gates";

class Cluster : public ClusterWriter {
 public:
  // Pods without a UID get "<namespace>/<name>"; pods without a namespace get "default".
  explicit Cluster(std::vector<api::Object> objects);

  void Start(ClusterEventSink& s);
  // Delivers the changes written since the last call (binds) to the scheduler.
  void Deliver(ClusterEventSink& s);

  // The current pod objects, in input order.
  std::vector<std::shared_ptr<const api::Pod>> Pods() const;
  std::vector<std::shared_ptr<const api::Node>> Nodes() const { return nodes_; }
  std::vector<RecordedEvent> Events() const;

  // ClusterWriter.
  absl::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string message) override;
  absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) override;
  // Removes the pod (a preemption victim) and remembers it among Evicted().
  absl::Status DeletePod(const api::Pod& pod) override;

  // The pods deleted by the scheduler, in the order of their deletion.
  std::vector<std::shared_ptr<const api::Pod>> Evicted() const;

 private:
  struct Change {
    std::shared_ptr<const api::Pod> old_pod, pod;  // pod == nullptr: old_pod was deleted.
  };

  std::vector<std::shared_ptr<const api::Node>> nodes_;
  std::vector<std::shared_ptr<const api::Namespace>> namespaces_;
  std::vector<std::shared_ptr<const api::PriorityClass>> priority_classes_;
  mutable absl::Mutex mu_;
  std::vector<std::shared_ptr<const api::Pod>> pods_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, size_t, std::less<>> pod_index_ ABSL_GUARDED_BY(mu_);  // uid → index
  std::vector<Change> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedEvent> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const api::Pod>> evicted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::sim
