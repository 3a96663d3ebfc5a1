// A case's pods as the API server shows them at one moment, and what follows from two such
// moments. kube-scheduler goes on after the decision the harness waits for: a pod it left pending
// is tried again when an event may help it (a preemption's victims gone, a pod its affinity
// needs), and may bind while the next pods are given. So the harness reads the cluster before
// each pod rather than rebuilding it from the decisions: it gives `ksched simulate` that state,
// and brings ksched's cluster to it before ksched gets the same pod.
//
//   PodStates before = ...;                         // read before pod i, on kube-scheduler's turn
//   for (const Step& s : StepsToReach(before, now)) // on ksched's turn: delete, create on a node
//   json input = SimulationInput(c, before, storage, {c.pending[i]}, "up-");
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "test/difftest/case.h"

namespace ksched::difftest {

// The case's pods that exist, as the API server returned them, by "namespace/name".
using PodStates = std::map<std::string, nlohmann::json>;

// The case's pods of a pod list from the API server (those of `c.setup` and `c.pending`), each
// with the apiVersion and kind that a list's items leave out.
PodStates CasePods(const Case& c, const nlohmann::json& pod_list);

// Whether the pod is being deleted.
bool Terminating(const nlohmann::json& pod);

// The pod's node in `s`: "" when it is pending, or not there.
std::string NodeOf(const PodStates& s, const std::string& key);

// One line per pod: where it is, whether it is going and the node it is nominated to. Two
// states that schedule the next pod alike have the same placement.
std::string Placement(const PodStates& s);

// A change that brings one pod of a cluster to where it is in another.
struct Step {
  std::string key;
  bool remove = false;  // Delete the pod first.
  std::string node;     // Then create it bound to this node ("" for none).

  bool operator==(const Step&) const = default;
};

// What brings `now` to `target`, pod by pod in key order: every pod bound in `target` bound to
// the same node, and no other pod bound. A pod pending in `target` may stay pending (it takes no
// room) or be gone; one not in `target` at all is deleted.
std::vector<Step> StepsToReach(const PodStates& target, const PodStates& now);

// The pods in `before` (not being deleted) that are gone or being deleted in `now`, sorted.
std::vector<std::string> Removed(const PodStates& before, const PodStates& now);

// A pending pod of a case, for the scheduler whose profiles' names are the case's with `prefix`.
nlohmann::json ForScheduler(nlohmann::json pod, const std::string& prefix);

// A pod of `c` ready to be created again bound to `node`, with the start time `target` shows
// for it (which preemption compares), and `prefix` on its schedulerName if it was pending.
nlohmann::json BoundCopy(const Case& c, const std::string& key, const std::string& node,
                         const PodStates& target, const std::string& prefix);

// The cluster's PersistentVolumes and claims, which the schedulers and the PV controller change
// as pods go: by "PersistentVolume/<name>" and "PersistentVolumeClaim/<namespace>/<name>", as
// the API server returned them, each with its apiVersion and kind.
using Storage = std::map<std::string, nlohmann::json>;

// The PVs, claims and resource claims ("ResourceClaim/<namespace>/<name>") of three lists from
// the API server.
Storage StorageOf(const nlohmann::json& pv_list, const nlohmann::json& pvc_list,
                  const nlohmann::json& resource_claim_list = nlohmann::json::object());

// One line per PV and claim: what it is bound to, its phase, the claim's selected node, and
// whether it is going; per resource claim, its devices. Two storages that schedule the next pod
// alike have the same binding.
std::string Binding(const Storage& s);

// Whether the PV controller has a binding to finish: a claim that names a volume but is not yet
// Bound (or Lost), or a PV not yet Available, or whose claimRef names a claim's uid (as a
// scheduler writes it) but that is not yet Bound (or Released).
bool BindingInFlight(const Storage& s);

// The case's pods and the cluster's PVs and claims at one moment.
struct ClusterState {
  PodStates pods;
  Storage storage;
};

// A PV or claim as the API server returned it, ready to be created again bound as it was: without
// what the API server and the PV controller write (uid, resourceVersion, creationTimestamp,
// finalizers, status, the annotations of a completed binding, claimRef's uid), which they write
// again.
nlohmann::json Recreatable(nlohmann::json o);

// The objects `ksched simulate` gets to decide `pending` on `pods` and `storage`: the case's
// objects other than pods, PVs and claims, its PodGroups, the PVs and claims of `storage` and every
// pod of `pods` bound or pending with a nominated node (one waiting for its victims, whose place
// both schedulers hold), as the API server returned them but for their managedFields and `prefix`
// taken off a pod's schedulerName, then the `pending` pods, in order. Pods being deleted stay: a
// scheduler counts them until they are gone.
nlohmann::json SimulationInput(const Case& c, const PodStates& pods, const Storage& storage,
                               const std::vector<nlohmann::json>& pending,
                               const std::string& prefix);

}  // namespace ksched::difftest
