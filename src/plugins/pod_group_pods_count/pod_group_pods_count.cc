#include "src/plugins/pod_group_pods_count/pod_group_pods_count.h"

#include <algorithm>

#include "fmt/format.h"

namespace ksched::plugins::pod_group_pods_count {

Status PodGroupPodsCount::ScorePlacement(const api::PodGroup& group,
                                         const PodGroupAssignments& assignments, int64_t* score) {
  const std::string& ns = group.metadata.namespace_;
  const std::string& name = group.metadata.name;
  std::optional<PodGroupState> state = handle_.pod_groups().GetPodGroupState(ns, name);
  if (!state) {
    return Status::Error(fmt::format("pod group state not found for pod group {}/{}", ns, name));
  }
  *score = static_cast<int64_t>(state->scheduled + assignments.proposed.size());
  return Status();
}

Status PodGroupPodsCount::NormalizePlacementScores(const api::PodGroup&,
                                                   std::span<int64_t> scores) {
  int64_t highest = 0;
  for (int64_t s : scores) highest = std::max(highest, s);
  if (highest == 0) {
    return Status::Error("no pods from pod group are assigned to any of the candidate placements");
  }
  for (int64_t& s : scores) s = s * kMaxNodeScore / highest;
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<PodGroupPodsCount>(handle);
}

}  // namespace ksched::plugins::pod_group_pods_count
