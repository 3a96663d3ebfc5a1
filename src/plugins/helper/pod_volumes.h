// A pod's PersistentVolumeClaim volumes (spec.volumes[].persistentVolumeClaim), as the volume
// plugins that look only at those (VolumeRestrictions, VolumeZone) read them. VolumeBinding also
// counts generic ephemeral volumes' claims (volume_binding/binder.h, ClaimOf).
//
//   if (!helper::HasClaimVolume(pod)) return Status::Skip();
//   return helper::NamesClaim(pod, *e.storage.pvc.new_obj) ? QueueingHint::kQueue : ...;
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>

#include "ksched/api/objects.h"

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

}  // namespace ksched::plugins::helper
