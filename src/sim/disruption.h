// The disruption controller's part in `ksched simulate`: the status.disruptionsAllowed of a
// PodDisruptionBudget whose manifest gave no status, as pkg/controller/disruption computes it
// (getExpectedPodCount, countHealthyPods, updatePdbStatus), kept current by sim::Cluster as it
// binds and removes pods.
//
//   int32_t pods = 0, healthy = 0;
//   for (const auto& pod : all) if (Selects(pdb, *pod)) { ++pods; healthy += IsHealthy(*pod); }
//   pdb.disruptions_allowed = DisruptionsAllowed(pdb, pods, healthy);
//
// Where simulate differs from the controller (it has no kubelet and no workload controllers):
// - A pod is healthy when it is bound to a node, not terminating and not finished; the controller
//   asks for the pod's Ready condition, which no kubelet writes here.
// - For a percentage or maxUnavailable, the controller's expected count is the sum of the scale
//   of the matching pods' controllers (a ReplicaSet's spec.replicas, ...); simulate has no such
//   controllers running, so it is the number of matching pods (as for an integer minAvailable).
// - No pod is being disrupted (status.disruptedPods stays empty): preemption deletes its victims
//   without the eviction API that would list them there.
//
// Thread safety: the functions are pure.
#pragma once

#include <cstdint>

#include "ksched/api/objects.h"

namespace ksched::sim {

// Whether the budget covers the pod, as the controller lists them (getPodsForPdb): a pod of the
// budget's namespace that its selector matches. An absent selector selects no pod; an empty one
// selects every pod of the namespace.
bool Selects(const api::PodDisruptionBudget& pdb, const api::Pod& pod);

// Whether the pod counts toward currentHealthy: bound to a node, not terminating
// (metadata.deletionTimestamp) and not Succeeded or Failed.
bool IsHealthy(const api::Pod& pod);

// status.disruptionsAllowed for a budget that covers `pods` pods, `healthy` of them healthy:
// currentHealthy - desiredHealthy, and 0 when that is negative or when no pod is expected.
// minAvailable and maxUnavailable percentages round up (intstr.GetScaledValueFromIntOrPercent).
int32_t DisruptionsAllowed(const api::PodDisruptionBudget& pdb, int32_t pods, int32_t healthy);

}  // namespace ksched::sim
