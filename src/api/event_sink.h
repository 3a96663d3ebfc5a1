// ClusterEventSink: where the cluster's changes go, as kube-scheduler's informers hand them to
// its event handlers. Both sources feed it: the informers of a real cluster (src/client,
// ApiSource) and the embedded cluster of `ksched simulate` (src/sim, Cluster). The scheduler
// implements it (src/scheduler), so a source knows only the API objects and the scheduler knows
// only this interface.
//
//   client::ApiSource informers(http, scheduler, writer);  // scheduler is a ClusterEventSink
//   informers.Start();                                     // OnNodeAdd, OnPodAdd, ... follow
//
// Objects are handed over as shared, immutable values; a sink may keep them.
// Thread safety: implementations accept calls from several threads at once (one reflector thread
// per kind), and calls for one object arrive in the order of its changes.
#pragma once

#include <memory>

#include "ksched/api/objects.h"

namespace ksched {

class ClusterEventSink {
 public:
  virtual ~ClusterEventSink() = default;

  virtual void OnPodAdd(std::shared_ptr<const api::Pod> pod) = 0;
  virtual void OnPodUpdate(const std::shared_ptr<const api::Pod>& old_pod,
                           std::shared_ptr<const api::Pod> pod) = 0;
  virtual void OnPodDelete(const std::shared_ptr<const api::Pod>& pod) = 0;
  virtual void OnNodeAdd(const std::shared_ptr<const api::Node>& node) = 0;
  virtual void OnNodeUpdate(const std::shared_ptr<const api::Node>& old_node,
                            const std::shared_ptr<const api::Node>& node) = 0;
  virtual void OnNodeDelete(const std::shared_ptr<const api::Node>& node) = 0;
  // Namespaces and PriorityClasses: an add or an update sets the object by name.
  virtual void OnNamespaceSet(std::shared_ptr<const api::Namespace> ns) = 0;
  virtual void OnNamespaceDelete(const api::Namespace& ns) = 0;
  virtual void OnPriorityClassSet(std::shared_ptr<const api::PriorityClass> pc) = 0;
  virtual void OnPriorityClassDelete(const api::PriorityClass& pc) = 0;
  // The objects plugins look up by namespace and name (Handle::ListServices, GetReplicaSet, ...,
  // ListPodDisruptionBudgets): an add or an update sets the object, a delete removes it.
  virtual void OnServiceSet(std::shared_ptr<const api::Service> svc) = 0;
  virtual void OnServiceDelete(const api::Service& svc) = 0;
  virtual void OnReplicationControllerSet(std::shared_ptr<const api::ReplicationController> rc) = 0;
  virtual void OnReplicationControllerDelete(const api::ReplicationController& rc) = 0;
  virtual void OnReplicaSetSet(std::shared_ptr<const api::ReplicaSet> rs) = 0;
  virtual void OnReplicaSetDelete(const api::ReplicaSet& rs) = 0;
  virtual void OnStatefulSetSet(std::shared_ptr<const api::StatefulSet> ss) = 0;
  virtual void OnStatefulSetDelete(const api::StatefulSet& ss) = 0;
  virtual void OnPodDisruptionBudgetSet(std::shared_ptr<const api::PodDisruptionBudget> pdb) = 0;
  virtual void OnPodDisruptionBudgetDelete(const api::PodDisruptionBudget& pdb) = 0;
  // The storage objects of the volume plugins (Handle::storage): an add or an update sets the
  // object, a delete removes it; each may move pending pods the volume plugins rejected.
  virtual void OnPersistentVolumeSet(std::shared_ptr<const api::PersistentVolume> pv) = 0;
  virtual void OnPersistentVolumeDelete(const api::PersistentVolume& pv) = 0;
  virtual void OnPersistentVolumeClaimSet(
      std::shared_ptr<const api::PersistentVolumeClaim> pvc) = 0;
  virtual void OnPersistentVolumeClaimDelete(const api::PersistentVolumeClaim& pvc) = 0;
  virtual void OnStorageClassSet(std::shared_ptr<const api::StorageClass> sc) = 0;
  virtual void OnStorageClassDelete(const api::StorageClass& sc) = 0;
  virtual void OnCSINodeSet(std::shared_ptr<const api::CSINode> csi_node) = 0;
  virtual void OnCSINodeDelete(const api::CSINode& csi_node) = 0;
  virtual void OnCSIDriverSet(std::shared_ptr<const api::CSIDriver> driver) = 0;
  virtual void OnCSIDriverDelete(const api::CSIDriver& driver) = 0;
  virtual void OnCSIStorageCapacitySet(std::shared_ptr<const api::CSIStorageCapacity> cap) = 0;
  virtual void OnCSIStorageCapacityDelete(const api::CSIStorageCapacity& cap) = 0;
  virtual void OnVolumeAttachmentSet(std::shared_ptr<const api::VolumeAttachment> va) = 0;
  virtual void OnVolumeAttachmentDelete(const api::VolumeAttachment& va) = 0;
  // An object of `kind` ("persistentVolume", ..., as StorageLister::Unreadable names them, or
  // another kind the source keeps) that the source could not decode, and why; `error` "" once
  // it could (or the object went).
  virtual void OnUnreadable(std::string_view kind, std::string_view key,
                            std::string_view error) = 0;

  // Whether the sink schedules this pod (its schedulerName is one of the sink's profiles). A
  // source tells only those pods' owners about a pod it could not decode.
  virtual bool IsResponsibleFor(const api::Pod& pod) const = 0;
};

}  // namespace ksched
