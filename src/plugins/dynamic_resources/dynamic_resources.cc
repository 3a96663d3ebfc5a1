#include "src/plugins/dynamic_resources/dynamic_resources.h"

#include "src/plugins/helper/normalize_score.h"

namespace ksched::plugins::dynamic_resources {

Status DynamicResources::PreFilter(CycleState&, const api::Pod&,
                                   const std::vector<const NodeInfo*>&, PreFilterResult*) {
  return Status::Skip();  // No claims: nothing to filter.
}

Status DynamicResources::PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus&,
                                    PostFilterResult*) {
  // Upstream's PostFilter reads the state its PreFilter wrote; when an earlier PreFilter rejected
  // the pod, there is none, and it fails with the CycleState's error. (A pod with claims was
  // rejected as unsupported, on this plugin's behalf: src/scheduler/unsupported.h.)
  if (pod.spec.resource_claims.empty() && !state.ShouldSkipFilter(Name())) {
    return Status::Error("not found");
  }
  return Status::Unschedulable("no new claims to deallocate");
}

Status DynamicResources::Score(const CycleState&, const api::Pod&, const NodeInfo&,
                               int64_t* score) {
  *score = 0;
  return {};
}

Status DynamicResources::NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/false, scores);
  return {};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<DynamicResources>();
}

}  // namespace ksched::plugins::dynamic_resources
