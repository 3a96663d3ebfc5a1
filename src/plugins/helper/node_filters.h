// A label's value, the snapshot place that holds a node's labels, and the two node checks several
// plugins share (upstream's component-helpers nodeaffinity RequiredNodeAffinity and
// helper.DoNotScheduleTaintsFilterFunc): NodeAffinity and TaintToleration filter with them, and
// PodTopologySpread counts only the nodes that pass them when a constraint's nodeAffinityPolicy or
// nodeTaintsPolicy is Honor.
//
//   const std::string* zone = helper::LabelValue(node.metadata.labels, kZone);
//   int32_t i = helper::PlaceForLabels(snapshot, node);   // then zones.ValueAt(i) when i >= 0
//   if (!helper::MatchesRequiredNodeAffinity(pod, node)) return Unresolvable(...);
//   if (helper::HasUntoleratedDoNotScheduleTaint(node, pod.spec.tolerations)) ...
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/objects.h"
#include "ksched/node_info.h"
#include "ksched/snapshot.h"

namespace ksched::plugins::helper {

// The value of `key` in `labels`, or nullptr.
const std::string* LabelValue(const api::StringMap& labels, std::string_view key);

// The place in the snapshot's nodes() whose labels are the node's, for reading them from the
// snapshot's LabelDomains: the node's own place, or for a copy of a snapshot node (preemption's
// what-if, which holds the same Node) that node's place; -1 for any other node. Not for data kept
// per place about pods: a copy's pods are not its node's.
int32_t PlaceForLabels(const Snapshot& snapshot, const NodeInfo& node);

// The place in the snapshot's nodes() of nodes[i], in a list of nodes a plugin was given: i when
// the list is the snapshot's nodes() itself (PreFilter's, most often), else looked up (-1 for a
// node the snapshot does not hold).
inline int32_t PlaceInSnapshot(const Snapshot& snapshot, const std::vector<const NodeInfo*>& nodes,
                               size_t i) {
  return &nodes == &snapshot.nodes() ? static_cast<int32_t>(i) : snapshot.IndexOf(*nodes[i]);
}

// Whether the node has every spec.nodeSelector pair among its labels and matches the pod's
// requiredDuringSchedulingIgnoredDuringExecution node affinity (ORed terms), when it has one
// (upstream's GetRequiredNodeAffinity(pod).Match(node)).
bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::Node& node);

// Whether one of the node's NoSchedule or NoExecute taints is not tolerated (upstream's
// FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc). PreferNoSchedule taints
// never count.
bool HasUntoleratedDoNotScheduleTaint(const api::Node& node,
                                      const std::vector<api::Toleration>& tolerations);

}  // namespace ksched::plugins::helper
