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
    for (const auto& pi : ni->pods()) {
      if (PodPriority(*pi->pod) < PodPriority(pod) &&
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
  auto remove = [&](const std::shared_ptr<const PodInfo>& pi) {
    node.RemovePod(pi->pod->metadata.uid);
    return handle_.RunPreFilterExtensionRemovePod(state, pod, *pi, node);
  };
  auto add = [&](const std::shared_ptr<const PodInfo>& pi) {
    node.AddPod(pi);
    return handle_.RunPreFilterExtensionAddPod(state, pod, *pi, node);
  };
  std::vector<std::shared_ptr<const PodInfo>> potential;
  for (const auto& pi : node.pods()) {
    if (PodPriority(*pi->pod) < PodPriority(pod)) potential.push_back(pi);
  }
  for (const auto& pi : potential) {
    if (Status s = remove(pi); !s.ok()) return s;
  }
  if (potential.empty()) return Status::UnschedulableAndUnresolvable(preemption::kNoVictimsFound);
  // With every lower-priority pod gone, the pod must fit.
  if (Status s = handle_.RunFilterPluginsWithNominatedPods(state, pod, node); !s.ok()) return s;

  std::stable_sort(potential.begin(), potential.end(), [](const auto& a, const auto& b) {
    return preemption::MoreImportantPod(*a->pod, *b->pod);
  });
  std::vector<std::shared_ptr<const PodInfo>> violating, non_violating;
  preemption::SplitByPdbViolation(potential, pdbs, &violating, &non_violating);
  // Puts the pod back if the preemptor still fits with it; otherwise it is a victim.
  auto reprieve = [&](const std::shared_ptr<const PodInfo>& pi, bool* fits) -> Status {
    if (Status s = add(pi); !s.ok()) return s;
    *fits = handle_.RunFilterPluginsWithNominatedPods(state, pod, node).ok();
    if (*fits) return Status();
    victims->pods.push_back(pi);
    return remove(pi);
  };
  for (const auto& pi : violating) {
    bool fits = false;
    if (Status s = reprieve(pi, &fits); !s.ok()) return s;
    if (!fits) ++victims->num_pdb_violations;
  }
  for (const auto& pi : non_violating) {
    bool fits = false;
    if (Status s = reprieve(pi, &fits); !s.ok()) return s;
  }
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(victims->pods.begin(), victims->pods.end(), [](const auto& a, const auto& b) {
      return preemption::MoreImportantPod(*a->pod, *b->pod);
    });
  }
  return Status();
}

Status DefaultPreemption::PostFilter(CycleState& state, const api::Pod& pod,
                                     const NodeToStatus& filtered, PostFilterResult* result) {
  handle_.metrics().PreemptionAttempted();
  return evaluator_.Preempt(state, pod, filtered, result);
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const DefaultPreemptionArgs& args, Handle& handle) {
  return std::make_unique<DefaultPreemption>(args, handle);
}

}  // namespace ksched::plugins::default_preemption
