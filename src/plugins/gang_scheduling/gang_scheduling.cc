#include "src/plugins/gang_scheduling/gang_scheduling.h"

#include <string>

#include "fmt/format.h"

namespace ksched::plugins::gang_scheduling {

int MinCount(const api::PodGroup& group) { return group.gang_min_count.value_or(1); }

Status PlacementFeasible(int min_count, int scheduled, int remaining) {
  if (remaining + scheduled < min_count) {
    return Status::Unschedulable(
        fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min_count,
                    scheduled, remaining));
  }
  if (scheduled < min_count) {
    return Status(Code::kWait,
                  {fmt::format("minCount ({}) is not yet satisfied: {} scheduled, {} remaining",
                               min_count, scheduled, remaining)});
  }
  return Status();
}

Status GangScheduling::PlacementFeasible(const api::PodGroup& group, int scheduled, int remaining) {
  return gang_scheduling::PlacementFeasible(MinCount(group), scheduled, remaining);
}

Status GangScheduling::PreEnqueue(const api::Pod& pod) {
  if (!pod.spec.pod_group_name) return Status();
  const std::string& name = *pod.spec.pod_group_name;
  std::shared_ptr<const api::PodGroup> group =
      handle_.pod_groups().GetPodGroup(pod.metadata.namespace_, name);
  if (group == nullptr) {
    return Status::UnschedulableAndUnresolvable(
        fmt::format("waiting for pods's pod group \"{}\" to appear in scheduling queue", name));
  }
  if (!group->gang_min_count) return Status();
  std::optional<PodGroupState> state =
      handle_.pod_groups().GetPodGroupState(pod.metadata.namespace_, name);
  if (!state) {
    return Status::Error(fmt::format("pod group state not found for pod group podgroup/{}/{}",
                                     pod.metadata.namespace_, name));
  }
  if (state->all < static_cast<size_t>(*group->gang_min_count)) {
    return Status::UnschedulableAndUnresolvable(
        "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return Status();
}

Status GangScheduling::Permit(CycleState&, const api::Pod& pod, std::string_view,
                              absl::Duration* timeout) {
  if (!pod.spec.pod_group_name) return Status();
  const std::string& ns = pod.metadata.namespace_;
  const std::string& name = *pod.spec.pod_group_name;
  std::shared_ptr<const api::PodGroup> group = handle_.pod_groups().GetPodGroup(ns, name);
  if (group == nullptr) {
    return Status::Error(
        fmt::format("failed to get podGroup {}/{}: podgroup.scheduling.k8s.io "
                    "\"{}\" not found",
                    ns, name, name));
  }
  std::optional<PodGroupState> state = handle_.pod_groups().GetPodGroupState(ns, name);
  if (!state) {
    return Status::Error(
        fmt::format("pod group state not found for pod group podgroup/{}/{}", ns, name));
  }
  if (!group->gang_min_count) return Status();
  if (state->scheduled < static_cast<size_t>(*group->gang_min_count)) {
    handle_.Activate(state->unscheduled);
    *timeout = kPermitTimeout;
    return Status(Code::kWait, {"waiting for minCount pods from a gang to be scheduled"});
  }
  for (const std::string& uid : state->assumed) {
    if (std::shared_ptr<WaitingPod> waiting = handle_.GetWaitingPod(uid)) waiting->Allow(Name());
  }
  return Status();
}

std::vector<ClusterEventWithHint> GangScheduling::EventsToRegister() const {
  // A hint's answer for a pod of another group, or none, is QueueSkip.
  auto same_group = [](const api::Pod& pod, std::string_view ns, std::string_view name) {
    return pod.spec.pod_group_name && pod.metadata.namespace_ == ns &&
                   *pod.spec.pod_group_name == name
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  };
  auto pod_added = [same_group](const api::Pod& pod, const ClusterEventData& e) {
    if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
    if (!e.new_pod->spec.pod_group_name) return QueueingHint::kQueueSkip;
    return same_group(pod, e.new_pod->metadata.namespace_, *e.new_pod->spec.pod_group_name);
  };
  auto group_added = [same_group](const api::Pod& pod, const ClusterEventData& e) {
    const api::PodGroup* group = e.storage.pod_group.new_obj;
    if (group == nullptr) return QueueingHint::kQueue;
    return same_group(pod, group->metadata.namespace_, group->metadata.name);
  };
  auto group_updated = [same_group](const api::Pod& pod, const ClusterEventData& e) {
    const api::PodGroup* old = e.storage.pod_group.old_obj;
    const api::PodGroup* now = e.storage.pod_group.new_obj;
    if (old == nullptr || now == nullptr) return QueueingHint::kQueue;
    if (same_group(pod, now->metadata.namespace_, now->metadata.name) != QueueingHint::kQueue) {
      return QueueingHint::kQueueSkip;
    }
    // Only a gang whose minCount went down may now be complete.
    return old->gang_min_count && now->gang_min_count && *now->gang_min_count < *old->gang_min_count
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kPod, ActionType::kAdd}, pod_added},
          {{EventResource::kPodGroup, ActionType::kAdd}, group_added},
          {{EventResource::kPodGroup, ActionType::kUpdate}, group_updated}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<GangScheduling>(handle);
}

}  // namespace ksched::plugins::gang_scheduling
