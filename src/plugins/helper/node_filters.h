// A label's value, and the two node checks several plugins share (upstream's component-helpers
// nodeaffinity RequiredNodeAffinity and helper.DoNotScheduleTaintsFilterFunc): NodeAffinity and
// TaintToleration filter with them, and PodTopologySpread counts only the nodes that pass them
// when a constraint's nodeAffinityPolicy or nodeTaintsPolicy is Honor.
//
//   const std::string* zone = helper::LabelValue(node.metadata.labels, kZone);
//   if (!helper::MatchesRequiredNodeAffinity(pod, node)) return Unresolvable(...);
//   if (helper::HasUntoleratedDoNotScheduleTaint(node, pod.spec.tolerations)) ...
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/objects.h"

namespace ksched::plugins::helper {

// The value of `key` in `labels`, or nullptr.
const std::string* LabelValue(const api::StringMap& labels, std::string_view key);

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
