// ExplainRecords: what a live scheduler keeps of each pod's last scheduling attempt, for
// `ksched explain NAMESPACE/POD` (served under /debug/pods/): per node, the filter that rejected
// it and why; the best feasible nodes' scores per plugin; the preemption's nominated node and
// victims; and the events that may make a pending pod schedulable (the rejecting plugins'
// registrations).
//
//   ExplainRecords records({.max_bytes = 32 << 20});
//   SchedulerOptions{..., .observers = {&records}};  // it observes each attempt
//   std::optional<nlohmann::ordered_json> j = records.Json("default", "web-1");  // any thread
//
// Memory is bounded: records are counted in bytes, and past `max_bytes` the oldest records of
// decided pods go first, then those of the pending pods whose last attempt is oldest. Node names
// are kept once, in an index of their own, and a record's nodes are sets of indexes (a bitmap
// where that is smaller), so that 10,000 pending pods on 5,000 nodes fit in megabytes, not
// gigabytes.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ksched/fit_error.h"
#include "ksched/status.h"
#include "nlohmann/json.hpp"
#include "src/framework/framework.h"
#include "src/scheduler/attempt.h"

namespace ksched::scheduler {

struct ExplainOptions {
  size_t max_bytes = 32 << 20;  // The records' memory, node index included.
};

class ExplainRecords : public AttemptObserver {
 public:
  // A scheduled pod's record keeps the scores of this many nodes, the best: scores are the
  // largest part of a record (8 bytes per plugin and node), and percentageOfNodesToScore scores
  // hundreds of nodes in a large cluster.
  static constexpr size_t kScoresKept = 20;

  explicit ExplainRecords(ExplainOptions options = {}) : options_(options) {}

  // The attempt replaces the pod's last: the scores only when it was scheduled, and a binding
  // cycle's failure with its one node.
  void Observe(const Attempt& attempt) override;
  // The pod was deleted: its record goes.
  void Forget(std::string_view uid) override;
  // The record of pod namespace/name as JSON (the schema is in docs/explain.md); nullopt when no
  // attempt of it is kept.
  std::optional<nlohmann::ordered_json> Json(std::string_view namespace_,
                                             std::string_view name) const;

  size_t bytes() const;    // What the records and the node index take, as counted.
  size_t records() const;  // How many pods have one.

 private:
  struct Kept;
  struct Entry {
    std::shared_ptr<const Kept> record;
    uint64_t seq = 0;  // Its place in the eviction order.
  };
  uint32_t NodeId(std::string_view node) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Drop(const std::string& uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Evict() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ExplainOptions options_;
  mutable absl::Mutex mu_;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, Entry> by_uid_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::string> uid_by_name_ ABSL_GUARDED_BY(mu_);  // ns/name
  // Eviction order, oldest first: seq → uid.
  std::map<uint64_t, std::string> decided_ ABSL_GUARDED_BY(mu_), pending_ ABSL_GUARDED_BY(mu_);
  // Node names, once each: records hold their indexes. The map keeps copies of the names, not
  // views of node_names_: each attempt looks up every rejected node, and a key compared in the
  // map's own slot costs no read elsewhere.
  absl::flat_hash_map<std::string, uint32_t> node_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> node_names_ ABSL_GUARDED_BY(mu_);
  size_t node_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // The scoring plugins of the last record with scores, which the next of its profile shares.
  std::shared_ptr<const std::vector<std::string>> score_plugins_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ksched::scheduler
