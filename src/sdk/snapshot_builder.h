// SnapshotBuilder: how the cluster cache brings a Snapshot up to date (Cache::UpdateSnapshot),
// keeping the snapshot's invariants: nodes() in the order given, IndexOf's positions matching it,
// the lists of nodes with affinity pods derived from it, and NodeLabelDomains forgotten once a
// node is added, removed or relabelled. Not part of the SDK: plugins only read snapshots.
//
//   SnapshotBuilder b(snapshot);
//   b.Put("n1", info);                  // added, or a new version of it
//   b.Remove("n2");
//   if (b.membership_changed()) b.Order(names_in_order);
//   b.Finish();
//
// Thread safety: none; the snapshot must not be read meanwhile (between scheduling cycles).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/snapshot.h"

namespace ksched::internal {

class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(Snapshot& snapshot) : s_(snapshot) {}

  // The node's current version. A new version of a node takes the old one's place in nodes().
  void Put(const std::string& name, std::shared_ptr<const NodeInfo> info);
  // The node's current version; nullptr if the snapshot lacks it.
  std::shared_ptr<const NodeInfo> Get(std::string_view name) const;
  // The node is gone (or has no Node object any more); nothing if the snapshot lacks it.
  void Remove(const std::string& name);
  // Whether Put added a node or Remove removed one since the builder began: Order must follow.
  bool membership_changed() const { return membership_changed_; }
  // nodes() in this order; every name must be in the snapshot.
  void Order(const std::vector<std::string_view>& names);
  // The number of nodes that report each image (Snapshot::NumNodesWithImage).
  void SetImageNodes(const absl::flat_hash_map<std::string, int>& image_nodes);
  // Rebuilds what derives from the changes: the lists of nodes with affinity pods, and the label
  // domains, forgotten.
  void Finish();

 private:
  Snapshot& s_;
  bool membership_changed_ = false;
  bool order_changed_ = false;
  bool labels_changed_ = false;
  bool affinity_changed_ = false;
};

}  // namespace ksched::internal
