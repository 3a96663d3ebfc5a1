#include "src/plugins/default_preemption/default_preemption.h"

#include <algorithm>

namespace ksched::plugins::default_preemption {

using api::PodPriority;

int32_t DefaultPreemption::NumCandidates(int32_t num_nodes) const {
  int32_t n = num_nodes * args_.min_candidate_nodes_percentage / 100;
  n = std::max(n, args_.min_candidate_nodes_absolute);
  return std::min(n, num_nodes);
}

bool DefaultPreemption::PodEligibleToPreemptOthers(const api::Pod& pod,
                                                   const NodeToStatus& filtered,
                                                   std::string* reason) const {
  if (pod.spec.preemption_policy == "Never") {
    *reason = "not eligible due to preemptionPolicy=Never.";
    return false;
  }
  // Upstream reads the pod afresh, with its pending nomination patch applied.
  const std::string nominated = handle_.NominatedNodeOf(pod);
  if (nominated.empty()) return true;
  // Nothing on the nominated node could help any more: preempting elsewhere may.
  if (filtered.Get(nominated).code() == Code::kUnschedulableAndUnresolvable) return true;
  // A victim of an earlier preemption is still leaving the nominated node: wait for it.
  if (const NodeInfo* ni = handle_.snapshot().Get(nominated)) {
    const PodGroupLister* groups = generic_workload_ ? &handle_.pod_groups() : nullptr;
    for (const auto& pi : ni->pods()) {
      if (preemption::VictimPriority(*pi->pod, groups) < PodPriority(pod) &&
          preemption::TerminatingByPreemption(*pi->pod)) {
        *reason = "not eligible due to a terminating pod on the nominated node.";
        return false;
      }
    }
  }
  return true;
}

std::pair<int32_t, int32_t> DefaultPreemption::GetOffsetAndNumCandidates(int32_t num_potential) {
  const int32_t offset = static_cast<int32_t>(
      offset_rng_() % static_cast<uint32_t>(std::max(num_potential, int32_t{1})));
  return {offset, NumCandidates(num_potential)};
}

Status DefaultPreemption::SelectVictimsOnNode(CycleState& state, const api::Pod& pod,
                                              NodeInfo& node,
                                              const preemption::PodDisruptionBudgets& pdbs,
                                              Victims* victims) const {
  // Only `node` changes; a victim's pods on other nodes (a PodGroup disrupted as a whole) reach
  // the PreFilter extensions with those nodes as the snapshot has them, as upstream's.
  const std::string& main = node.node()->metadata.name;
  auto each_pod = [&](const preemption::Victim& v, bool add) {
    for (const auto& pi : v.pods) {
      const NodeInfo* ni = &node;
      if (pi->pod->spec.node_name != main) {
        ni = handle_.snapshot().Get(pi->pod->spec.node_name);
        if (ni == nullptr) continue;
      } else if (add) {
        node.AddPod(pi);
      } else {
        node.RemovePod(pi->pod->metadata.uid);
      }
      Status s = add ? handle_.RunPreFilterExtensionAddPod(state, pod, *pi, *ni)
                     : handle_.RunPreFilterExtensionRemovePod(state, pod, *pi, *ni);
      if (!s.ok()) return s;
    }
    return Status();
  };
  const PodGroupLister* groups = generic_workload_ ? &handle_.pod_groups() : nullptr;
  std::vector<preemption::Victim> potential =
      preemption::VictimsOf({&node}, groups, &whole_groups_);
  std::erase_if(potential,
                [&](const preemption::Victim& v) { return v.priority >= PodPriority(pod); });
  if (potential.empty()) return Status::UnschedulableAndUnresolvable(preemption::kNoVictimsFound);
  for (const preemption::Victim& v : potential) {
    if (Status s = each_pod(v, false); !s.ok()) return s;
  }
  // With every lower-priority victim gone, the pod must fit.
  if (Status s = handle_.RunFilterPluginsWithNominatedPods(state, pod, node); !s.ok()) return s;

  std::stable_sort(potential.begin(), potential.end(), preemption::MoreImportantVictim);
  preemption::SplitVictimsByPdb(potential, pdbs);
  // Puts the victim back if the preemptor still fits with it; otherwise it is a victim.
  std::vector<const preemption::Victim*> evicted;
  auto reprieve = [&](const preemption::Victim& v) -> Status {
    if (Status s = each_pod(v, true); !s.ok()) return s;
    if (handle_.RunFilterPluginsWithNominatedPods(state, pod, node).ok()) return Status();
    evicted.push_back(&v);
    victims->num_pdb_violations += v.violations;
    return each_pod(v, false);
  };
  bool both = false;
  for (bool protected_first : {true, false}) {
    bool any = false;
    for (const preemption::Victim& v : potential) {
      if ((v.violations > 0) != protected_first) continue;
      any = true;
      if (Status s = reprieve(v); !s.ok()) return s;
    }
    both = protected_first ? any : both && any;
  }
  if (both) {
    std::stable_sort(evicted.begin(), evicted.end(),
                     [](const preemption::Victim* a, const preemption::Victim* b) {
                       return preemption::MoreImportantVictim(*a, *b);
                     });
  }
  for (const preemption::Victim* v : evicted) {
    victims->pods.insert(victims->pods.end(), v->pods.begin(), v->pods.end());
  }
  return Status();
}

Status DefaultPreemption::PostFilter(CycleState& state, const api::Pod& pod,
                                     const NodeToStatus& filtered, PostFilterResult* result) {
  handle_.metrics().PreemptionAttempted();
  // The pods of each PodGroup disrupted as a whole, wherever they run: SelectVictimsOnNode evicts
  // them together.
  whole_groups_.clear();
  if (generic_workload_) {
    whole_groups_ = preemption::FindWholeGroups(handle_.snapshot().nodes(), handle_.pod_groups());
  }
  return evaluator_.Preempt(state, pod, filtered, result);
}

std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const DefaultPreemptionArgs&, Handle&)>
MakeFactory(bool generic_workload) {
  return [generic_workload](const DefaultPreemptionArgs& args,
                            Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<DefaultPreemption>(args, handle, generic_workload);
  };
}

}  // namespace ksched::plugins::default_preemption
