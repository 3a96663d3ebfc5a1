#include "src/plugins/node_unschedulable/node_unschedulable.h"

#include "ksched/api/selectors.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_unschedulable {

namespace {

bool ToleratesUnschedulable(const api::Pod& pod) {
  static const api::Taint kTaint{.key = "node.kubernetes.io/unschedulable",
                                 .effect = api::kTaintEffectNoSchedule};
  return api::TolerationsTolerateTaint(pod.spec.tolerations, kTaint);
}

QueueingHint AfterNodeChange(const api::Pod&, const ClusterEventData& e) {
  if (e.new_node == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  const bool was_schedulable = e.old_node != nullptr && !e.old_node->spec.unschedulable;
  const bool is_schedulable = !e.new_node->spec.unschedulable;
  return !was_schedulable && is_schedulable ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint AfterPodTolerationChange(const api::Pod& pod, const ClusterEventData& e) {
  if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  // Tolerations can only be added, so the old pod did not tolerate the taint.
  if (e.new_pod->metadata.uid == pod.metadata.uid && ToleratesUnschedulable(*e.new_pod)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace

Status NodeUnschedulable::Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) {
  if (node.node() == nullptr) return Status::Error("node not found");
  if (!node.node()->spec.unschedulable || ToleratesUnschedulable(pod)) return Status();
  return Status::UnschedulableAndUnresolvable(kErrReasonUnschedulable);
}

std::vector<ClusterEventWithHint> NodeUnschedulable::EventsToRegister() const {
  return {
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint}, AfterNodeChange},
      {{EventResource::kPod, ActionType::kUpdatePodToleration}, AfterPodTolerationChange},
  };
}

Status NodeUnschedulable::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kTolerationsSigner, helper::SignTolerations(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<NodeUnschedulable>();
}

}  // namespace ksched::plugins::node_unschedulable
