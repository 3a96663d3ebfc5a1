// The parts of a Snapshot that the cluster cache fills (src/cache, Cache::UpdateSnapshot). Not
// part of the SDK: plugins only read snapshots.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ksched/snapshot.h"

namespace ksched::internal {

class SnapshotAccess {
 public:
  struct Parts {
    absl::flat_hash_map<std::string, std::shared_ptr<const NodeInfo>>& infos;
    std::vector<const NodeInfo*>& list;
    std::vector<const NodeInfo*>& affinity_list;
    std::vector<const NodeInfo*>& anti_affinity_list;
    absl::flat_hash_map<std::string, int>& image_nodes;
    absl::flat_hash_map<const NodeInfo*, int32_t>& index;  // Kept with `list`.
  };
  // Forgets NodeLabelDomains: a node was added, removed or relabelled.
  static void ForgetLabelDomains(Snapshot& s) {
    absl::MutexLock lock(&s.label_mu_);
    s.label_domains_.clear();
  }
  static Parts Of(Snapshot& s) {
    return {s.infos_, s.list_, s.affinity_list_, s.anti_affinity_list_, s.image_nodes_, s.index_};
  }
};

}  // namespace ksched::internal
