// DefaultPreemption: when a pod fits no node, finds the node where evicting lower-priority pods
// makes it fit, evicts them, and nominates the pod to that node (upstream's
// plugins/defaultpreemption and framework/preemption).
//
// Args (DefaultPreemptionArgs, args.h): minCandidateNodesPercentage and minCandidateNodesAbsolute,
// how many nodes with possible victims to compare before choosing.
//
// The choice, as upstream's:
// - Only nodes that rejected the pod as Unschedulable (not UnschedulableAndUnresolvable) are
//   tried; on each, every pod of lower priority is removed, and if the pod fits then, as many of
//   them as fit are put back, most important first, those whose eviction would violate a
//   PodDisruptionBudget before the others.
// - Among the candidate nodes: the fewest PDB violations, then the lowest highest victim priority,
//   the lowest sum of priorities, the fewest victims, and the latest start time of the victims.
// - The victims get the condition DisruptionTarget (reason PreemptionByScheduler), a Preempted
//   event, and are deleted with their UID as a precondition; a victim waiting at Permit is
//   rejected there instead. Lower-priority pods nominated to the node lose their nomination.
// - As upstream's SchedulerAsyncPreemption (on by default since 1.33): the pod is nominated at
//   once and the evictions run off the scheduling thread (Handle::RunAsync; at once in `ksched
//   simulate`). Until they are done, PreEnqueue holds the pod back ("waiting for the preemption
//   for this pod to be finished"), except once the last victim's deletion is under way and that
//   victim is terminating or gone from the scheduler's view; if one fails, the pod is activated to
//   try again. Otherwise the victims' deletions, as watched, requeue it: never earlier, so that it
//   is not tried against victims the scheduler still counts, and does not preempt twice.
//
// Messages are upstream's, after "preemption: ": "not eligible due to preemptionPolicy=Never.",
// "0/3 nodes are available: 3 No preemption victims found for incoming pod.", "0/3 nodes are
// available: 3 Preemption is not helpful for scheduling.", and so on.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "src/metrics/scheduler_metrics.h"
#include "src/plugins/default_preemption/args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::default_preemption {

inline constexpr char kNoVictimsFound[] = "No preemption victims found for incoming pod";
inline constexpr char kNotHelpful[] = "Preemption is not helpful for scheduling";

// The victims of one candidate node, most important first.
struct Victims {
  std::vector<std::shared_ptr<const PodInfo>> pods;
  int64_t num_pdb_violations = 0;
};

struct Candidate {
  std::string node;
  Victims victims;
};

inline constexpr char kWaitingForPreemption[] =
    "waiting for the preemption for this pod to be finished";

class DefaultPreemption final : public PreEnqueuePlugin,
                                public PostFilterPlugin,
                                public EnqueueExtensions,
                                public metrics::RecordsSchedulerMetrics {
 public:
  DefaultPreemption(DefaultPreemptionArgs args, Handle& handle) : args_(args), handle_(handle) {}

  std::string_view Name() const override { return names::kDefaultPreemption; }

  // UnschedulableAndUnresolvable kWaitingForPreemption while the pod's evictions run, and after
  // they are answered until the cache shows the last victim terminating or gone, as upstream's
  // IsPodRunningPreemption reads its informer while they run. Upstream lets the pod through once
  // the last DELETE is answered; on a busy API server the watch may show that deletion later, and
  // a pod tried meanwhile still finds its victims on the node and preempts again. A pod held back
  // is activated when its evictions end if the victims are gone by then, as no event is left to
  // move it.
  Status PreEnqueue(const api::Pod& pod) override;
  // Pod/Delete, with a hint that always skips: the plugins that rejected the pod decide when a
  // deletion helps it (upstream registers it so that a held-back pod is looked at again).
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  // Success with result->nominated_node_name set when victims were evicted; Unschedulable with
  // "preemption: ..." otherwise (nominated_node_name "" when no candidate was found, which clears
  // an earlier nomination; left unset when the pod may not preempt at all).
  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override;

  // The victims on `node` (a copy, which this changes) whose eviction makes `pod` fit, and how
  // many of them a PodDisruptionBudget protects (upstream's SelectVictimsOnNode). `state` is a
  // copy of the cycle's state, which the PreFilter extensions update.
  Status SelectVictimsOnNode(
      CycleState& state, const api::Pod& pod, NodeInfo& node,
      const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs,
      Victims* victims) const;

  // Each PostFilter call counts in scheduler_preemption_attempts_total; each preemption that
  // evicts observes its number of victims in scheduler_preemption_victims.
  void SetMetrics(metrics::SchedulerMetrics* metrics) override { metrics_ = metrics; }

  // How many candidate nodes to look for among `num_nodes` potential ones.
  int32_t NumCandidates(int32_t num_nodes) const;

 private:
  // Whether `pod` may preempt, with upstream's reason when it may not.
  bool EligibleToPreemptOthers(const api::Pod& pod, const NodeToStatus& filtered,
                               std::string* reason) const;
  // The candidates, and the status of every potential node that is none (DryRunPreemption).
  std::vector<Candidate> FindCandidates(const CycleState& state, const api::Pod& pod,
                                        const std::vector<const NodeInfo*>& potential,
                                        NodeToStatus* statuses);
  // Clears the nominations of lower-priority pods nominated to the node, then evicts the victims,
  // the last one once the pod is marked as finishing (upstream's prepareCandidateAsync); the
  // pod's mark is removed at the end, and it is activated if an eviction failed.
  void EvictAsync(const api::Pod& pod, const Candidate& c);
  // Evicts one victim: DisruptionTarget, deletion and a Preempted event, or, for a pod waiting at
  // Permit, a rejection there (upstream's PreemptPod).
  absl::Status Evict(const api::Pod& pod, const std::string& node, const api::Pod& victim);

  DefaultPreemptionArgs args_;
  Handle& handle_;
  std::minstd_rand offset_rng_{1};  // Where the search for candidates starts.
  metrics::SchedulerMetrics* metrics_ = nullptr;
  // Whether the scheduler has seen the victim terminate or go.
  bool VictimGone(const std::string& uid) const;

  // A pod whose evictions run, or were answered while the cache still had its last victim: the
  // UID of the last victim once its eviction starts (upstream's lastVictimsPendingPreemption),
  // whether PreEnqueue held the pod back meanwhile, and whether the evictions were answered.
  struct Preempting {
    std::string last_victim;
    bool held = false;
    bool answered = false;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Preempting> preempting_ ABSL_GUARDED_BY(mu_);  // By pod UID.
};

// Picks the node to preempt on, by upstream's criteria (pickOneNodeForPreemption); the first of
// the candidates that tie on all of them.
const Candidate* PickOneNodeForPreemption(const std::vector<Candidate>& candidates);

// Upstream's MoreImportantPod: higher priority, then the earlier start time.
bool MoreImportantPod(const api::Pod& a, const api::Pod& b);

absl::StatusOr<std::unique_ptr<Plugin>> New(const DefaultPreemptionArgs& args, Handle& handle);

}  // namespace ksched::plugins::default_preemption
