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

std::string NotFound(const StorageLister& storage, std::string_view kind, std::string_view ns,
                     std::string_view name) {
  // The API server's names of the resources, as its not-found errors give them.
  const std::string_view resource = kind == "persistentVolumeClaim" ? "persistentvolumeclaim"
                                    : kind == "persistentVolume"    ? "persistentvolume"
                                    : kind == "storageClass"        ? "storageclass.storage.k8s.io"
                                    : kind == "csiNode"             ? "csinode.storage.k8s.io"
                                                                    : kind;
  const std::string why =
      storage.Unreadable(kind, ns.empty() ? std::string(name) : fmt::format("{}/{}", ns, name));
  if (why.empty()) return fmt::format("{} \"{}\" not found", resource, name);
  return fmt::format("{} \"{}\" cannot be decoded: {}", resource, name, why);
}

}  // namespace ksched::plugins::helper
