// The parts of a pod that the default plugins sign (OpportunisticBatching, SignPlugin), as
// upstream's kube-scheduler/framework/signers.go: the keys they share and the values written under
// them. Each value is canonical: pods that differ only in the order of what upstream sorts (host
// ports, tolerations, node selector terms and their requirements, volumes) get the same value,
// and pods that differ in anything else get different ones.
//
//   out->push_back({helper::kTolerationsSigner, helper::SignTolerations(pod)});
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "ksched/api/objects.h"

namespace ksched::plugins::helper {

// The keys, upstream's signer names.
inline constexpr char kImageNamesSigner[] = "v1.Pod.Spec.CanonicalImageNames()";
inline constexpr char kLabelsSigner[] = "v1.Pod.Labels";
inline constexpr char kNodeNameSigner[] = "v1.Pod.Spec.NodeName";
inline constexpr char kNodeAffinitySigner[] = "v1.Pod.Spec.Affinity.NodeAffinity";
inline constexpr char kNodeSelectorSigner[] = "v1.Pod.Spec.Affinity.NodeSelector";
inline constexpr char kHostPortsSigner[] = "v1.Pod.Spec.HostPorts()";
inline constexpr char kResourcesSigner[] = "v1.Pod.Spec.ContainerRequestsAndOverheads()";
inline constexpr char kTolerationsSigner[] = "v1.Pod.Spec.Tolerations";
inline constexpr char kVolumesSigner[] = "v1.Pod.Spec.Volumes.NonSyntheticSources()";
inline constexpr char kFeaturesSigner[] = "v1.Pod.Spec.RequiredFeatures()";

// The host ports of all containers (init ones too), each once, ascending.
std::string SignHostPorts(const api::Pod& pod);
// The tolerations, ordered by key and value (and then by the rest, where upstream keeps the
// pod's order).
std::string SignTolerations(const api::Pod& pod);
// spec.affinity.nodeAffinity: its required terms and its preferred terms with their weights, each
// term's requirements with their values sorted; "null" without node affinity.
std::string SignNodeAffinity(const api::Pod& pod);
// A map of labels (spec.nodeSelector, metadata.labels).
std::string SignLabels(const api::StringMap& labels);
// The volumes but configMap and secret ones, by their sources (not their names), sorted.
std::string SignVolumes(const api::Pod& pod);

}  // namespace ksched::plugins::helper
