// ClusterEventSink: where the cluster's changes go, as kube-scheduler's informers hand them to
// its event handlers. Both sources feed it: the informers of a real cluster (src/client,
// ApiSource) and the embedded cluster of `ksched simulate` (src/sim, Cluster). The scheduler
// implements it (src/scheduler), so a source knows only the API objects and the scheduler knows
// only this interface. Pods and nodes are handed over; every other object the source writes into
// the sink's listers(), the one copy the scheduler keeps of them.
//
//   client::ApiSource informers(http, scheduler, writer);  // scheduler is a ClusterEventSink
//   informers.Start();                                     // OnNodeAdd, OnPodAdd, ... follow
//
// Objects are handed over as shared, immutable values; a sink may keep them.
// Thread safety: implementations accept calls from several threads at once (one reflector thread
// per kind), and calls for one object arrive in the order of its changes.
#pragma once

#include <memory>
#include <type_traits>

#include "ksched/api/objects.h"
#include "src/api/listers.h"

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
  // The stores of every other object the scheduler's plugins read (Handle::GetNamespace,
  // ListServices, ..., storage): the sink owns them, the source keeps them in step with the
  // cluster. The sink must outlive the source's writes.
  virtual Listers& listers() = 0;
  // A change the source made to a store of listers().storage: the object before (nullptr: it was
  // added) and after (nullptr: it was deleted). Each may move pending pods the volume plugins
  // rejected. The other stores change with no call, as no plugin registers events for them.
  virtual void OnPersistentVolumeChange(std::shared_ptr<const api::PersistentVolume> old,
                                        std::shared_ptr<const api::PersistentVolume> now) = 0;
  virtual void OnPersistentVolumeClaimChange(
      std::shared_ptr<const api::PersistentVolumeClaim> old,
      std::shared_ptr<const api::PersistentVolumeClaim> now) = 0;
  virtual void OnStorageClassChange(std::shared_ptr<const api::StorageClass> old,
                                    std::shared_ptr<const api::StorageClass> now) = 0;
  virtual void OnCSINodeChange(std::shared_ptr<const api::CSINode> old,
                               std::shared_ptr<const api::CSINode> now) = 0;
  virtual void OnCSIDriverChange(std::shared_ptr<const api::CSIDriver> old,
                                 std::shared_ptr<const api::CSIDriver> now) = 0;
  virtual void OnCSIStorageCapacityChange(std::shared_ptr<const api::CSIStorageCapacity> old,
                                          std::shared_ptr<const api::CSIStorageCapacity> now) = 0;
  virtual void OnVolumeAttachmentChange(std::shared_ptr<const api::VolumeAttachment> old,
                                        std::shared_ptr<const api::VolumeAttachment> now) = 0;
  // A change of a store of listers().dra (templates excepted), as the storage ones.
  virtual void OnResourceClaimChange(std::shared_ptr<const api::ResourceClaim> old,
                                     std::shared_ptr<const api::ResourceClaim> now) = 0;
  virtual void OnResourceSliceChange(std::shared_ptr<const api::ResourceSlice> old,
                                     std::shared_ptr<const api::ResourceSlice> now) = 0;
  virtual void OnDeviceClassChange(std::shared_ptr<const api::DeviceClass> old,
                                   std::shared_ptr<const api::DeviceClass> now) = 0;

  // Whether the sink schedules this pod (its schedulerName is one of the sink's profiles). A
  // source tells only those pods' owners about a pod it could not decode.
  virtual bool IsResponsibleFor(const api::Pod& pod) const = 0;
};

// How a source changes a store of sink.listers().storage: sets `obj`, then tells the sink what it
// replaced (`tell`, as &ClusterEventSink::OnPersistentVolumeChange).
template <typename T>
void SetStorageObject(ClusterEventSink& sink, ObjectStore<T>& store,
                      std::type_identity_t<std::shared_ptr<const T>> obj,
                      void (ClusterEventSink::*tell)(std::shared_ptr<const T>,
                                                     std::shared_ptr<const T>)) {
  std::shared_ptr<const T> old = store.Set(obj);
  (sink.*tell)(std::move(old), std::move(obj));
}

}  // namespace ksched
