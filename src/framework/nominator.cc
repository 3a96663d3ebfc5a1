#include "src/framework/nominator.h"

#include "ksched/strings.h"

namespace ksched::framework {

void Nominator::AddNominatedPod(std::shared_ptr<const PodInfo> pod, const std::string& node) {
  absl::MutexLock lock(&mu_);
  DeleteLocked(pod->pod->metadata.uid);
  if (node.empty()) return;
  AddLocked(std::move(pod), node);
}

void Nominator::AddLocked(std::shared_ptr<const PodInfo> pod, const std::string& node) {
  node_of_[pod->pod->metadata.uid] = node;
  std::shared_ptr<const PodList>& list = by_node_[node];
  auto grown = list ? std::make_shared<PodList>(*list) : std::make_shared<PodList>();
  grown->push_back(std::move(pod));
  list = std::move(grown);
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
  AddLocked(std::move(pod), node);
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
    auto rest = std::make_shared<PodList>();
    for (const auto& p : *pods->second) {
      if (p->pod->metadata.uid != uid) rest->push_back(p);
    }
    if (rest->empty()) {
      by_node_.erase(pods);
    } else {
      pods->second = std::move(rest);
    }
  }
  node_of_.erase(it);
}

Nominator::PodList Nominator::NominatedPodsForNode(std::string_view node) const {
  std::shared_ptr<const PodList> list = PodsForNode(node);
  return list ? *list : PodList();
}

std::shared_ptr<const Nominator::PodList> Nominator::PodsForNode(std::string_view node) const {
  absl::MutexLock lock(&mu_);
  auto it = by_node_.find(AsAbsl(node));
  return it == by_node_.end() ? nullptr : it->second;
}

bool Nominator::empty() const {
  absl::MutexLock lock(&mu_);
  return node_of_.empty();
}

}  // namespace ksched::framework
