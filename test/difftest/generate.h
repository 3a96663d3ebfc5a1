// Random scheduling cases for the differential test against kube-scheduler, and their shrinking.
// A case has the shape of a scenario file (test/scenarios/*.yaml) without "expect":
// PriorityClasses, Nodes, pods already bound to a node and pending pods, all as `kubectl create`
// accepts them.
//
//   nlohmann::json c = GenerateCase(42);   // {"description": "random case, seed 42", "cluster":
//   [...]} if (Differs(c)) c = Shrink(c, Differs, 500);
//
// The functions are pure: no I/O, no global state; they are safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "nlohmann/json.hpp"

namespace ksched::difftest {

// The case of `seed`. The same seed gives byte-identical JSON with every standard library (the
// picks use std::mt19937_64, whose sequence the standard fixes, and no distributions).
//
// Every object is valid for the API server: names are DNS-1123, an extended resource
// (example.com/gpu) has a limit equal to its request, taint keys avoid node.kubernetes.io/ (whose
// tolerations admission adds), a pod's hostPorts are distinct, and a priorityClassName names one
// of the case's PriorityClasses. Pods never set priority, overhead, scheduling gates or
// schedulerName. Bound pods sit on nodes without NoExecute taints, so that no taint eviction
// removes them. Half the cases have storage: StorageClasses, CSINodes, PVs and claims, which
// some pods' volumes name (a claim that does not exist, at times). Two in five have devices:
// DeviceClasses, ResourceSlices and a ResourceClaim for some pending pods. About a third have a
// burst: two to four copies of a pending pod, right after it, as a ReplicaSet makes them; half of
// those without PriorityClasses are given at once ("burst": true) to a profile whose
// PodTopologySpread has no default constraints ("config"), where OpportunisticBatching batches
// them. A fifth have node declared
// features: nodes that declare RestartAllContainersOnContainerExits, and pending pods whose first
// container restarts them all on an exit code. A quarter have partitionable devices: MIG-style
// GPUs whose whole and partitions consume one counter set, FPGAs sharing a rack's power, and
// claims for some pending pods. A quarter have consumable capacity: NICs that allow multiple
// allocations of their bandwidth, and claims for some of it. A fifth of those that do not batch
// have gangs: one or two PodGroups with their pending pods (whole, short of minCount, fewer than
// minCount placeable, at times with a priority that needs preemption), and the flag
// --feature-gates=GenericWorkload=true in "args".
nlohmann::json GenerateCase(uint64_t seed);

// Variants of case `c`, each strictly smaller (one object or one field fewer) and as valid as `c`,
// most aggressive first: without a pending pod, a bound pod, a node (with the pods bound to it), an
// unreferenced PriorityClass, Namespace or PodGroup, a storage or DRA object; then one pod field
// fewer (affinity or a part of it, nodeSelector, tolerations, initContainers, volumes or one
// volume, resourceClaims, a container, a host port, priorityClassName, one resource's request);
// then one node field fewer (a label other than kubernetes.io/hostname, a taint, images,
// unschedulable). Empty when nothing can be removed.
std::vector<nlohmann::json> ShrinkCandidates(const nlohmann::json& c);

// Greedy shrinking: repeatedly replaces the case with its first candidate (ShrinkCandidates) for
// which `still_fails` is true, until no candidate is or `still_fails` has been called `max_tries`
// times. Returns the smallest failing case found (`c` itself if none smaller fails; `c` is assumed
// to fail and is not tested).
nlohmann::json Shrink(const nlohmann::json& c,
                      const std::function<bool(const nlohmann::json&)>& still_fails, int max_tries);

}  // namespace ksched::difftest
