// PodClasses: the pods of the cluster grouped into classes of pods that InterPodAffinity and
// PodTopologySpread cannot tell apart (the same namespace, labels, pod affinity and anti-affinity,
// and whether they are terminating), with how many pods of each class every node runs.
//
// A plugin keeps one and asks it, in PreFilter or PreScore, for each node's classes: a node's
// counts are recounted only when its generation moved, and only its new pods are classified. So
// a cycle visits a few classes per node and tests each class once against the incoming pod,
// instead of testing every pod of the cluster: its cost does not grow with the pods placed.
//
//   PodClasses classes;                       // a member of the plugin
//   classes.Refresh(snapshot);                // once per cycle, before the nodes are read
//   for (const PodClasses::Count& c : classes.Of(*node_info)) { ... classes.Pod(c.id) ... }
//
// Hand-written: no library interns Kubernetes pods. Not thread-safe: one scheduling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/node_info.h"
#include "ksched/snapshot.h"

namespace ksched::plugins::helper {

class PodClasses {
 public:
  using Id = uint32_t;
  // A class and how many of the node's pods are in it.
  struct Count {
    Id id;
    int32_t pods;
  };

  // Before a cycle: takes the snapshot, whose nodes' places key their counts until the next
  // Refresh; forgets the places it no longer has and the nodes it never held (preemption's
  // copies), and frees the ids of the classes no node counts any more.
  void Refresh(const Snapshot& snapshot);
  // The node's classes, counted for its current generation. An id names one class from one
  // Refresh to the next. `place`, where the caller knows it, is the node's index in the
  // snapshot's nodes() (else it is looked up).
  const std::vector<Count>& Of(const NodeInfo& node);
  const std::vector<Count>& Of(const NodeInfo& node, int32_t place);
  // A pod of the class: what the class's pods have in common is read from it.
  const api::Pod& Pod(Id id) const { return *classes_[id].pod; }
  // One more than the largest id in use, for tables indexed by id.
  size_t size() const { return classes_.size(); }

 private:
  struct Class {
    std::shared_ptr<const api::Pod> pod;  // nullptr: the id is free.
    size_t hash = 0;
    int64_t pods = 0;  // Over every node's counts.
  };
  struct PerNode {
    const NodeInfo* node = nullptr;  // Counted last.
    int64_t generation = -1;
    std::vector<Count> counts;
    // The pods classified last time, by their PodInfo, held so that the address stays theirs.
    std::vector<std::pair<std::shared_ptr<const PodInfo>, Id>> pods;
  };

  // Counts the node's pods into `per` unless it counted this generation already.
  const std::vector<Count>& CountInto(PerNode& per, const NodeInfo& node);
  Id Intern(const std::shared_ptr<const api::Pod>& pod);
  void Release(Id id, int32_t pods);
  void Forget(PerNode& per);

  std::vector<Class> classes_;
  std::vector<Id> free_;
  std::vector<Id> unused_;  // No node counts them: freed at the next Refresh.
  absl::flat_hash_map<size_t, std::vector<Id>> by_hash_;
  const Snapshot* snapshot_ = nullptr;  // Refresh's.
  // By the node's place in the snapshot's nodes(). A node at a place another held is counted
  // afresh (generations are unique across nodes) and the other's counts released: when the
  // snapshot's size changed, by Refresh, so that a removed node's classes are freed at once.
  std::vector<PerNode> places_;
  // Nodes the snapshot does not hold, by address, for one cycle.
  absl::flat_hash_map<const NodeInfo*, PerNode> others_;
};

// A value per class, worked out the first time a cycle asks for it.
template <typename T>
class PerClass {
 public:
  template <typename Compute>
  const T& Get(PodClasses::Id id, Compute&& compute) {
    if (id >= values_.size()) values_.resize(id + 1);
    if (!values_[id]) values_[id] = compute();
    return *values_[id];
  }

 private:
  std::vector<std::optional<T>> values_;
};

}  // namespace ksched::plugins::helper
