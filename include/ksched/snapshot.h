// Snapshot: the cluster as one scheduling cycle sees it. Every plugin call of a cycle sees the same
// snapshot, so decisions within the cycle are consistent.
//
//   for (const NodeInfo* ni : handle.snapshot().nodes()) ...
//   const NodeInfo* ni = handle.snapshot().Get("node-1");  // nullptr if absent
//
// Thread safety: immutable during a cycle; the scheduler refreshes it between cycles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ksched/node_info.h"

namespace ksched {
namespace internal {
class SnapshotBuilder;  // How the cluster cache fills snapshots (src/sdk), not for plugins.
}  // namespace internal

// The values of one node label over a list of nodes: domain[i] indexes `values` for node i, or is
// kNoValue where that node lacks the label. Lets a plugin count per topology domain in arrays.
struct LabelDomains {
  static constexpr int32_t kNoValue = -1;
  std::vector<int32_t> domain;
  std::vector<std::string> values;  // Distinct, in the order first met.

  static LabelDomains Of(const std::vector<const NodeInfo*>& nodes, std::string_view key);
  // Node i's value; nullptr where it lacks the label.
  const std::string* ValueAt(size_t i) const {
    return domain[i] == kNoValue ? nullptr : &values[domain[i]];
  }
};

// A NodeInfo (and the lists of them) stays valid and unchanged until the scheduler refreshes the
// snapshot, at the start of the next scheduling cycle; a node that changed then is a new NodeInfo,
// and the old one is gone. Keep a node's name, or its place and generation(), across cycles, not
// its address.
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
  // LabelDomains::Of(nodes(), key), built on first use and kept until a node is added, removed or
  // relabelled: a plugin that reads a label of every node each cycle reads one array, not every
  // node's labels. The reference stays valid until the scheduler refreshes the snapshot. Safe to
  // call concurrently.
  const LabelDomains& NodeLabelDomains(std::string_view key) const;
  // The node's place in nodes(), so that a Filter or Score reads its LabelDomains entry:
  //   int32_t i = snapshot.IndexOf(node);
  //   const std::string* zone = i >= 0 ? zones.ValueAt(i) : <the node's own label>;
  // -1 for a NodeInfo that is not this snapshot's own (a copy that preemption's what-if
  // changed, say). Safe to call concurrently.
  int32_t IndexOf(const NodeInfo& node) const;

 private:
  friend class internal::SnapshotBuilder;

  absl::flat_hash_map<std::string, std::shared_ptr<const NodeInfo>>
      infos_;  // Shared with the cache.
  std::vector<const NodeInfo*> list_;
  std::vector<const NodeInfo*> affinity_list_;
  std::vector<const NodeInfo*> anti_affinity_list_;
  absl::flat_hash_map<std::string, int> image_nodes_;
  mutable absl::Mutex label_mu_;
  mutable absl::flat_hash_map<std::string, std::unique_ptr<const LabelDomains>> label_domains_
      ABSL_GUARDED_BY(label_mu_);
  absl::flat_hash_map<const NodeInfo*, int32_t> index_;  // list_'s positions.
};

}  // namespace ksched
