// Snapshot: the cluster as one scheduling cycle sees it. Every plugin call of a cycle sees the same
// snapshot, so decisions within the cycle are consistent.
//
//   for (const NodeInfo* ni : handle.snapshot().nodes()) ...
//   const NodeInfo* ni = handle.snapshot().Get("node-1");  // nullptr if absent
//
// Thread safety: immutable during a cycle; the scheduler refreshes it between cycles.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/node_info.h"

namespace ksched {
namespace internal {
class SnapshotAccess;  // How the cluster cache fills snapshots (src/sdk), not for plugins.
}  // namespace internal

class Snapshot {
 public:
  // Nodes in upstream's order: zones interleaved round-robin, so that sampling spreads zones.
  const std::vector<const NodeInfo*>& nodes() const { return list_; }
  const std::vector<const NodeInfo*>& nodes_with_affinity_pods() const { return affinity_list_; }
  const std::vector<const NodeInfo*>& nodes_with_required_anti_affinity_pods() const {
    return anti_affinity_list_;
  }
  const NodeInfo* Get(std::string_view node_name) const;
  // How many nodes report the image (by the exact name the node reports).
  int NumNodesWithImage(std::string_view image) const;
  size_t size() const { return list_.size(); }

 private:
  friend class internal::SnapshotAccess;

  absl::flat_hash_map<std::string, std::unique_ptr<NodeInfo>> infos_;
  std::vector<const NodeInfo*> list_;
  std::vector<const NodeInfo*> affinity_list_;
  std::vector<const NodeInfo*> anti_affinity_list_;
  absl::flat_hash_map<std::string, int> image_nodes_;
};

}  // namespace ksched
