#include "src/cache/cache.h"

#include <algorithm>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/sdk/snapshot_builder.h"

namespace ksched::cache {

std::string ZoneKeyOf(const api::Node& node) {
  const api::StringMap& l = node.metadata.labels;
  auto get = [&](const char* a, const char* b) -> std::string {
    if (auto it = l.find(a); it != l.end()) return it->second;
    if (auto it = l.find(b); it != l.end()) return it->second;
    return "";
  };
  std::string region =
      get("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region");
  std::string zone = get("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone");
  if (region.empty() && zone.empty()) return "";
  return region + std::string(":\0:", 3) + zone;  // Upstream's separator.
}

Cache::Cache(absl::Duration assumed_ttl) : ttl_(assumed_ttl) {}

namespace {

// `slot`'s NodeInfo, copied first if a snapshot shares it. Snapshots take and drop their shares
// only under the cache's lock (UpdateSnapshot), so a count of one stays one while the lock is
// held; a Snapshot is destroyed only once the cache's writers have stopped.
NodeInfo& Unshared(std::shared_ptr<NodeInfo>& slot) {
  if (slot.use_count() > 1) slot = std::make_shared<NodeInfo>(*slot);
  return *slot;
}

}  // namespace

NodeInfo& Cache::NodeInfoLocked(const std::string& name) {
  auto& slot = nodes_[name];
  if (!slot) slot = std::make_shared<NodeInfo>();
  return Unshared(slot);
}

void Cache::MarkDirtyLocked(const std::string& name) { dirty_.insert(name); }

void Cache::AddPodLocked(std::shared_ptr<const PodInfo> pod, const std::string& node) {
  NodeInfoLocked(node).AddPod(std::move(pod));
  MarkDirtyLocked(node);
}

void Cache::RemovePodLocked(const PodState& state) {
  auto it = nodes_.find(state.node);
  if (it == nodes_.end()) return;
  Unshared(it->second).RemovePod(state.pod->pod->metadata.uid);
  MarkDirtyLocked(state.node);
  if (it->second->node() == nullptr && it->second->pods().empty()) nodes_.erase(it);
}

absl::Status Cache::AssumePod(std::shared_ptr<const PodInfo> pod, const std::string& node) {
  absl::MutexLock lock(&mu_);
  const std::string& uid = pod->pod->metadata.uid;
  if (pods_.contains(uid)) {
    return absl::AlreadyExistsError(
        fmt::format("pod {}/{} (uid {}) is in the cache, so can't be assumed",
                    pod->pod->metadata.namespace_, pod->pod->metadata.name, uid));
  }
  AddPodLocked(pod, node);
  PlaceMemberLocked(*pod->pod, /*assumed=*/true);
  pods_[uid] = PodState{.pod = std::move(pod), .node = node, .assumed = true};
  return absl::OkStatus();
}

void Cache::FinishBinding(std::string_view uid, absl::Time now) {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  if (it == pods_.end() || !it->second.assumed) return;
  it->second.binding_finished = true;
  if (ttl_ > absl::ZeroDuration()) it->second.deadline = now + ttl_;
}

absl::Status Cache::ForgetPod(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  if (it == pods_.end() || !it->second.assumed) {
    return absl::FailedPreconditionError(
        fmt::format("pod with uid {} wasn't assumed so cannot be forgotten", uid));
  }
  UnplaceMemberLocked(it->second.pod->pod, /*pending=*/true);
  RemovePodLocked(it->second);
  pods_.erase(it);
  return absl::OkStatus();
}

void Cache::CleanupExpiredAssumedPods(absl::Time now) {
  absl::MutexLock lock(&mu_);
  for (auto it = pods_.begin(); it != pods_.end();) {
    const PodState& s = it->second;
    if (s.assumed && s.binding_finished && now > s.deadline) {
      UnplaceMemberLocked(s.pod->pod, /*pending=*/false);
      RemovePodLocked(s);
      pods_.erase(it++);
    } else {
      ++it;
    }
  }
}

absl::Status Cache::AddPod(std::shared_ptr<const PodInfo> pod) {
  absl::MutexLock lock(&mu_);
  const std::string& uid = pod->pod->metadata.uid;
  const std::string& node = pod->pod->spec.node_name;
  auto it = pods_.find(uid);
  if (it != pods_.end() && !it->second.assumed) {
    return absl::AlreadyExistsError(fmt::format("pod with uid {} was already added", uid));
  }
  if (it != pods_.end()) RemovePodLocked(it->second);  // Confirm: replace the assumed copy.
  AddPodLocked(pod, node);
  PlaceMemberLocked(*pod->pod, /*assumed=*/false);
  pods_[uid] = PodState{.pod = std::move(pod), .node = node};
  return absl::OkStatus();
}

absl::Status Cache::UpdatePod(std::shared_ptr<const PodInfo> pod) {
  absl::MutexLock lock(&mu_);
  const std::string& uid = pod->pod->metadata.uid;
  auto it = pods_.find(uid);
  if (it == pods_.end() || it->second.assumed) {
    return absl::NotFoundError(fmt::format("pod with uid {} is not added to the cache", uid));
  }
  RemovePodLocked(it->second);
  std::string node = pod->pod->spec.node_name;
  AddPodLocked(pod, node);
  it->second = PodState{.pod = std::move(pod), .node = std::move(node)};
  return absl::OkStatus();
}

absl::Status Cache::RemovePod(std::string_view uid) {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  if (it == pods_.end()) {
    return absl::NotFoundError(fmt::format("pod with uid {} is not in the cache", uid));
  }
  UnplaceMemberLocked(it->second.pod->pod, /*pending=*/false);
  RemovePodLocked(it->second);
  pods_.erase(it);
  return absl::OkStatus();
}

namespace {
std::string GroupKey(std::string_view ns, std::string_view name) {
  return fmt::format("{}/{}", ns, name);
}
}  // namespace

void Cache::PlaceMemberLocked(const api::Pod& pod, bool assumed) {
  if (!pod.spec.pod_group_name) return;
  GroupPods& g = groups_[GroupKey(pod.metadata.namespace_, *pod.spec.pod_group_name)];
  g.pending.erase(pod.metadata.uid);
  g.placed[pod.metadata.uid] = assumed;
}

void Cache::UnplaceMemberLocked(const std::shared_ptr<const api::Pod>& pod, bool pending) {
  if (!pod->spec.pod_group_name) return;
  const std::string key = GroupKey(pod->metadata.namespace_, *pod->spec.pod_group_name);
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  it->second.placed.erase(pod->metadata.uid);
  if (pending) it->second.pending[pod->metadata.uid] = pod;
  if (it->second.placed.empty() && it->second.pending.empty()) groups_.erase(it);
}

void Cache::AddPodGroupMember(std::shared_ptr<const api::Pod> pod) {
  if (!pod->spec.pod_group_name) return;
  absl::MutexLock lock(&mu_);
  GroupPods& g = groups_[GroupKey(pod->metadata.namespace_, *pod->spec.pod_group_name)];
  if (g.placed.contains(pod->metadata.uid)) return;
  g.pending[pod->metadata.uid] = std::move(pod);
}

void Cache::RemovePodGroupMember(const api::Pod& pod) {
  if (!pod.spec.pod_group_name) return;
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(GroupKey(pod.metadata.namespace_, *pod.spec.pod_group_name));
  if (it == groups_.end()) return;
  it->second.pending.erase(pod.metadata.uid);
  if (it->second.placed.empty() && it->second.pending.empty()) groups_.erase(it);
}

std::optional<PodGroupState> Cache::GetPodGroupState(std::string_view ns,
                                                     std::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(GroupKey(ns, name));
  if (it == groups_.end()) return std::nullopt;
  const GroupPods& g = it->second;
  PodGroupState out{.all = g.pending.size() + g.placed.size(), .scheduled = g.placed.size()};
  out.unscheduled.reserve(g.pending.size());
  for (const auto& [uid, pod] : g.pending) out.unscheduled.push_back(pod);
  out.scheduled_pods.reserve(g.placed.size());
  for (const auto& [uid, assumed] : g.placed) {
    if (assumed) out.assumed.push_back(uid);
    if (auto it = pods_.find(uid); it != pods_.end()) {
      out.scheduled_pods.push_back(it->second.pod->pod);
    }
  }
  return out;
}

void Cache::CountImagesLocked(const api::Node& node, int delta) {
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) {
      int& n = image_nodes_[name];
      n += delta;
      if (n <= 0) image_nodes_.erase(name);
    }
  }
  if (!node.status.images.empty()) images_changed_ = true;
}

void Cache::AddToTreeLocked(const api::Node& node) {
  std::string zone = ZoneKeyOf(node);
  auto it =
      std::find_if(tree_.begin(), tree_.end(), [&](const auto& z) { return z.first == zone; });
  if (it == tree_.end()) it = tree_.insert(tree_.end(), {zone, {}});
  it->second.push_back(node.metadata.name);
  tree_changed_ = true;
}

void Cache::RemoveFromTreeLocked(const std::string& name) {
  for (auto it = tree_.begin(); it != tree_.end(); ++it) {
    auto& names = it->second;
    auto pos = std::find(names.begin(), names.end(), name);
    if (pos == names.end()) continue;
    names.erase(pos);
    if (names.empty()) tree_.erase(it);
    tree_changed_ = true;
    return;
  }
}

void Cache::AddNode(std::shared_ptr<const api::Node> node) {
  absl::MutexLock lock(&mu_);
  const std::string name = node->metadata.name;
  NodeInfo& ni = NodeInfoLocked(name);
  // As upstream's nodeTree.updateNode: a node keeps its place in the order unless its zone changed.
  if (ni.node() == nullptr) {
    AddToTreeLocked(*node);
  } else {
    CountImagesLocked(*ni.node(), -1);
    if (ZoneKeyOf(*ni.node()) != ZoneKeyOf(*node)) {
      RemoveFromTreeLocked(name);
      AddToTreeLocked(*node);
    }
  }
  CountImagesLocked(*node, +1);
  ni.SetNode(std::move(node));
  MarkDirtyLocked(name);
}

void Cache::UpdateNode(std::shared_ptr<const api::Node> node) { AddNode(std::move(node)); }

void Cache::RemoveNode(std::string_view name) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(AsAbsl(name));
  if (it == nodes_.end() || it->second->node() == nullptr) return;
  std::string key(name);
  CountImagesLocked(*it->second->node(), -1);
  RemoveFromTreeLocked(key);
  if (it->second->pods().empty()) {
    nodes_.erase(it);
  } else {
    Unshared(it->second).RemoveNode();
  }
  MarkDirtyLocked(key);
}

bool Cache::IsAssumedPod(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  return it != pods_.end() && it->second.assumed;
}

std::string Cache::NodeOf(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  return it == pods_.end() ? "" : it->second.node;
}

std::shared_ptr<const api::Pod> Cache::GetPod(std::string_view uid) const {
  absl::MutexLock lock(&mu_);
  auto it = pods_.find(AsAbsl(uid));
  return it == pods_.end() ? nullptr : it->second.pod->pod;
}

size_t Cache::NodeCount() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [name, ni] : nodes_) n += ni->node() != nullptr;
  return n;
}

size_t Cache::PodCount() const {
  absl::MutexLock lock(&mu_);
  return pods_.size();
}

size_t Cache::AssumedPodCount() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [uid, state] : pods_) n += state.assumed;
  return n;
}

void Cache::UpdateSnapshot(Snapshot* snapshot) {
  absl::MutexLock lock(&mu_);
  internal::SnapshotBuilder builder(*snapshot);
  for (const std::string& name : dirty_) {
    auto it = nodes_.find(name);
    if (it == nodes_.end() || it->second->node() == nullptr) {
      builder.Remove(name);
    } else {
      builder.Put(name, it->second);
    }
  }
  dirty_.clear();
  if (tree_changed_ || builder.membership_changed()) {
    // Zones interleaved: the first node of each zone, then the second of each, and so on.
    std::vector<std::string_view> order;
    for (size_t i = 0;; ++i) {
      bool any = false;
      for (const auto& [zone, names] : tree_) {
        if (i >= names.size()) continue;
        any = true;
        order.push_back(names[i]);
      }
      if (!any) break;
    }
    builder.Order(order);
    tree_changed_ = false;
  }
  if (images_changed_) {
    builder.SetImageNodes(image_nodes_);
    images_changed_ = false;
  }
  builder.Finish();
}

}  // namespace ksched::cache
