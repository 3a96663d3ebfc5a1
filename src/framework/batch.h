// OpportunisticBatch: what a profile keeps of its last scheduling cycle so that the next pod,
// if it is identical, can skip scoring (OpportunisticBatching, beta and on since 1.35), as
// upstream's framework/runtime/batch.go in v1.37.2.
//
// After a pod's full cycle, the other feasible nodes are kept in the order of their scores. The
// next pod gets the head of that list as a hint when all of this holds: it is popped right after
// (the next cycle of the scheduler), it has no nominated node, its signature (Framework::SignPod)
// equals the previous pod's, and the list is less than 500 ms old. Before the hint is given, the
// node chosen last is filtered again for the new pod: if it still fits, it is scored again and
// competes with the list (its raw scores and the list's are normalized together); if it does not,
// the list is used as it is. The scheduler then filters the hinted node as it would a nominated
// one, and places the pod there without scoring if it fits.
//
//   std::string hint = fw.batch().GetNodeHint(state, pod, signature, cycle);
//   ...                                               // filter the hint, or every node
//   fw.batch().StoreScheduleResults(signature, hint, chosen, &scores, chosen_index, cycle, pod);
//
// Thread safety: the scheduling thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/node_info.h"
#include "src/base/clock.h"
#include "src/metrics/scheduler_metrics.h"

namespace ksched::framework {

class Framework;
struct ScoreTable;

class OpportunisticBatch {
 public:
  static constexpr absl::Duration kMaxBatchAge = absl::Milliseconds(500);

  // `clock` may be nullptr: the real clock.
  OpportunisticBatch(Framework& fw, const Clock* clock);

  // The node to try first for `pod` in scheduling cycle `cycle`, or "" when the last cycle's
  // results do not apply to it. `state` is the pod's, after PreFilter.
  std::string GetNodeHint(CycleState& state, const api::Pod& pod,
                          const std::optional<std::string>& signature, int64_t cycle);
  // Records cycle `cycle`'s outcome: `hinted` was GetNodeHint's answer, `chosen` the node the
  // pod goes to. `scores` is the cycle's scoring with `chosen` at `chosen_index`, or nullptr when
  // the pod was not scored (one node fitted); the other nodes of `scores` are kept for the next
  // pod if this one was signed and its hint was not used.
  void StoreScheduleResults(const std::optional<std::string>& signature, std::string_view hinted,
                            std::string_view chosen, const ScoreTable* scores, size_t chosen_index,
                            int64_t cycle, const api::Pod& pod);
  // The pod whose scoring the batch holds ("namespace/name"); "" without a batch.
  std::string_view source() const { return batch_ ? std::string_view(batch_->pod) : ""; }

 private:
  struct Candidate {
    std::string node;
    std::vector<int64_t> raw;  // By Batch::plugins: the Score plugins' raw scores.
    int64_t total = 0;         // Normalized and weighted.
  };
  struct Batch {
    std::string pod;  // Whose scoring it is.
    std::string signature;
    std::vector<std::string> plugins;  // The Score plugins that scored.
    std::vector<Candidate> sorted;     // Best last (popped from the back).
    absl::Time created;
  };

  // Whether the batch applies to `pod` (upstream's batchStateCompatible); counts why not.
  bool Compatible(const api::Pod& pod, const std::optional<std::string>& signature, int64_t cycle);
  // Upstream's refreshHintCandidates: false when the batch cannot be used.
  bool Refresh(CycleState& state, const api::Pod& pod);
  // Upstream's rescoreHintedNode: the last chosen node, scored again, joins the candidates.
  bool Rescore(CycleState& state, const api::Pod& pod, const NodeInfo& last);
  // The nodes of `scores` but the one at `skip`, with their raw scores, in Batch::sorted's order.
  static std::vector<Candidate> Sorted(const ScoreTable& scores, size_t skip);
  // Counts why the batch cannot be used (upstream's logUnusableState); returns false.
  bool Unusable(std::string_view reason);
  void CountAttempt(std::string_view result);
  // Observes the time since `start` in a latency histogram of the batch, by profile (and
  // `hinted`, for get_node_hint_duration).
  using Histogram = metrics::HistogramFamily& (*)(metrics::SchedulerMetrics&);
  void Observe(Histogram family, std::chrono::steady_clock::time_point start,
               std::string_view hinted = "");
  // Observes the time of its scope in `family`.
  struct Timer {
    OpportunisticBatch& batch;
    Histogram family;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Timer() { batch.Observe(family, start); }
  };

  Framework& fw_;
  const Clock& clock_;
  std::optional<Batch> batch_;
  int64_t last_cycle_ = -1;
  std::string last_chosen_;
};

}  // namespace ksched::framework
