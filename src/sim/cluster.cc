#include "src/sim/cluster.h"

#include "fmt/format.h"
#include "src/base/strings.h"

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

}  // namespace

Cluster::Cluster(std::vector<api::Object> objects) {
  for (api::Object& o : objects) {
    if (auto* node = std::get_if<api::Node>(&o)) {
      nodes_.push_back(std::make_shared<const api::Node>(std::move(*node)));
    } else if (auto* ns = std::get_if<api::Namespace>(&o)) {
      namespaces_.push_back(std::make_shared<const api::Namespace>(std::move(*ns)));
    } else if (auto* pc = std::get_if<api::PriorityClass>(&o)) {
      priority_classes_.push_back(std::make_shared<const api::PriorityClass>(std::move(*pc)));
    } else if (auto* pod = std::get_if<api::Pod>(&o)) {
      if (pod->metadata.namespace_.empty()) pod->metadata.namespace_ = "default";
      if (pod->spec.scheduler_name.empty()) pod->spec.scheduler_name = "default-scheduler";
      if (pod->metadata.uid.empty()) {
        pod->metadata.uid = pod->metadata.namespace_ + "/" + pod->metadata.name;
      }
      if (!pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Running";
      if (pod->spec.node_name.empty() && pod->status.phase.empty()) pod->status.phase = "Pending";
      MarkSchedulingGated(*pod);
      absl::MutexLock lock(&mu_);
      pod_index_[pod->metadata.uid] = pods_.size();
      pods_.push_back(std::make_shared<const api::Pod>(std::move(*pod)));
    }
  }
}

void Cluster::Start(ClusterEventSink& s) {
  for (const auto& ns : namespaces_) s.OnNamespaceSet(ns);
  for (const auto& pc : priority_classes_) s.OnPriorityClassSet(pc);
  for (const auto& node : nodes_) s.OnNodeAdd(node);
  std::vector<std::shared_ptr<const api::Pod>> pods = Pods();
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) s.OnPodAdd(pod);
  }
  for (const auto& pod : pods) {
    if (pod->spec.node_name.empty()) s.OnPodAdd(pod);
  }
}

void Cluster::Deliver(ClusterEventSink& s) {
  std::vector<Change> changes;
  {
    absl::MutexLock lock(&mu_);
    changes.swap(pending_);
  }
  for (Change& c : changes) {
    if (c.pod == nullptr) {
      s.OnPodDelete(c.old_pod);
    } else {
      s.OnPodUpdate(c.old_pod, std::move(c.pod));
    }
  }
}

std::vector<std::shared_ptr<const api::Pod>> Cluster::Pods() const {
  absl::MutexLock lock(&mu_);
  return pods_;
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

absl::Status Cluster::DeletePod(const api::Pod& pod) {
  absl::MutexLock lock(&mu_);
  auto it = pod_index_.find(pod.metadata.uid);
  if (it == pod_index_.end()) {
    return absl::NotFoundError(fmt::format("pods \"{}\" not found", pod.metadata.name));
  }
  const size_t index = it->second;
  std::shared_ptr<const api::Pod> gone = pods_[index];
  pods_.erase(pods_.begin() + static_cast<std::ptrdiff_t>(index));
  pod_index_.erase(it);
  for (auto& [uid, i] : pod_index_) {
    if (i > index) --i;
  }
  evicted_.push_back(gone);
  pending_.push_back({gone, nullptr});
  return absl::OkStatus();
}

}  // namespace ksched::sim
