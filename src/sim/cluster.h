// Cluster: an embedded, in-memory Kubernetes cluster for `ksched simulate` and the tests. It holds
// the objects from manifests, feeds them to a scheduler (a ClusterEventSink) as informers would,
// and takes the scheduler's writes (binds, events, pod conditions) as the API server would. It
// plays the disruption controller too: a PodDisruptionBudget without a status gets the one the
// controller would write (sim/disruption.h), kept current as pods are bound and removed; one with
// a status keeps it. And the resourceclaim controller: a pod's ResourceClaimTemplate makes its
// claim (sim/claims.h). And the drivers' controllers: an allocated device with binding conditions
// is attached at once (AttachDevices).
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
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/cluster_writer.h"
#include "src/api/decode.h"
#include "src/api/event_sink.h"

namespace ksched::sim {

struct BoundClaim;  // sim/volumes.h

struct RecordedEvent {
  std::string namespace_, pod, type, reason, action, message;
};

// The PodScheduled message the API server gives a pod created with scheduling gates.
inline constexpr std::string_view kSchedulingGatedMessage =
    "Scheduling is blocked due to non-empty scheduling gates";

class Cluster : public ClusterWriter {
 public:
  // Pods and PersistentVolumeClaims without a UID get "<namespace>/<name>"; namespaced objects
  // without a namespace get "default". PVs and claims without a status get the phase the PV
  // controller would give them (a claim Pending, a PV Available, or Bound if it names a claim),
  // and a claim that names its PV, or a PV whose claimRef names a claim, are bound to each other
  // as the PV controller binds them.
  explicit Cluster(std::vector<api::Object> objects);

  // Namespaces, PriorityClasses, Services, workloads, PodDisruptionBudgets, the DRA objects and
  // storage objects, then nodes, then bound pods, then pending pods; with `hold_pending`, the
  // pending pods wait for AddNextPod.
  void Start(ClusterEventSink& s, bool hold_pending = false);
  // Hands the scheduler the next pending pod Start held, in the order of the scheduling queue
  // (the highest priority first, then input order), as its creation would, with the pods of the
  // same pod group right after it; false if none is left.
  bool AddNextPod(ClusterEventSink& s);
  // Delivers the changes written since the last call (binds, removed pods, then what the
  // resourceclaim controller does to the removed pods' claims), then the
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
  // As the API server writes a claim's status; the scheduler sees the claim at once.
  absl::StatusOr<api::ResourceClaim> ReserveResourceClaim(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer) override;
  absl::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                      std::string_view consumer_uid) override;
  absl::Status DeallocateResourceClaim(const api::ResourceClaim& claim) override;
  // Names the claim from its generateName and a counter ("gpu-pod-extended-resources-00001"), as
  // the API server names it from a random suffix of five characters.
  absl::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override;
  absl::Status DeleteResourceClaim(const api::ResourceClaim& claim) override;
  absl::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;

  // VolumeBinding's writes, answered as the API server, the PV controller and the class's
  // provisioner would (sim/volumes.h); the scheduler given to Start hears of the bound PV and claim
  // at once, as PreBind waits for them. A write to an object changed since the writer read it is
  // a conflict (AlreadyExists), as the API server's.
  absl::StatusOr<api::PersistentVolume> BindVolumeToClaim(
      const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) override;
  absl::StatusOr<api::PersistentVolumeClaim> SetSelectedNode(
      const api::PersistentVolumeClaim& claim, std::string_view node) override;
  // The current PersistentVolumes and claims, in input order (provisioned PVs last).
  std::vector<std::shared_ptr<const api::PersistentVolume>> PersistentVolumes() const;
  std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> PersistentVolumeClaims() const;

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

  // What the resourceclaim controller does: each PodGroup, then each pod, that names a template
  // gets the claim made from it (sim/claims.h), and its status names the claim; a pod whose entry
  // is one of its group's gets the group's claim. A missing template makes none.
  void MakeTemplateClaims() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes a PV (if any) and claim that the cluster bound into the listers of the scheduler given
  // to Start, and tells it.
  void TellBound(const BoundClaim& bound);
  // What the resourceclaim controller does once `pod` is gone (upstream's syncClaim): its
  // reservations go, and a claim reserved for no one any more is deallocated; a claim made for the
  // pod from a template goes (the garbage collector).
  void ReleaseClaims(ClusterEventSink& s, const api::Pod& pod);
  // The stored pod of `pod`'s uid (its slot in pods_), or NotFound as the API server words it.
  absl::StatusOr<std::shared_ptr<const api::Pod>*> StoredPod(const api::Pod& pod)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What a driver's controller does for a device with binding conditions: every allocated one the
  // claim's status.devices does not speak of gets its binding conditions True (reason
  // "Simulated"); one it speaks of is left as the manifest has it, so a manifest can make a
  // device fail.
  static void AttachDevices(api::ResourceClaim& claim);
  // Writes a claim: `change` edits the current one (under mu_) and says whether it changed it;
  // if so, the claim gets a new resourceVersion and the scheduler is told, else it stays as it
  // is, as the API server leaves an object a write does not change. With `check_version`, a
  // conflict if `read` is not current.
  absl::StatusOr<api::ResourceClaim> WriteClaim(
      const api::ResourceClaim& read, bool check_version,
      const std::function<bool(api::ResourceClaim&)>& change);
  // Recounts the computed budgets for a pod that changed from `old_pod` to `pod` (either null:
  // added or removed), and gives those whose disruptionsAllowed moved a new status.
  void CountPod(const api::Pod* old_pod, const api::Pod* pod) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::vector<std::shared_ptr<const api::Node>> nodes_;
  std::vector<std::shared_ptr<const api::ResourceClaim>> resource_claims_;
  int created_claims_ ABSL_GUARDED_BY(mu_) = 0;  // CreateResourceClaim's names.
  // The objects of every other kind of the table, kept as the manifests gave them.
  template <typename T>
  static constexpr bool kAsGiven =
      Listers::kHasStore<T> && !std::is_same_v<T, api::PersistentVolume> &&
      !std::is_same_v<T, api::PersistentVolumeClaim> && !std::is_same_v<T, api::ResourceClaim> &&
      !std::is_same_v<T, api::PodDisruptionBudget>;
  template <typename T>
  using AsGiven =
      std::conditional_t<kAsGiven<T>, std::vector<std::shared_ptr<const T>>, std::monostate>;
  template <typename V>
  struct AsGivenOf;
  template <typename... T>
  struct AsGivenOf<std::variant<T...>> {
    using type = std::tuple<AsGiven<T>...>;
  };
  AsGivenOf<api::Object>::type as_given_;
  template <typename T>
  const std::vector<std::shared_ptr<const T>>& Given() const {
    return std::get<std::vector<std::shared_ptr<const T>>>(as_given_);
  }
  std::vector<std::shared_ptr<const api::Pod>> held_;  // Start's pending pods, the next last.
  ClusterEventSink* sink_ = nullptr;                   // Start's.
  mutable absl::Mutex mu_;
  std::vector<std::shared_ptr<const api::PersistentVolume>> pvs_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> pvcs_ ABSL_GUARDED_BY(mu_);
  int64_t storage_version_ ABSL_GUARDED_BY(mu_) = 0;  // The last resourceVersion given.
  // In input order; a removed pod leaves a null.
  std::vector<std::shared_ptr<const api::Pod>> pods_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, size_t, std::less<>> pod_index_ ABSL_GUARDED_BY(mu_);  // uid → index
  std::vector<Change> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<Budget> budgets_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedEvent> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const api::Pod>> evicted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::sim
