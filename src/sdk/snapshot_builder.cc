#include "src/sdk/snapshot_builder.h"

#include "ksched/strings.h"

namespace ksched::internal {
namespace {

bool HasAffinityPods(const NodeInfo& ni) {
  return !ni.pods_with_affinity().empty() || !ni.pods_with_required_anti_affinity().empty();
}

}  // namespace

void SnapshotBuilder::Put(const std::string& name, std::shared_ptr<const NodeInfo> info) {
  affinity_changed_ |= HasAffinityPods(*info);
  auto snap = s_.infos_.find(name);
  if (snap == s_.infos_.end()) {
    s_.infos_.emplace(name, std::move(info));
    membership_changed_ = true;
    return;
  }
  if (snap->second == info) return;
  affinity_changed_ |= HasAffinityPods(*snap->second);
  const api::Node* was = snap->second->node();
  const api::Node* now = info->node();
  labels_changed_ |= was != now && (was == nullptr || now == nullptr ||
                                    was->metadata.labels != now->metadata.labels);
  // The new version takes the old one's place in the node list.
  if (auto at = s_.index_.find(snap->second.get()); at != s_.index_.end()) {
    const int32_t place = at->second;
    s_.index_.erase(at);
    s_.list_[place] = info.get();
    s_.index_.emplace(info.get(), place);
  }
  snap->second = std::move(info);
}

std::shared_ptr<const NodeInfo> SnapshotBuilder::Get(std::string_view name) const {
  auto it = s_.infos_.find(AsAbsl(name));
  return it == s_.infos_.end() ? nullptr : it->second;
}

void SnapshotBuilder::Remove(const std::string& name) {
  auto snap = s_.infos_.find(name);
  if (snap == s_.infos_.end()) return;
  affinity_changed_ |= HasAffinityPods(*snap->second);
  s_.infos_.erase(snap);
  membership_changed_ = true;
}

void SnapshotBuilder::Order(const std::vector<std::string_view>& names) {
  s_.list_.clear();
  s_.index_.clear();
  for (std::string_view name : names) {
    const NodeInfo* ni = s_.infos_.at(AsAbsl(name)).get();
    s_.index_.emplace(ni, static_cast<int32_t>(s_.list_.size()));
    s_.list_.push_back(ni);
  }
  order_changed_ = true;
}

void SnapshotBuilder::SetImageNodes(const absl::flat_hash_map<std::string, int>& image_nodes) {
  s_.image_nodes_ = image_nodes;
}

void SnapshotBuilder::Finish() {
  if (order_changed_ || labels_changed_) {
    absl::MutexLock lock(&s_.label_mu_);
    s_.label_domains_.clear();
  }
  if (order_changed_ || affinity_changed_) {
    s_.affinity_list_.clear();
    s_.anti_affinity_list_.clear();
    for (const NodeInfo* ni : s_.list_) {
      if (!ni->pods_with_affinity().empty()) s_.affinity_list_.push_back(ni);
      if (!ni->pods_with_required_anti_affinity().empty()) s_.anti_affinity_list_.push_back(ni);
    }
  }
}

}  // namespace ksched::internal
