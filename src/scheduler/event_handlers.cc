// The scheduler's side of the informers (upstream's eventhandlers.go): cluster changes go to the
// cache, pending pods to the queue, and each change moves the queued pods it may help.
#include <algorithm>
#include <type_traits>

#include "fmt/format.h"
#include "src/scheduler/scheduler.h"

namespace ksched::scheduler {
namespace {

bool IsTerminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

// The node changes that can make pods schedulable (upstream's NodeSchedulingPropertiesChange).
uint32_t NodeChanges(const api::Node& o, const api::Node& n) {
  uint32_t actions = 0;
  auto same_resources = [](const api::ResourceList& a, const api::ResourceList& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
             return x.first == y.first && x.second == y.second;
           });
  };
  auto same_taints = [](const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
             return x.key == y.key && x.value == y.value && x.effect == y.effect;
           });
  };
  if (o.spec.unschedulable != n.spec.unschedulable) actions |= kUpdateNodeTaint;
  if (!same_resources(o.status.allocatable, n.status.allocatable))
    actions |= kUpdateNodeAllocatable;
  if (o.metadata.labels != n.metadata.labels) actions |= kUpdateNodeLabel;
  if (!same_taints(o.spec.taints, n.spec.taints)) actions |= kUpdateNodeTaint;
  auto conditions = [](const api::Node& node) {
    std::vector<std::pair<std::string, std::string>> c;
    for (const auto& cond : node.status.conditions) c.emplace_back(cond.type, cond.status);
    return c;
  };
  if (conditions(o) != conditions(n)) actions |= kUpdateNodeCondition;
  if (o.metadata.annotations != n.metadata.annotations) actions |= kUpdateNodeAnnotation;
  if (o.status.declared_features != n.status.declared_features) {
    actions |= kUpdateNodeDeclaredFeature;
  }
  return actions;
}

}  // namespace

void Scheduler::MoveAll(ClusterEvent event, std::shared_ptr<const api::Pod> old_pod,
                        std::shared_ptr<const api::Pod> pod,
                        std::shared_ptr<const api::Node> old_node,
                        std::shared_ptr<const api::Node> node) {
  queue_->MoveAllToActiveOrBackoffQueue({.event = std::move(event),
                                         .old_pod = std::move(old_pod),
                                         .new_pod = std::move(pod),
                                         .old_node = std::move(old_node),
                                         .new_node = std::move(node)});
}

// Upstream's one handler of every other kind (buildEvtResHandler): a `kind.event` labelled
// "<kind>Add", "<kind>Update" or "<kind>Delete", with the objects for the queueing hints.
void Scheduler::OnObjectChange(AnyStoredChange change) {
  std::visit(
      [this]<typename T>(StoredChange<T>& c) {
        constexpr const api::KindInfo<T>& kind = api::kKind<T>;
        if constexpr (std::is_same_v<T, api::DeviceTaintRule>) {
          // Upstream's slice tracker sends a ResourceSlice Update for the slices whose devices
          // the rule taints; the plugins' hints for it read no slice.
          queue_->MoveAllToActiveOrBackoffQueue(queue::QueuedEvent{
              .event = {EventResource::kResourceSlice, kUpdate, "ResourceSliceUpdate"}});
        } else if constexpr (kind.change != nullptr) {
          if (!c.old && !c.now) return;
          const uint32_t action = !c.now ? kDelete : c.old ? kUpdate : kAdd;
          const std::string_view verb = !c.now ? "Delete" : c.old ? "Update" : "Add";
          queue::QueuedEvent event{
              .event = {*kind.event, action, fmt::format("{}{}", kind.name, verb)}};
          event.storage.*kind.change = {c.old.get(), c.now.get()};
          event.old_object = std::move(c.old);
          event.new_object = std::move(c.now);
          queue_->MoveAllToActiveOrBackoffQueue(std::move(event));
        }
      },
      change);
}

void Scheduler::OnCustomObjectChange(const CustomResource& resource,
                                     std::shared_ptr<const CustomObject> old,
                                     std::shared_ptr<const CustomObject> now) {
  if (!old && !now) return;
  const uint32_t action = !now ? kDelete : old ? kUpdate : kAdd;
  const std::string_view verb = !now ? "Delete" : old ? "Update" : "Add";
  // Upstream's label for a resource it watches dynamically: "<resource><action>".
  queue::QueuedEvent event{.event = {EventResource::kCustom, action,
                                     fmt::format("{}{}", resource.resource, verb),
                                     resource.resource}};
  event.storage.custom = {old.get(), now.get()};
  event.old_object = std::move(old);
  event.new_object = std::move(now);
  queue_->MoveAllToActiveOrBackoffQueue(std::move(event));
}

void Scheduler::OnPodAdd(std::shared_ptr<const api::Pod> pod) {
  if (IsTerminal(*pod)) return;
  pods_by_namespace_.Set(pod);
  if (Assigned(*pod)) {
    if (cache_.AddPod(PodInfo::Make(pod)).ok()) {
      MoveAll({EventResource::kAssignedPod, kAdd, "AssignedPodAdd"}, nullptr, pod, nullptr,
              nullptr);
    }
    return;
  }
  if (!IsResponsibleFor(*pod)) return;
  cache_.AddPodGroupMember(pod);
  std::shared_ptr<const PodInfo> info = PodInfo::Make(std::move(pod));
  if (!info->pod->status.nominated_node_name.empty()) {
    nominator_.AddNominatedPod(info, info->pod->status.nominated_node_name);
  }
  const std::shared_ptr<const api::Pod> added = info->pod;
  queue_->Add(std::move(info));
  if (options_.generic_workload && added->spec.pod_group_name) {
    queue_->RecheckGatedPodGroup(added->metadata.namespace_, *added->spec.pod_group_name,
                                 "GangScheduling");
  }
}

void Scheduler::OnPodUpdate(const std::shared_ptr<const api::Pod>& old_pod,
                            std::shared_ptr<const api::Pod> pod) {
  if (IsTerminal(*pod)) {
    OnPodDelete(old_pod);
    return;
  }
  pods_by_namespace_.Set(pod);
  if (Assigned(*pod)) {
    if (!Assigned(*old_pod) || !cache_.UpdatePod(PodInfo::Make(pod)).ok()) {
      queue_->Delete(pod->metadata.uid);  // Bound, by us or by another scheduler.
      nominator_.DeleteNominatedPodIfExists(pod->metadata.uid);
      OnPodAdd(std::move(pod));
      return;
    }
    MoveAll({EventResource::kAssignedPod, kUpdate, "AssignedPodUpdate"}, old_pod, pod, nullptr,
            nullptr);
    return;
  }
  if (!IsResponsibleFor(*pod)) return;
  // Scheduled already and binding, or bound and not yet watched so: a late echo of an earlier
  // status patch must not queue it again, as upstream's updatePodInSchedulingQueue.
  if (cache_.IsAssumedPod(pod->metadata.uid)) return;
  std::shared_ptr<const PodInfo> info = PodInfo::Make(std::move(pod));
  nominator_.UpdateNominatedPod(*old_pod, info);
  queue_->Update(std::move(info));
}

void Scheduler::OnPodDelete(const std::shared_ptr<const api::Pod>& pod) {
  pods_by_namespace_.Remove(*pod);
  if (Assigned(*pod) || !cache_.NodeOf(pod->metadata.uid).empty()) {
    if (cache_.IsAssumedPod(pod->metadata.uid)) (void)cache_.ForgetPod(pod->metadata.uid);
    if (cache_.RemovePod(pod->metadata.uid).ok() || Assigned(*pod)) {
      MoveAll({EventResource::kAssignedPod, kDelete, "AssignedPodDelete"}, pod, nullptr, nullptr,
              nullptr);
    }
  }
  cache_.RemovePodGroupMember(*pod);
  queue_->Delete(pod->metadata.uid);
  nominator_.DeleteNominatedPodIfExists(pod->metadata.uid);
  for (AttemptObserver* o : options_.observers) o->Forget(pod->metadata.uid);
  for (auto& [name, fw] : frameworks_) {
    if (std::shared_ptr<WaitingPod> wp = fw->GetWaitingPod(pod->metadata.uid)) {
      wp->Reject("", "pod was deleted while waiting at permit");
    }
  }
}

void Scheduler::OnNodeAdd(const std::shared_ptr<const api::Node>& node) {
  cache_.AddNode(node);
  MoveAll({EventResource::kNode, kAdd, "NodeAdd"}, nullptr, nullptr, nullptr, node);
}

void Scheduler::OnNodeUpdate(const std::shared_ptr<const api::Node>& old_node,
                             const std::shared_ptr<const api::Node>& node) {
  cache_.UpdateNode(node);
  uint32_t actions = NodeChanges(*old_node, *node);
  if (actions != 0) {
    MoveAll({EventResource::kNode, actions, "NodeUpdate"}, nullptr, nullptr, old_node, node);
  }
}

void Scheduler::OnNodeDelete(const std::shared_ptr<const api::Node>& node) {
  cache_.RemoveNode(node->metadata.name);
}

}  // namespace ksched::scheduler
