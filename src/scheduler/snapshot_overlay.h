// What-if changes to the scheduler's snapshot, for preemption's search for a pod group.
//
//   SnapshotOverlay overlay(snapshot_);
//   overlay.RemovePod("node-1", victim_uid);   // the snapshot's node-1 is a changed copy now
//   ...
//   overlay.Restore();                         // or at its end: the originals are back
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/node_info.h"
#include "ksched/snapshot.h"
#include "src/sdk/snapshot_builder.h"

namespace ksched::scheduler {

// What-if changes to the scheduler's snapshot (upstream's StartMutations and EndMutations): each
// change puts a new version of the node in the snapshot (a copy, changed); Restore puts the
// originals back. The cache does not see them, so the snapshot must not be refreshed meanwhile.
class SnapshotOverlay {
 public:
  explicit SnapshotOverlay(Snapshot& snapshot) : snapshot_(snapshot) {}
  SnapshotOverlay(const SnapshotOverlay&) = delete;
  SnapshotOverlay& operator=(const SnapshotOverlay&) = delete;
  ~SnapshotOverlay() { Restore(); }

  // The node as it is after the change; nullptr if the snapshot has no such node.
  const NodeInfo* AddPod(const std::string& node, std::shared_ptr<const PodInfo> pod) {
    return Change(node, [&](NodeInfo& ni) { ni.AddPod(std::move(pod)); });
  }
  const NodeInfo* RemovePod(const std::string& node, std::string_view uid) {
    return Change(node, [&](NodeInfo& ni) { ni.RemovePod(uid); });
  }
  // Each pod off its node (spec.node_name): one new version per node, whatever its number of pods.
  void RemovePods(const std::vector<std::shared_ptr<const PodInfo>>& pods) {
    std::map<std::string, std::vector<std::string_view>> by_node;
    for (const auto& pi : pods) by_node[pi->pod->spec.node_name].push_back(pi->pod->metadata.uid);
    internal::SnapshotBuilder b(snapshot_);
    for (const auto& entry : by_node) {
      Edit(b, entry.first, [&](NodeInfo& ni) {
        for (std::string_view uid : entry.second) ni.RemovePod(uid);
      });
    }
    b.Finish();
  }
  void Restore() {
    if (originals_.empty()) return;
    internal::SnapshotBuilder b(snapshot_);
    for (auto& [name, info] : originals_) b.Put(name, std::move(info));
    b.Finish();
    originals_.clear();
  }

 private:
  template <typename F>
  const NodeInfo* Change(const std::string& node, F&& change) {
    internal::SnapshotBuilder b(snapshot_);
    const NodeInfo* out = Edit(b, node, std::forward<F>(change));
    b.Finish();
    return out;
  }
  // The node's new version, `change`d, into the builder (Finish is the caller's).
  template <typename F>
  const NodeInfo* Edit(internal::SnapshotBuilder& b, const std::string& node, F&& change) {
    std::shared_ptr<const NodeInfo> now = b.Get(node);
    if (now == nullptr) return nullptr;
    originals_.try_emplace(node, now);
    auto next = std::make_shared<NodeInfo>(*now);
    change(*next);
    const NodeInfo* out = next.get();
    b.Put(node, std::move(next));
    return out;
  }

  Snapshot& snapshot_;
  absl::flat_hash_map<std::string, std::shared_ptr<const NodeInfo>> originals_;
};

}  // namespace ksched::scheduler
