// Cluster: an embedded, in-memory Kubernetes cluster for `ksched simulate` and the tests. It holds
// the objects from manifests, feeds them to a scheduler (a ClusterEventSink) as informers would,
// and takes the scheduler's writes (binds, events, pod conditions) as the API server would. It
// plays the disruption controller too: a PodDisruptionBudget without a status gets the one the
// controller would write (sim/disruption.h), kept current as pods are bound and removed; one with
// a status keeps it.
//
//   sim::Cluster cluster(objects);
//   cluster.Start(scheduler);           // nodes, then bound pods, then pending pods
//   while (scheduler.ScheduleOne()) cluster.Deliver(scheduler);
//
// or, pods given one at a time: Start(scheduler, /*hold_pending=*/true), then AddNextPod each time
// the scheduler has settled.
//
// Thread safety: the ClusterWriter methods may be called from binding threads; Start, AddNextPod
// and Deliver from the thread that drives the scheduler.
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
  // Pods without a UID get "<namespace>/<name>"; pods, Services, workloads and
  // PodDisruptionBudgets without a namespace get "default".
  explicit Cluster(std::vector<api::Object> objects);

  // Namespaces, PriorityClasses, Services, workloads and PodDisruptionBudgets, then nodes, then
  // bound pods, then pending pods; with `hold_pending`, the pending pods wait for AddNextPod.
  void Start(ClusterEventSink& s, bool hold_pending = false);
  // Hands the scheduler the next pending pod Start held, in the order of the scheduling queue
  // (the highest priority first, then input order), as its creation would; false if none is left.
  bool AddNextPod(ClusterEventSink& s);
  // Delivers the changes written since the last call (binds, removed pods), then the
  // PodDisruptionBudgets whose status they changed, to the scheduler.
  void Deliver(ClusterEventSink& s);

  // The current pod objects, in input order.
  std::vector<std::shared_ptr<const api::Pod>> Pods() const;
  std::vector<std::shared_ptr<const api::Node>> Nodes() const { return nodes_; }
  std::vector<RecordedEvent> Events() const;
  // The current PodDisruptionBudgets, in input order.
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> PodDisruptionBudgets() const;

  // ClusterWriter.
  absl::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string message) override;
  absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                               const std::string* nominated_node) override;
  // Removes the pod (a preemption victim), as the API server does, and remembers it among
  // Evicted(). NotFound if it is not there.
  absl::Status DeletePod(const api::Pod& pod) override;

  // The pods deleted by the scheduler, in the order of their deletion.
  std::vector<std::shared_ptr<const api::Pod>> Evicted() const;

 private:
  struct Change {
    std::shared_ptr<const api::Pod> old_pod, pod;  // pod == nullptr: old_pod was deleted.
  };
  struct Budget {
    std::shared_ptr<const api::PodDisruptionBudget> pdb;
    // Whether the cluster computes its status (the manifest gave none), from the number of pods
    // it selects and how many of those are healthy.
    bool computed = false;
    int32_t pods = 0, healthy = 0;
    bool changed = false;  // Since the last Deliver.
  };

  // Recounts the computed budgets for a pod that changed from `old_pod` to `pod` (either null:
  // added or removed), and gives those whose disruptionsAllowed moved a new status.
  void CountPod(const api::Pod* old_pod, const api::Pod* pod) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::vector<std::shared_ptr<const api::Node>> nodes_;
  std::vector<std::shared_ptr<const api::Namespace>> namespaces_;
  std::vector<std::shared_ptr<const api::PriorityClass>> priority_classes_;
  std::vector<std::shared_ptr<const api::Service>> services_;
  std::vector<std::shared_ptr<const api::ReplicationController>> replication_controllers_;
  std::vector<std::shared_ptr<const api::ReplicaSet>> replica_sets_;
  std::vector<std::shared_ptr<const api::StatefulSet>> stateful_sets_;
  std::vector<std::shared_ptr<const api::Pod>> held_;  // Start's pending pods, the next last.
  mutable absl::Mutex mu_;
  // In input order; a removed pod leaves a null.
  std::vector<std::shared_ptr<const api::Pod>> pods_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, size_t, std::less<>> pod_index_ ABSL_GUARDED_BY(mu_);  // uid → index
  std::vector<Change> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<Budget> budgets_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedEvent> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const api::Pod>> evicted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::sim
