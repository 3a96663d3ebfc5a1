// PodGroupPodsCount: of a pod group's placements, favours those that hold more of its pods
// (upstream's plugins/podgrouppodscount, the TopologyAwareWorkloadScheduling gate; weight 1 in the
// defaults): the pods placed before the cycle, plus those the placement's trial placed, scaled so
// that the best placement scores 100.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::pod_group_pods_count {

class PodGroupPodsCount final : public PlacementScorePlugin {
 public:
  explicit PodGroupPodsCount(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kPodGroupPodsCount; }

  // The group's placed pods and the placement's proposed ones.
  Status ScorePlacement(const api::PodGroup& group, const PodGroupAssignments& assignments,
                        int64_t* score) override;
  // score * 100 / the highest score; an Error when every score is 0.
  Status NormalizePlacementScores(const api::PodGroup& group, std::span<int64_t> scores) override;

 private:
  Handle& handle_;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::pod_group_pods_count
