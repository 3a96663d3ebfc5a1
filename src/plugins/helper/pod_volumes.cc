#include "src/plugins/helper/pod_volumes.h"

#include "fmt/format.h"

namespace ksched::plugins::helper {

std::optional<PodClaim> ClaimOf(const api::Pod& pod, const api::Volume& v) {
  if (v.source == "persistentVolumeClaim") return PodClaim{v.claim_name, false};
  if (v.source == "ephemeral") return PodClaim{pod.metadata.name + "-" + v.name, true};
  return std::nullopt;
}

bool UsesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  if (pod.metadata.namespace_ != pvc.metadata.namespace_) return false;
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const auto& v) {
    std::optional<PodClaim> claim = ClaimOf(pod, v);
    return claim && claim->name == pvc.metadata.name;
  });
}

absl::Status VolumeIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  const auto& owners = pvc.metadata.owner_references;
  const bool controlled = std::any_of(owners.begin(), owners.end(), [&](const auto& o) {
    return o.controller && o.uid == pod.metadata.uid;
  });
  if (pvc.metadata.namespace_ != pod.metadata.namespace_ || !controlled) {
    return absl::FailedPreconditionError(fmt::format(
        "PVC {}/{} was not created for pod {}/{} (pod is not owner)", pvc.metadata.namespace_,
        pvc.metadata.name, pod.metadata.namespace_, pod.metadata.name));
  }
  return absl::OkStatus();
}

}  // namespace ksched::plugins::helper
