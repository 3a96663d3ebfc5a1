#include "src/framework/nominator.h"

#include <algorithm>

#include "src/base/strings.h"

namespace ksched::framework {

void Nominator::AddNominatedPod(std::shared_ptr<const PodInfo> pod, const std::string& node) {
  absl::MutexLock lock(&mu_);
  DeleteLocked(pod->pod->metadata.uid);
  if (node.empty()) return;
  node_of_[pod->pod->metadata.uid] = node;
  by_node_[node].push_back(std::move(pod));
}

void Nominator::UpdateNominatedPod(const api::Pod& old_pod, std::shared_ptr<const PodInfo> pod) {
  absl::MutexLock lock(&mu_);
  const std::string& uid = pod->pod->metadata.uid;
  std::string node = pod->pod->status.nominated_node_name;
  if (node.empty() && old_pod.status.nominated_node_name.empty()) {
    auto it = node_of_.find(AsAbsl(uid));
    if (it != node_of_.end()) node = it->second;
  }
  DeleteLocked(uid);
  if (node.empty()) return;
  node_of_[uid] = node;
  by_node_[node].push_back(std::move(pod));
}

std::string Nominator::NodeOf(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  auto it = node_of_.find(AsAbsl(uid));
  return it == node_of_.end() ? "" : it->second;
}

void Nominator::DeleteNominatedPodIfExists(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  DeleteLocked(uid);
}

void Nominator::DeleteLocked(std::string_view uid) {
  auto it = node_of_.find(AsAbsl(uid));
  if (it == node_of_.end()) return;
  auto pods = by_node_.find(it->second);
  if (pods != by_node_.end()) {
    auto& list = pods->second;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const auto& p) { return p->pod->metadata.uid == uid; }),
               list.end());
    if (list.empty()) by_node_.erase(pods);
  }
  node_of_.erase(it);
}

std::vector<std::shared_ptr<const PodInfo>> Nominator::NominatedPodsForNode(
    std::string_view node) const {
  absl::MutexLock lock(&mu_);
  auto it = by_node_.find(AsAbsl(node));
  if (it == by_node_.end()) return {};
  return it->second;
}

bool Nominator::HasNominatedPods(std::string_view node) const {
  absl::MutexLock lock(&mu_);
  return by_node_.contains(AsAbsl(node));  // Entries are erased once they are empty.
}

bool Nominator::empty() const {
  absl::MutexLock lock(&mu_);
  return node_of_.empty();
}

}  // namespace ksched::framework
