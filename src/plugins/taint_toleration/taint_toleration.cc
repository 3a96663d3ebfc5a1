#include "src/plugins/taint_toleration/taint_toleration.h"

#include <algorithm>

#include "ksched/api/selectors.h"
#include "src/plugins/helper/node_filters.h"
#include "src/plugins/helper/normalize_score.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::taint_toleration {

namespace {

struct PreScoreState : StateData {
  std::vector<api::Toleration> tolerations_prefer_no_schedule;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};
inline constexpr StateKey<PreScoreState> kPreScoreStateKey{"PreScoreTaintToleration",
                                                           StateScope::kSchedulingCycle};

std::vector<api::Toleration> TolerationsPreferNoSchedule(const api::Pod& pod) {
  std::vector<api::Toleration> out;
  for (const api::Toleration& t : pod.spec.tolerations) {
    if (t.effect.empty() || t.effect == api::kTaintEffectPreferNoSchedule) out.push_back(t);
  }
  return out;
}

int64_t CountIntolerablePreferNoSchedule(const api::Node& node,
                                         const std::vector<api::Toleration>& tolerations) {
  return std::count_if(node.spec.taints.begin(), node.spec.taints.end(), [&](const api::Taint& t) {
    return t.effect == api::kTaintEffectPreferNoSchedule &&
           !api::TolerationsTolerateTaint(tolerations, t);
  });
}

QueueingHint AfterNodeChange(const api::Pod& pod, const ClusterEventData& e) {
  if (e.new_node == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  const bool was_untolerated = e.old_node == nullptr || helper::HasUntoleratedDoNotScheduleTaint(
                                                            *e.old_node, pod.spec.tolerations);
  const bool is_untolerated =
      helper::HasUntoleratedDoNotScheduleTaint(*e.new_node, pod.spec.tolerations);
  return was_untolerated && !is_untolerated ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint AfterPodTolerationChange(const api::Pod& pod, const ClusterEventData& e) {
  if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  return e.new_pod->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                     : QueueingHint::kQueueSkip;
}

}  // namespace

Status TaintToleration::Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) {
  if (node.node() == nullptr) return Status::Error("invalid nodeInfo");
  if (!helper::HasUntoleratedDoNotScheduleTaint(*node.node(), pod.spec.tolerations))
    return Status();
  return Status::UnschedulableAndUnresolvable(kErrReasonUntolerated);
}

Status TaintToleration::PreScore(CycleState& state, const api::Pod& pod,
                                 const std::vector<const NodeInfo*>&) {
  auto s = std::make_unique<PreScoreState>();
  s->tolerations_prefer_no_schedule = TolerationsPreferNoSchedule(pod);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status();
}

Status TaintToleration::Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                              int64_t* score) {
  if (node.node() == nullptr) return Status::Error("invalid nodeInfo");
  if (const PreScoreState* s = state.Read(kPreScoreStateKey)) {
    *score = CountIntolerablePreferNoSchedule(*node.node(), s->tolerations_prefer_no_schedule);
  } else {
    *score = CountIntolerablePreferNoSchedule(*node.node(), TolerationsPreferNoSchedule(pod));
  }
  return Status();
}

Status TaintToleration::ScoreNodes(const CycleState& state, const api::Pod& pod,
                                   std::span<NodeScore> scores) {
  const PreScoreState* s = state.Read(kPreScoreStateKey);
  if (s == nullptr) return ScorePlugin::ScoreNodes(state, pod, scores);
  for (NodeScore& ns : scores) {
    if (ns.node->node() == nullptr) return Status::Error("invalid nodeInfo");
    ns.score =
        CountIntolerablePreferNoSchedule(*ns.node->node(), s->tolerations_prefer_no_schedule);
  }
  return Status();
}

Status TaintToleration::NormalizeScore(const CycleState&, const api::Pod&, NodeScoreList& scores) {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/true, scores);
  return Status();
}

std::vector<ClusterEventWithHint> TaintToleration::EventsToRegister() const {
  return {
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint}, AfterNodeChange},
      {{EventResource::kPod, ActionType::kUpdatePodToleration}, AfterPodTolerationChange},
  };
}

Status TaintToleration::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kTolerationsSigner, helper::SignTolerations(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<TaintToleration>();
}

}  // namespace ksched::plugins::taint_toleration
