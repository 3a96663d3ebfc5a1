// ClusterWriter: the scheduler's writes to the cluster. The real cluster (src/client) and the
// embedded one (src/sim) both implement it; binder plugins use it through the Handle.
//
//   absl::Status st = handle.writer().Bind(pod, node_name);
//
// Thread safety: implementations must accept calls from several binding threads at once.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ksched/api/objects.h"

namespace ksched {

class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;

  // Binds the pod to the node (POST pods/binding). Blocks until the cluster answers.
  virtual absl::Status Bind(const api::Pod& pod, std::string_view node_name) = 0;

  // Records an event about the pod (events.k8s.io/v1): type "Normal" or "Warning", a reason such
  // as "Scheduled", an action such as "Binding", and the note.
  virtual void RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                           std::string_view action, std::string message) = 0;

  // Sets one of the pod's conditions (PodScheduled, or DisruptionTarget for a preemption victim)
  // and, when `nominated_node` is set, its status.nominatedNodeName ("" clears it). A condition
  // without a type sets only the nominated node. A writer may send it without waiting for the
  // answer (the real cluster's does).
  virtual absl::Status UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                       const std::string* nominated_node) = 0;
  // Sets the condition as UpdatePodStatus does, and returns only once the cluster has answered
  // (NotFound when the pod is gone): for a condition that must be in place before what follows,
  // as a victim's DisruptionTarget before its deletion.
  virtual absl::Status UpdatePodStatusAndWait(const api::Pod& pod,
                                              const api::PodCondition& condition) {
    return UpdatePodStatus(pod, condition, nullptr);
  }

  // Deletes the pod (a preemption victim), with its UID as a precondition, so that a pod created
  // again under the same name is left alone. NotFound when it is gone already.
  virtual absl::Status DeletePod(const api::Pod& pod) = 0;

  // Binds as Bind does without holding the calling thread: `done` gets Bind's result, on a thread
  // of the writer's own or before BindAsync returns, and must not block. The default calls Bind;
  // the real cluster's writer sends the request and returns. (Last, so that plugins built against
  // an older header keep their other methods' places.)
  virtual void BindAsync(const api::Pod& pod, std::string_view node_name,
                         // NOLINTNEXTLINE(performance-unnecessary-value-param): overrides keep it.
                         std::function<void(absl::Status)> done) {
    done(Bind(pod, node_name));
  }

  // --- Volume binding (VolumeBinding's PreBind). Both write only if the object's resourceVersion
  // is still `metadata.resource_version` (an error otherwise: the API server's conflict), block
  // until the cluster answers, and return the object as the cluster stored it (its new
  // resourceVersion). Binds a static PersistentVolume to `claim`: sets its spec.claimRef to the
  // claim and, where `pv` has it, its annotation pv.kubernetes.io/bound-by-controller
  // (VolumeBinding sets it as upstream's GetBindVolumeToClaim does). The PV controller then binds
  // the claim.
  virtual absl::StatusOr<api::PersistentVolume> BindVolumeToClaim(
      const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
    (void)pv, (void)claim;
    return absl::UnimplementedError("this cluster writer does not bind volumes");
  }
  // Sets the claim's annotation volume.kubernetes.io/selected-node to `node`, which asks its
  // class's provisioner for a volume there.
  virtual absl::StatusOr<api::PersistentVolumeClaim> SetSelectedNode(
      const api::PersistentVolumeClaim& claim, std::string_view node) {
    (void)claim, (void)node;
    return absl::UnimplementedError("this cluster writer does not provision volumes");
  }

  // --- Dynamic resource allocation (DynamicResources). Each blocks until the cluster answers.
  // PreBind: where `allocation` is set, adds the finalizer resource.kubernetes.io/delete-protection
  // and sets status.allocation (or, for an allocated claim whose allocation has no
  // allocationTimestamp, sets that to now, as upstream does); then appends `consumer` to
  // status.reservedFor. Writes only over the claim's resourceVersion `metadata.resource_version`;
  // on the API server's conflict, reads the claim again and writes over that, as upstream's
  // bindClaim retries (Aborted, with upstream's message, when the claim got deleted, allocated or
  // deallocated elsewhere meanwhile). Returns the claim as the cluster stored it.
  virtual absl::StatusOr<api::ResourceClaim> ReserveResourceClaim(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer) {
    (void)claim, (void)allocation, (void)consumer;
    return absl::UnimplementedError("this cluster writer does not allocate devices");
  }
  // As ReserveResourceClaim, without holding the calling thread: `done` gets its result, on a
  // thread of the writer's own or before the call returns, and must not block. The default calls
  // ReserveResourceClaim; the real cluster's writer sends each request and returns.
  virtual void ReserveResourceClaimAsync(
      const api::ResourceClaim& claim, const api::AllocationResult* allocation,
      const api::ResourceClaimConsumerReference& consumer,
      // NOLINTNEXTLINE(performance-unnecessary-value-param): overrides keep it.
      std::function<void(absl::StatusOr<api::ResourceClaim>)> done) {
    done(ReserveResourceClaim(claim, allocation, consumer));
  }
  // Unreserve: removes the consumer with this UID from status.reservedFor, at any version.
  virtual absl::Status UnreserveResourceClaim(const api::ResourceClaim& claim,
                                              std::string_view consumer_uid) {
    (void)claim, (void)consumer_uid;
    return absl::UnimplementedError("this cluster writer does not allocate devices");
  }
  // PostFilter: clears status.allocation, reservedFor and devices, if the claim is still at its
  // resourceVersion.
  virtual absl::Status DeallocateResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return absl::UnimplementedError("this cluster writer does not allocate devices");
  }

  // Sets these annotations on the pod (a merge patch of metadata.annotations), without waiting
  // for the answer: kube-scheduler-simulator's results (`ksched run --simulator-annotations`).
  virtual absl::Status PatchPodAnnotations(const api::Pod& pod,
                                           const std::map<std::string, std::string>& annotations) {
    (void)pod, (void)annotations;
    return absl::UnimplementedError("this cluster writer does not annotate pods");
  }

  // Sets `condition` among the PodGroup's status.conditions (replacing the one of its type, with
  // observedGeneration `generation`), without waiting for the answer: the pod group cycle's
  // PodGroupInitiallyScheduled (GenericWorkload).
  virtual absl::Status SetPodGroupCondition(const api::PodGroup& group,
                                            const api::Condition& condition, int64_t generation) {
    (void)group, (void)condition, (void)generation;
    return absl::UnimplementedError("this cluster writer does not write pod groups' status");
  }

  // --- DRA-backed extended resources (DynamicResources), each blocking until the cluster
  // answers. PreBind: creates the claim the scheduler made for a pod's extended resources (its
  // metadata's namespace, generateName, ownerReferences and annotations, and its requests), and
  // returns it as stored, with its name.
  virtual absl::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return absl::UnimplementedError("this cluster writer does not create claims");
  }
  // Unreserve and PostFilter: removes the finalizer resource.kubernetes.io/delete-protection from
  // such a claim, then deletes it (gone already is fine).
  virtual absl::Status DeleteResourceClaim(const api::ResourceClaim& claim) {
    (void)claim;
    return absl::UnimplementedError("this cluster writer does not delete claims");
  }
  // PreBind: sets the pod's status.extendedResourceClaimStatus.
  virtual absl::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
    (void)pod, (void)status;
    return absl::UnimplementedError("this cluster writer does not write pods' claim status");
  }
};

}  // namespace ksched
