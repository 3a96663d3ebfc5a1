// Nominator: the pods that preemption nominated to a node, waiting for their victims to leave
// (upstream's queue/nominator.go). The scheduling cycle counts them on their node for pods that
// are not more important, so that the room preemption made is not taken by a lesser pod.
//
//   nominator.AddNominatedPod(pod_info, "node-1");           // PostFilter nominated it
//   for (auto& p : nominator.NominatedPodsForNode("node-1")) ...
//   nominator.DeleteNominatedPodIfExists(uid);                // bound, or deleted
//
// A pod is nominated to one node at most. Each node's list is immutable once made, and replaced
// when a nomination comes or goes, so that the scheduling cycle reads it (PodsForNode, once per
// node it filters, from several workers) without copying it. Thread safety: all methods may be
// called concurrently.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ksched/node_info.h"

namespace ksched::framework {

class Nominator {
 public:
  using PodList = std::vector<std::shared_ptr<const PodInfo>>;

  // Nominates the pod to `node`, replacing an earlier nomination; "" removes it.
  void AddNominatedPod(std::shared_ptr<const PodInfo> pod, const std::string& node);
  // The informer saw the pending pod change. Its status.nominatedNodeName wins; when both the
  // old and the new object have none, a nomination made in memory is kept with the new object
  // (the status patch may not have arrived yet), as upstream's UpdateNominatedPod.
  void UpdateNominatedPod(const api::Pod& old_pod, std::shared_ptr<const PodInfo> pod);
  void DeleteNominatedPodIfExists(std::string_view uid);

  // The pods nominated to `node`, in the order they were nominated.
  PodList NominatedPodsForNode(std::string_view node) const;
  // The same list, shared rather than copied; nullptr when none is nominated there.
  std::shared_ptr<const PodList> PodsForNode(std::string_view node) const;
  // The node the pod is nominated to; "" if none.
  std::string NodeOf(std::string_view uid) const;
  // Whether any pod is nominated anywhere: the scheduling cycle's fast path when none is.
  bool empty() const;

 private:
  void DeleteLocked(std::string_view uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds the pod to the node's list (a new list).
  void AddLocked(std::shared_ptr<const PodInfo> pod, const std::string& node)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const PodList>> by_node_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::string> node_of_ ABSL_GUARDED_BY(mu_);  // uid → node
};

}  // namespace ksched::framework
