// The volume binder of VolumeBinding (upstream's volumebinding/binder.go): which of a pod's claims
// are bound, which PersistentVolumes could serve the unbound ones on a node, and the bindings the
// pod's PreBind writes (a static PV's claimRef, a claim's selected-node annotation) before it waits
// for the PV controller to finish them.
//
//   Binder binder(handle, absl::Seconds(600));
//   absl::StatusOr<PodVolumeClaims> claims = binder.GetPodVolumeClaims(pod);       // PreFilter
//   absl::StatusOr<PodVolumes> found = binder.FindPodVolumes(*claims, node, &reasons);  // Filter
//   binder.AssumePodVolumes(pod, node_name, &volumes);                             // Reserve
//   absl::Status st = binder.BindPodVolumes(pod, node_name, volumes);              // PreBind
//
// Assumed objects (a PV given a claimRef, a claim given a selected node by Reserve) live in an
// assume cache over the informers' stores, as upstream's passive assume cache: an assumed object
// is seen in place of the stored one while the store holds the version it was made from, so two
// pods never get the same static PV, and it is dropped once the store moves on or Unreserve
// restores it. Stored objects are shared, never copied.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/handle.h"

namespace ksched::plugins::volume_binding {

// Filter's reasons, as upstream words them.
inline constexpr char kErrReasonBindConflict[] =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr char kErrReasonNodeConflict[] =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr char kErrReasonNotEnoughSpace[] = "node(s) did not have enough free storage";
inline constexpr char kErrReasonPVNotExist[] =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

using PV = api::PersistentVolume;
using PVC = api::PersistentVolumeClaim;

// Objects of one kind seen through the assumptions made on them. Keys are "name" (PVs) or
// "namespace/name" (claims).
template <typename T>
class AssumeCache {
 public:
  // `stored` as the cache shows it: the assumed object if one was made from this version.
  std::shared_ptr<const T> Overlay(std::shared_ptr<const T> stored) const;
  // Shows `obj` in place of `stored` from now on. Fails if `stored` is gone (nullptr) or is of
  // another version than `obj`: "\"<key>\" is out of sync (stored: 5, assume: 4)".
  absl::Status Assume(std::shared_ptr<const T> obj, const std::shared_ptr<const T>& stored);
  // Drops the assumption `obj` (a no-op if another one replaced it).
  void Restore(const T& obj);

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<const T>, std::less<>> assumed_ ABSL_GUARDED_BY(mu_);
};

// A pod's claims sorted by what they still need (PreFilter's work for Filter).
struct PodVolumeClaims {
  std::vector<std::shared_ptr<const PVC>> bound;
  // Their PVs (null where missing), read once for every node Filter checks.
  std::vector<std::shared_ptr<const PV>> bound_volumes;
  std::vector<std::shared_ptr<const PVC>> unbound_delay_binding;  // WaitForFirstConsumer.
  std::vector<std::shared_ptr<const PVC>> unbound_immediate;
  // The PVs of each class an unbound WaitForFirstConsumer claim asks for.
  std::map<std::string, std::vector<std::shared_ptr<const PV>>, std::less<>> unbound_volumes;
};

// What a node needs done for the pod's unbound claims.
struct PodVolumes {
  struct StaticBinding {
    std::shared_ptr<const PV> pv;
    std::shared_ptr<const PVC> pvc;
  };
  struct DynamicProvision {
    std::shared_ptr<const PVC> pvc;
    // The CSIStorageCapacity that has room for it on the node, where the class's CSIDriver tracks
    // capacity (the storage-capacity score reads it); null otherwise.
    std::shared_ptr<const api::CSIStorageCapacity> capacity;
  };
  std::vector<StaticBinding> static_bindings;
  std::vector<DynamicProvision> dynamic_provisions;
};

class Binder {
 public:
  Binder(Handle& handle, absl::Duration bind_timeout)
      : handle_(handle), bind_timeout_(bind_timeout) {}

  // The pod's claims, sorted. Errors (a claim that is gone, an ephemeral claim not made for this
  // pod) are upstream's, word for word.
  absl::StatusOr<PodVolumeClaims> GetPodVolumeClaims(const api::Pod& pod) const;
  // What `node` needs done for the claims, or, in `reasons`, why it cannot serve them (upstream's
  // kErrReason* in its order). An error is a broken object (a claim without a class to provision).
  absl::StatusOr<PodVolumes> FindPodVolumes(const PodVolumeClaims& claims, const api::Node& node,
                                            std::vector<std::string>* reasons) const;
  // Reserve: assumes the bindings of `volumes`, which then hold the assumed objects. Returns
  // whether every claim of the pod was bound already (nothing for PreBind to do).
  absl::StatusOr<bool> AssumePodVolumes(const api::Pod& pod, std::string_view node,
                                        PodVolumes* volumes);
  // Unreserve: drops the assumptions of `volumes`.
  void RevertAssumedPodVolumes(const PodVolumes& volumes);
  // PreBind: writes the bindings, then waits up to the bind timeout until the PV controller has
  // bound every claim. An error says why ("binding volumes: context deadline exceeded", ...);
  // the assumptions of what was not written are dropped.
  absl::Status BindPodVolumes(const api::Pod& pod, const api::Node& node, PodVolumes volumes);

  // The claims seen through the assume cache, by namespace and name; nullptr if there is none.
  std::shared_ptr<const PVC> GetClaim(std::string_view ns, std::string_view name) const;
  std::shared_ptr<const PV> GetVolume(std::string_view name) const;

 private:
  // Whether every claim of `bindings` and `provisions` is bound as asked; an error if one went
  // wrong for good.
  absl::StatusOr<bool> CheckBindings(const api::Pod& pod, const api::Node& node,
                                     const PodVolumes& written) const;
  // Whether a node can provision `claims` (sets *satisfied and *sufficient as upstream's
  // checkVolumeProvisions); appends what is to be provisioned to `out`.
  absl::Status CheckVolumeProvisions(const std::vector<std::shared_ptr<const PVC>>& claims,
                                     const api::Node& node, bool* satisfied, bool* sufficient,
                                     std::vector<PodVolumes::DynamicProvision>* out) const;
  // Whether the provisioner has room for `claim` on `node`, and if it tracks capacity, the first
  // CSIStorageCapacity that has (in *capacity).
  bool HasEnoughCapacity(const std::string& provisioner, const PVC& claim,
                         const api::StorageClass& storage_class, const api::Node& node,
                         std::shared_ptr<const api::CSIStorageCapacity>* capacity) const;

  Handle& handle_;
  const absl::Duration bind_timeout_;
  AssumeCache<PV> pvs_;
  AssumeCache<PVC> pvcs_;
};

// Upstream's helpers of k8s.io/component-helpers/storage/volume, on our objects.
// Whether a PV's required node affinity admits the node with `labels` (none admits every node).
bool CheckNodeAffinity(const PV& pv, const api::StringMap& labels);
bool CheckNodeAffinity(const api::NodeSelector& affinity, const api::StringMap& labels);
// The smallest available PV of `volumes` that can serve `claim` on `node`, skipping `excluded`
// (names); a PV bound to the claim already wins. nullptr if none can.
std::shared_ptr<const PV> FindMatchingVolume(const PVC& claim,
                                             const std::vector<std::shared_ptr<const PV>>& volumes,
                                             const api::Node& node,
                                             const std::vector<std::string>& excluded);
// Whether the claim is bound for good: it names its volume and the PV controller said it is done.
bool IsClaimFullyBound(const PVC& claim);
// Whether the node's labels satisfy the terms (no term: every node does).
bool MatchTopologySelectorTerms(const std::vector<api::TopologySelectorTerm>& terms,
                                const api::StringMap& labels);

}  // namespace ksched::plugins::volume_binding
