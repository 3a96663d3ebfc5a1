#include "src/sim/cluster.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "src/base/strings.h"
#include "src/sim/disruption.h"

namespace ksched::sim {

namespace {

// The API server's condition on a pod created with scheduling gates, unless it has a PodScheduled
// condition already (kube-apiserver's applySchedulingGatedCondition).
void MarkSchedulingGated(api::Pod& pod) {
  if (pod.spec.scheduling_gates.empty()) return;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "PodScheduled") return;
  }
  pod.status.conditions.push_back({.type = "PodScheduled",
                                   .status = "False",
                                   .reason = "SchedulingGated",
                                   .message = std::string(kSchedulingGatedMessage)});
}

// A namespaced object without a namespace is in "default", as kubectl would create it.
void DefaultNamespace(api::Object& o) {
  if (std::holds_alternative<api::Node>(o) || std::holds_alternative<api::Namespace>(o) ||
      std::holds_alternative<api::PriorityClass>(o)) {
    return;
  }
  api::ObjectMeta& m = std::visit([](auto& obj) -> api::ObjectMeta& { return obj.metadata; }, o);
  if (m.namespace_.empty()) m.namespace_ = "default";
}

// Moves the object out of `o` to the end of `out` if it is a T.
template <typename T>
bool Take(api::Object& o, std::vector<std::shared_ptr<const T>>& out) {
  T* obj = std::get_if<T>(&o);
  if (obj != nullptr) out.push_back(std::make_shared<const T>(std::move(*obj)));
  return obj != nullptr;
}

// Hands each object to the sink's `set`, as an informer's first list does.
template <typename T>
void SetAll(const std::vector<std::shared_ptr<const T>>& objects, ClusterEventSink& s,
            void (ClusterEventSink::*set)(std::shared_ptr<const T>)) {
  for (const auto& o : objects) (s.*set)(o);
}

}  // namespace

Cluster::Cluster(std::vector<api::Object> objects) {
  absl::MutexLock lock(&mu_);
  for (api::Object& o : objects) {
    DefaultNamespace(o);
    if (Take(o, nodes_) || Take(o, namespaces_) || Take(o, priority_classes_) ||
        Take(o, services_) || Take(o, replication_controllers_) || Take(o, replica_sets_) ||
        Take(o, stateful_sets_)) {
      continue;
    }
    if (auto* pdb = std::get_if<api::PodDisruptionBudget>(&o)) {
      const bool computed = !pdb->has_status;
      pdb->has_status = true;
      budgets_.push_back({.pdb = std::make_shared<const api::PodDisruptionBudget>(std::move(*pdb)),
                          .computed = computed});
    } else if (auto* pod = std::get_if<api::Pod>(&o)) {
      if (pod->spec.scheduler_name.empty()) pod->spec.scheduler_name = "default-scheduler";
      if (pod->metadata.uid.empty()) {
        pod->metadata.uid = pod->metadata.namespace_ + "/" + pod->metadata.name;
      }
      if (!pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Running";
      if (pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Pending";
      MarkSchedulingGated(*pod);
      pod_index_[pod->metadata.uid] = pods_.size();
      pods_.push_back(std::make_shared<const api::Pod>(std::move(*pod)));
    }
  }
  for (const auto& pod : pods_) CountPod(nullptr, pod.get());
  for (Budget& b : budgets_) b.changed = false;  // Start hands them all over.
}

void Cluster::Start(ClusterEventSink& s, bool hold_pending) {
  SetAll(namespaces_, s, &ClusterEventSink::OnNamespaceSet);
  SetAll(priority_classes_, s, &ClusterEventSink::OnPriorityClassSet);
  SetAll(services_, s, &ClusterEventSink::OnServiceSet);
  SetAll(replication_controllers_, s, &ClusterEventSink::OnReplicationControllerSet);
  SetAll(replica_sets_, s, &ClusterEventSink::OnReplicaSetSet);
  SetAll(stateful_sets_, s, &ClusterEventSink::OnStatefulSetSet);
  SetAll(PodDisruptionBudgets(), s, &ClusterEventSink::OnPodDisruptionBudgetSet);
  for (const auto& node : nodes_) s.OnNodeAdd(node);
  std::vector<std::shared_ptr<const api::Pod>> pods = Pods();
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) s.OnPodAdd(pod);
  }
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) continue;
    if (hold_pending) {
      held_.push_back(pod);
    } else {
      s.OnPodAdd(pod);
    }
  }
  // Queue order, reversed: the next pod at the back.
  std::stable_sort(held_.begin(), held_.end(), [](const auto& a, const auto& b) {
    return a->spec.priority.value_or(0) > b->spec.priority.value_or(0);
  });
  std::reverse(held_.begin(), held_.end());
}

bool Cluster::AddNextPod(ClusterEventSink& s) {
  if (held_.empty()) return false;
  std::shared_ptr<const api::Pod> pod = std::move(held_.back());
  held_.pop_back();
  s.OnPodAdd(std::move(pod));
  return true;
}

void Cluster::Deliver(ClusterEventSink& s) {
  std::vector<Change> changes;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> budgets;
  {
    absl::MutexLock lock(&mu_);
    changes.swap(pending_);
    for (Budget& b : budgets_) {
      if (std::exchange(b.changed, false)) budgets.push_back(b.pdb);
    }
  }
  for (Change& c : changes) {
    if (c.pod) {
      s.OnPodUpdate(c.old_pod, std::move(c.pod));
    } else {
      s.OnPodDelete(c.old_pod);
    }
  }
  // As the disruption controller would write them once it saw the pods change.
  for (auto& pdb : budgets) s.OnPodDisruptionBudgetSet(std::move(pdb));
}

absl::Status Cluster::DeletePod(const api::Pod& pod) {
  absl::MutexLock lock(&mu_);
  auto it = pod_index_.find(pod.metadata.uid);
  if (it == pod_index_.end()) {
    return absl::NotFoundError(fmt::format("pods \"{}\" not found", pod.metadata.name));
  }
  std::shared_ptr<const api::Pod> gone = std::move(pods_[it->second]);
  pod_index_.erase(it);
  CountPod(gone.get(), nullptr);
  evicted_.push_back(gone);
  pending_.push_back({std::move(gone), nullptr});
  return absl::OkStatus();
}

void Cluster::CountPod(const api::Pod* old_pod, const api::Pod* pod) {
  for (Budget& b : budgets_) {
    if (!b.computed) continue;
    for (auto [p, sign] : {std::pair{old_pod, -1}, std::pair{pod, 1}}) {
      if (p == nullptr || !Selects(*b.pdb, *p)) continue;
      b.pods += sign;
      b.healthy += IsHealthy(*p) ? sign : 0;
    }
    int32_t allowed = DisruptionsAllowed(*b.pdb, b.pods, b.healthy);
    if (allowed == b.pdb->disruptions_allowed) continue;
    auto updated = std::make_shared<api::PodDisruptionBudget>(*b.pdb);
    updated->disruptions_allowed = allowed;
    b.pdb = std::move(updated);
    b.changed = true;
  }
}

std::vector<std::shared_ptr<const api::Pod>> Cluster::Pods() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const api::Pod>> out;
  out.reserve(pod_index_.size());
  for (const auto& pod : pods_) {
    if (pod) out.push_back(pod);
  }
  return out;
}

std::vector<std::shared_ptr<const api::PodDisruptionBudget>> Cluster::PodDisruptionBudgets() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> out;
  out.reserve(budgets_.size());
  for (const Budget& b : budgets_) out.push_back(b.pdb);
  return out;
}

std::vector<std::shared_ptr<const api::Pod>> Cluster::Evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

std::vector<RecordedEvent> Cluster::Events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

absl::Status Cluster::Bind(const api::Pod& pod, std::string_view node_name) {
  absl::MutexLock lock(&mu_);
  auto it = pod_index_.find(pod.metadata.uid);
  if (it == pod_index_.end()) {
    return absl::NotFoundError(fmt::format("pods \"{}\" not found", pod.metadata.name));
  }
  std::shared_ptr<const api::Pod>& current = pods_[it->second];
  if (!current->spec.node_name.empty()) {
    return absl::AlreadyExistsError(fmt::format("pod {} is already assigned to node \"{}\"",
                                                pod.metadata.name, current->spec.node_name));
  }
  auto bound = std::make_shared<api::Pod>(*current);
  bound->spec.node_name = std::string(node_name);
  bound->status.phase = "Running";
  std::erase_if(bound->status.conditions, [](const auto& c) { return c.type == "PodScheduled"; });
  bound->status.conditions.push_back({.type = "PodScheduled", .status = "True"});
  CountPod(current.get(), bound.get());
  pending_.push_back({current, bound});
  current = std::move(bound);
  return absl::OkStatus();
}

void Cluster::RecordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                          std::string_view action, std::string message) {
  absl::MutexLock lock(&mu_);
  events_.push_back({pod.metadata.namespace_, pod.metadata.name, std::string(type),
                     std::string(reason), std::string(action), std::move(message)});
}

absl::Status Cluster::UpdatePodStatus(const api::Pod& pod, const api::PodCondition& condition,
                                      const std::string* nominated_node) {
  absl::MutexLock lock(&mu_);
  auto it = pod_index_.find(pod.metadata.uid);
  if (it == pod_index_.end()) {
    return absl::NotFoundError(fmt::format("pods \"{}\" not found", pod.metadata.name));
  }
  auto updated = std::make_shared<api::Pod>(*pods_[it->second]);
  std::erase_if(updated->status.conditions,
                [&](const auto& c) { return c.type == condition.type; });
  updated->status.conditions.push_back(condition);
  const bool renominated =
      nominated_node != nullptr && *nominated_node != updated->status.nominated_node_name;
  if (nominated_node != nullptr) updated->status.nominated_node_name = *nominated_node;
  // A condition is not a scheduling change; the scheduler hears only of a new nomination, as its
  // informer would.
  if (renominated) pending_.push_back({pods_[it->second], updated});
  pods_[it->second] = std::move(updated);
  return absl::OkStatus();
}

}  // namespace ksched::sim
