// A pod's claims, as the volume plugins read them: its persistentVolumeClaim volumes, and the
// claims of its generic ephemeral volumes ("<pod>-<volume>", which the pod must own).
//
//   if (!helper::HasClaimVolume(pod)) return Status::Skip();
//   return helper::NamesClaim(pod, *e.storage.pvc.new_obj) ? QueueingHint::kQueue : ...;
//   std::optional<helper::PodClaim> claim = helper::ClaimOf(pod, volume);
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ksched/api/objects.h"
#include "ksched/storage_lister.h"

namespace ksched::plugins::helper {

// Whether the pod has a persistentVolumeClaim volume.
inline bool HasClaimVolume(const api::Pod& pod) {
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(),
                     [](const api::Volume& v) { return v.source == "persistentVolumeClaim"; });
}

// Whether one of the pod's persistentVolumeClaim volumes names `pvc` (in the pod's namespace).
inline bool NamesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  if (pvc.metadata.namespace_ != pod.metadata.namespace_) return false;
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const api::Volume& v) {
    return v.source == "persistentVolumeClaim" && v.claim_name == pvc.metadata.name;
  });
}

// The claim a pod's volume uses: its name, and whether it is a generic ephemeral volume's
// ("<pod>-<volume>"). nullopt for a volume without a claim.
struct PodClaim {
  std::string name;
  bool ephemeral = false;
};
std::optional<PodClaim> ClaimOf(const api::Pod& pod, const api::Volume& volume);

// Whether the pod uses `pvc`, as a persistentVolumeClaim or a generic ephemeral volume's claim.
bool UsesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& pvc);

// Why a storage object a pod needs is not in the lister: upstream's not-found error, e.g.
// `persistentvolumeclaim "data" not found`, or, when ksched saw the object but could not decode
// it (StorageLister::Unreadable), which field and why: `persistentvolumeclaim "data" cannot be
// decoded: spec.resources.requests.storage: ...`. `kind` as Unreadable names it
// ("persistentVolumeClaim", "persistentVolume", "storageClass", "csiNode"); `ns` "" for
// cluster-scoped kinds.
std::string NotFound(const StorageLister& storage, std::string_view kind, std::string_view ns,
                     std::string_view name);

// Whether an ephemeral volume's claim was made for the pod (the pod controls it), as upstream's
// ephemeral.VolumeIsForPod: "PVC ns/name was not created for pod ns/pod (pod is not owner)".
absl::Status VolumeIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& pvc);

}  // namespace ksched::plugins::helper
