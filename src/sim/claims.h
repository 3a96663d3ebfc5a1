// The resourceclaim controller's part in `ksched simulate`: a pod (or a PodGroup) that names a
// ResourceClaimTemplate gets the claim kube-controller-manager would make from it, and its
// status.resourceClaimStatuses names it, so that the scheduler sees the pod as it would once the
// controller has run (upstream's pkg/controller/resourceclaim).
//
//   api::ResourceClaim claim = ClaimFromTemplate(pod, pod.spec.resource_claims[0], tmpl);
//
// The claim is named as the controller names it: "<pod>-<claim>-" (where that is longer than 57
// characters, both names cut in proportion and joined by one hyphen), then five characters of the
// API server's generateName alphabet, which simulate derives from the pod and claim names rather
// than at random, so that a run is repeatable.
// It has the pod as its controlling owner, the template's labels, and its annotations with
// resource.kubernetes.io/pod-claim-name. Its UID is "<namespace>/<name>", as simulate gives objects
// without one.
//
// Thread safety: the functions are pure.
#pragma once

#include <string>

#include "ksched/api/objects.h"

namespace ksched::sim {

// The annotation that names the pod's claim a generated ResourceClaim is for.
inline constexpr char kPodClaimNameAnnotation[] = "resource.kubernetes.io/pod-claim-name";

// The ResourceClaim the controller makes for `pod`'s `pod_claim` from `tmpl`.
api::ResourceClaim ClaimFromTemplate(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                                     const api::ResourceClaimTemplate& tmpl);
// The one it makes for a PodGroup's claim (DRAWorkloadResourceClaims): "<group>-<claim>-", with
// the group as its controlling owner; the group's pods whose entry is the same share it.
api::ResourceClaim ClaimFromTemplate(const api::PodGroup& group,
                                     const api::PodResourceClaim& group_claim,
                                     const api::ResourceClaimTemplate& tmpl);

}  // namespace ksched::sim
