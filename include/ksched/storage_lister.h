// StorageLister: the storage objects of the cluster, as last watched, for the volume plugins
// (upstream's PV, PVC, StorageClass, CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment
// listers). Objects are shared with the informers' stores, never copied.
//
//   std::shared_ptr<const api::PersistentVolumeClaim> pvc =
//       handle.storage().GetPersistentVolumeClaim(pod.metadata.namespace_, claim_name);
//   if (pvc == nullptr) { ... "persistentvolumeclaim \"data\" not found" ... }
//
// An object the API server sent that ksched cannot decode is not listed: no plugin goes on with
// a version that is no longer there. Unreadable says why, so that a pod that needs it can say so:
//   std::string why = storage.Unreadable("persistentVolumeClaim", "default/data");
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/core.h"
#include "ksched/api/storage.h"

namespace ksched {

class StorageLister {
 public:
  virtual ~StorageLister() = default;
  // nullptr where there is no such object.
  virtual std::shared_ptr<const api::PersistentVolume> GetPersistentVolume(
      std::string_view name) const = 0;
  virtual std::shared_ptr<const api::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view ns, std::string_view name) const = 0;
  virtual std::shared_ptr<const api::StorageClass> GetStorageClass(std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CSINode> GetCSINode(std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CSIDriver> GetCSIDriver(std::string_view name) const = 0;
  // The PersistentVolumes of one class (api::StorageClassOf), by name.
  virtual std::vector<std::shared_ptr<const api::PersistentVolume>> ListPersistentVolumes(
      std::string_view storage_class) const = 0;
  // Every namespace's CSIStorageCapacities, by namespace and name.
  virtual std::vector<std::shared_ptr<const api::CSIStorageCapacity>> ListCSIStorageCapacities()
      const = 0;
  // The VolumeAttachments, by name.
  virtual std::vector<std::shared_ptr<const api::VolumeAttachment>> ListVolumeAttachments()
      const = 0;
  // Grows with every change of a stored object: a plugin that keeps what it computed from them
  // can tell whether they changed since (as NodeInfo::generation() for a node).
  virtual uint64_t Generation() const = 0;
  // Why the object of this kind and key could not be decoded (the field and the problem), or ""
  // if it could be, or was never seen. Kinds: "persistentVolume", "persistentVolumeClaim",
  // "storageClass", "csiNode", "csiDriver", "csiStorageCapacity", "volumeAttachment"; keys:
  // "namespace/name" for claims and capacities, the name for the others.
  virtual std::string Unreadable(std::string_view kind, std::string_view key) const = 0;
};

}  // namespace ksched
