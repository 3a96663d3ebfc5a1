#include "src/plugins/helper/node_filters.h"

#include <algorithm>

#include "ksched/api/selectors.h"

namespace ksched::plugins::helper {

const std::string* LabelValue(const api::StringMap& labels, std::string_view key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

int32_t PlaceForLabels(const Snapshot& snapshot, const NodeInfo& node) {
  const int32_t place = snapshot.IndexOf(node);
  if (place >= 0 || node.node() == nullptr) return place;
  const NodeInfo* original = snapshot.Get(node.name());
  return original != nullptr && original->node() == node.node() ? snapshot.IndexOf(*original) : -1;
}

bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::Node& node) {
  const api::StringMap& labels = node.metadata.labels;
  for (const auto& [key, value] : pod.spec.node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  const api::Boxed<api::Affinity>& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity) return true;
  const std::optional<api::NodeSelector>& required =
      affinity->node_affinity->required_during_scheduling_ignored_during_execution;
  return !required || api::Matches(*required, node);
}

bool HasUntoleratedDoNotScheduleTaint(const api::Node& node,
                                      const std::vector<api::Toleration>& tolerations) {
  return std::any_of(node.spec.taints.begin(), node.spec.taints.end(), [&](const api::Taint& t) {
    const bool do_not_schedule =
        t.effect == api::kTaintEffectNoSchedule || t.effect == api::kTaintEffectNoExecute;
    return do_not_schedule && !api::TolerationsTolerateTaint(tolerations, t);
  });
}

}  // namespace ksched::plugins::helper
