// The scheduler's cache: every node with the pods bound or assumed on it, and the incremental
// snapshot each scheduling cycle works on. The other objects plugins read are the informers'
// stores (src/api/listers.h), which the scheduler owns beside it.
//
// A pod's life in the cache (upstream's backend/cache/interface.go):
//
//   +-------------------------------------------+  +----+
//   |                            Add            |  |    |
//   |                                           |  |    | Update
//   +      Assume                Add            v  v    |
//  Initial +--------> Assumed +------------+---> Added <--+
//   ^                +   +               |       +
//   |                |   |               |       |
//   |                |   |           Add |       | Remove
//   |                |   |               |       |
//   |                |   |               +       |
//   +----------------+   +-----------> Expired   +----> Deleted
//         Forget             Expire
//
// - Assume: the scheduling cycle chose a node; the pod counts on it from now on.
// - FinishBinding: the bind was sent; an assumed pod may expire after the TTL from here on (a TTL
//   of zero, the default as upstream, means never).
// - Forget: the bind failed; the pod no longer counts on the node.
// - Add: the informer saw the pod bound (confirms an assumed pod, possibly on another node).
// - Update / Remove: the informer saw the bound pod change or go away.
//
//   Cache cache;
//   cache.AddNode(node);
//   cache.AssumePod(pod_info, "node-1");
//   cache.UpdateSnapshot(&snapshot);  // takes only the nodes that changed
//
// Thread safety: all methods are safe to call concurrently (binding threads Forget; informers Add).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/node_info.h"
#include "ksched/pod_groups.h"
#include "ksched/snapshot.h"
#include "src/api/listers.h"

namespace ksched::cache {

class Cache {
 public:
  // `assumed_ttl` of zero: assumed pods never expire (upstream's default since 1.27).
  explicit Cache(absl::Duration assumed_ttl = absl::ZeroDuration());
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Fails if the pod is already in the cache.
  absl::Status AssumePod(std::shared_ptr<const PodInfo> pod, const std::string& node);
  void FinishBinding(std::string_view uid, absl::Time now);
  // Fails if the pod is not assumed.
  absl::Status ForgetPod(std::string_view uid);
  // Removes assumed pods whose binding finished more than the TTL before `now`.
  void CleanupExpiredAssumedPods(absl::Time now);

  // A bound pod seen by the informer: confirms an assumed pod or adds a new one.
  absl::Status AddPod(std::shared_ptr<const PodInfo> pod);
  absl::Status UpdatePod(std::shared_ptr<const PodInfo> pod);
  absl::Status RemovePod(std::string_view uid);

  void AddNode(std::shared_ptr<const api::Node> node);
  void UpdateNode(std::shared_ptr<const api::Node> node);
  // The node's NodeInfo stays (without a node) while pods still point at it.
  void RemoveNode(std::string_view name);

  bool IsAssumedPod(std::string_view uid) const;
  // The node the pod is on or assumed on; "" if the pod is not in the cache.
  std::string NodeOf(std::string_view uid) const;
  // The pod as the cache holds it (bound or assumed); nullptr if it is not in the cache.
  std::shared_ptr<const api::Pod> GetPod(std::string_view uid) const;
  size_t NodeCount() const;
  size_t PodCount() const;
  size_t AssumedPodCount() const;

  // --- Pod groups (GenericWorkload): each group's pods, by the group's namespace and name
  // (upstream's PodGroupState). The scheduler adds and removes the pending ones; assumed and bound
  // ones follow AssumePod, ForgetPod, AddPod and RemovePod. Pods without spec.schedulingGroup
  // are not tracked.
  void AddPodGroupMember(std::shared_ptr<const api::Pod> pod);
  void RemovePodGroupMember(const api::Pod& pod);
  std::optional<PodGroupState> GetPodGroupState(std::string_view ns, std::string_view name) const;

  // Brings `snapshot` up to date: it takes a share of each NodeInfo that changed since the last
  // call with the same snapshot (the cache copies a shared NodeInfo before changing it, so a node
  // no pod came to or left is held once). Use one Snapshot per cache.
  void UpdateSnapshot(Snapshot* snapshot);

 private:
  struct PodState {
    std::shared_ptr<const PodInfo> pod;
    std::string node;
    bool assumed = false;
    bool binding_finished = false;
    absl::Time deadline = absl::InfiniteFuture();
  };

  void AddPodLocked(std::shared_ptr<const PodInfo> pod, const std::string& node)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemovePodLocked(const PodState& state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The pod's group, if it has one, as the pod is placed (assumed or bound), or leaves the cache
  // (`pending`: back among the group's pending pods, as a forgotten pod).
  void PlaceMemberLocked(const api::Pod& pod, bool assumed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UnplaceMemberLocked(const std::shared_ptr<const api::Pod>& pod, bool pending)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The node's NodeInfo, made if missing, unshared and so safe to change.
  NodeInfo& NodeInfoLocked(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MarkDirtyLocked(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CountImagesLocked(const api::Node& node, int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddToTreeLocked(const api::Node& node) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFromTreeLocked(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration ttl_;
  mutable absl::Mutex mu_;
  // Shared with the snapshots that hold the same version of a node; copied before a change while
  // shared (Unshared), so that a snapshot's NodeInfo never changes.
  absl::flat_hash_map<std::string, std::shared_ptr<NodeInfo>> nodes_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, PodState> pods_ ABSL_GUARDED_BY(mu_);
  // Nodes per zone, in insertion order, for upstream's zone-interleaved node order.
  std::vector<std::pair<std::string, std::vector<std::string>>> tree_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int> image_nodes_ ABSL_GUARDED_BY(mu_);
  // Changed since the last UpdateSnapshot.
  absl::flat_hash_set<std::string> dirty_ ABSL_GUARDED_BY(mu_);
  bool tree_changed_ ABSL_GUARDED_BY(mu_) = true;
  bool images_changed_ ABSL_GUARDED_BY(mu_) = true;
  // Ordered by UID, so that GetPodGroupState lists them in a stable order without sorting: it is
  // asked at each PreEnqueue and Permit of a group's pod.
  struct GroupPods {
    std::map<std::string, std::shared_ptr<const api::Pod>> pending;  // By UID.
    std::map<std::string, bool> placed;  // By UID: whether only assumed.
  };
  absl::flat_hash_map<std::string, GroupPods> groups_ ABSL_GUARDED_BY(mu_);  // "ns/name".
};

// The PodGroups of a store, with the cache's states of their pods: a Handle's pod_groups().
class PodGroupView final : public PodGroupLister {
 public:
  // Either may be nullptr: no groups, no states.
  PodGroupView(const ObjectStore<api::PodGroup>* groups, const Cache* cache)
      : groups_(groups), cache_(cache) {}
  std::shared_ptr<const api::PodGroup> GetPodGroup(std::string_view ns,
                                                   std::string_view name) const override {
    return groups_ ? groups_->Get(ns, name) : nullptr;
  }
  std::optional<PodGroupState> GetPodGroupState(std::string_view ns,
                                                std::string_view name) const override {
    return cache_ ? cache_->GetPodGroupState(ns, name) : std::nullopt;
  }

 private:
  const ObjectStore<api::PodGroup>* groups_;
  const Cache* cache_;
};

// The zone of a node: topology.kubernetes.io/zone, with the region, as upstream's GetZoneKey.
std::string ZoneKeyOf(const api::Node& node);

}  // namespace ksched::cache
