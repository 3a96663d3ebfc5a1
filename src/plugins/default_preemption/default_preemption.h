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
//   is not tried against victims the scheduler still counts, and does not preempt twice. A pod
//   held back is queued again once its last victim's deletion is watched, even when that victim
//   was in the way of none of the plugins that rejected it, where upstream's hint leaves it waiting
//   for another event (kubernetes/kubernetes#141694).
//
// The search, the choice and the evictions are the SDK's preemption::Evaluator
// (ksched/preemption.h); this plugin is its Interface: the number of candidates, who may preempt,
// and the victims on a node.
//
// Messages are upstream's, after "preemption: ": "not eligible due to preemptionPolicy=Never.",
// "0/3 nodes are available: 3 No preemption victims found for incoming pod.", "0/3 nodes are
// available: 3 Preemption is not helpful for scheduling.", and so on.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/preemption.h"
#include "src/plugins/default_preemption/args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::default_preemption {

using preemption::Candidate;
using preemption::Victims;

class DefaultPreemption final : public PreEnqueuePlugin,
                                public PostFilterPlugin,
                                public EnqueueExtensions,
                                public preemption::PodGroupPreemptionPlugin,
                                public preemption::Interface {
 public:
  // With `generic_workload` (the gate), a pod's victims count with their PodGroups' priorities,
  // and a PodGroup disrupted as a whole is one victim, all its pods, wherever they run.
  DefaultPreemption(DefaultPreemptionArgs args, Handle& handle, bool generic_workload = false)
      : args_(args),
        handle_(handle),
        generic_workload_(generic_workload),
        evaluator_(names::kDefaultPreemption, handle, *this) {}

  std::string_view Name() const override { return names::kDefaultPreemption; }

  // The Evaluator's: UnschedulableAndUnresolvable preemption::kWaitingForPreemption while the
  // pod's evictions run.
  Status PreEnqueue(const api::Pod& pod) override { return evaluator_.PreEnqueue(pod); }
  // The Evaluator's: Pod/Delete, queueing a pod held back once its last victim's deletion is
  // watched; the plugins that rejected the pod decide whether other deletions help it.
  std::vector<ClusterEventWithHint> EventsToRegister() const override {
    return evaluator_.EventsToRegister();
  }

  // Counts in scheduler_preemption_attempts_total, then preempts (preemption::Evaluator::Preempt).
  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override;

  // The Evaluator's: evicts the victims the pod group cycle chose for a gang.
  void PreemptForPodGroup(const api::PodGroup& group,
                          std::vector<std::shared_ptr<const api::Pod>> pods,
                          const Victims& victims) override {
    evaluator_.PreemptForPodGroup(group, std::move(pods), victims);
  }

  // --- preemption::Interface.
  // A random offset, and NumCandidates.
  std::pair<int32_t, int32_t> GetOffsetAndNumCandidates(int32_t num_potential) override;
  // Not with preemptionPolicy Never, nor while a lower-priority victim of an earlier preemption is
  // still terminating on the node the pod is nominated to (unless that node now rejects it for
  // good).
  bool PodEligibleToPreemptOthers(const api::Pod& pod, const NodeToStatus& filtered,
                                  std::string* reason) const override;
  // Every victim of lower priority is removed (preemption::VictimsOf: with GenericWorkload, a
  // PodGroup disrupted as a whole is one, its pods on other nodes included); if the pod fits then,
  // as many of them as fit are put back, most important first, those whose eviction would violate
  // a PodDisruptionBudget before the others (upstream's SelectVictimsOnNode).
  // UnschedulableAndUnresolvable preemption::kNoVictimsFound when the node has no pod of lower
  // priority.
  Status SelectVictimsOnNode(CycleState& state, const api::Pod& pod, NodeInfo& node,
                             const preemption::PodDisruptionBudgets& pdbs,
                             Victims* victims) const override;

  // How many candidate nodes to look for among `num_nodes` potential ones.
  int32_t NumCandidates(int32_t num_nodes) const;

 private:
  DefaultPreemptionArgs args_;
  Handle& handle_;
  const bool generic_workload_;
  // The PodGroups disrupted as a whole, for the PostFilter call under way.
  preemption::WholeGroups whole_groups_;
  std::minstd_rand offset_rng_{1};  // Where the search for candidates starts.
  preemption::Evaluator evaluator_;
};

// Builds DefaultPreemption from its decoded args (the Registry wraps it with
// TypedFactory<DefaultPreemptionArgs>), with the GenericWorkload gate.
std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const DefaultPreemptionArgs&, Handle&)>
MakeFactory(bool generic_workload);

}  // namespace ksched::plugins::default_preemption
