#include "src/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "src/base/log.h"
#include "src/framework/fit_error.h"

namespace ksched::plugins::default_preemption {
namespace {

int32_t Priority(const api::Pod& pod) { return pod.spec.priority.value_or(0); }

// upstream's GetPodStartTime: a pod that has not started counts as started now, after all others.
std::string_view StartTime(const api::Pod& pod) {
  return pod.status.start_time.empty() ? std::string_view("9999") : pod.status.start_time;
}

// Whether the pod is already on its way out because a scheduler preempted it.
bool TerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return false;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") {
      return c.status == "True" && c.reason == "PreemptionByScheduler";
    }
  }
  return false;
}

using Pdbs = std::vector<std::shared_ptr<const api::PodDisruptionBudget>>;

// Splits the pods (most important first) into those whose eviction would exceed a PDB's allowed
// disruptions, counting the pods before them, and the others (filterPodsWithPDBViolation).
void SplitByPdbViolation(const std::vector<std::shared_ptr<const PodInfo>>& pods, const Pdbs& pdbs,
                         std::vector<std::shared_ptr<const PodInfo>>* violating,
                         std::vector<std::shared_ptr<const PodInfo>>* non_violating) {
  std::vector<int32_t> allowed;
  allowed.reserve(pdbs.size());
  for (const auto& pdb : pdbs) allowed.push_back(pdb->disruptions_allowed);
  for (const auto& pi : pods) {
    const api::Pod& pod = *pi->pod;
    bool violated = false;
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const api::PodDisruptionBudget& pdb = *pdbs[i];
        if (pdb.metadata.namespace_ != pod.metadata.namespace_) continue;
        // As upstream's preemption: a budget with an absent or empty selector protects no pod
        // (the disruption controller reads an empty one as every pod; see sim/disruption.h).
        if (!pdb.selector ||
            (pdb.selector->match_labels.empty() && pdb.selector->match_expressions.empty())) {
          continue;
        }
        if (!api::Matches(*pdb.selector, pod.metadata.labels)) continue;
        if (pdb.disrupted_pods.contains(pod.metadata.name)) continue;  // Counted as gone already.
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating)->push_back(pi);
  }
}

// upstream's GetEarliestPodStartTime: the earliest start among the highest-priority victims.
std::string_view EarliestStartOfMostImportant(const Victims& v) {
  std::string_view earliest = StartTime(*v.pods[0]->pod);
  int32_t max_priority = Priority(*v.pods[0]->pod);
  for (const auto& pi : v.pods) {
    const int32_t p = Priority(*pi->pod);
    if (p == max_priority) {
      earliest = std::min(earliest, StartTime(*pi->pod));
    } else if (p > max_priority) {
      max_priority = p;
      earliest = StartTime(*pi->pod);
    }
  }
  return earliest;
}

}  // namespace

bool MoreImportantPod(const api::Pod& a, const api::Pod& b) {
  if (Priority(a) != Priority(b)) return Priority(a) > Priority(b);
  return StartTime(a) < StartTime(b);
}

int32_t DefaultPreemption::NumCandidates(int32_t num_nodes) const {
  int32_t n = num_nodes * args_.min_candidate_nodes_percentage / 100;
  n = std::max(n, args_.min_candidate_nodes_absolute);
  return std::min(n, num_nodes);
}

bool DefaultPreemption::EligibleToPreemptOthers(const api::Pod& pod, const NodeToStatus& filtered,
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
      if (Priority(*pi->pod) < Priority(pod) && TerminatingByPreemption(*pi->pod)) {
        *reason = "not eligible due to a terminating pod on the nominated node.";
        return false;
      }
    }
  }
  return true;
}

Status DefaultPreemption::SelectVictimsOnNode(CycleState& state, const api::Pod& pod,
                                              NodeInfo& node, const Pdbs& pdbs,
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
    if (Priority(*pi->pod) < Priority(pod)) potential.push_back(pi);
  }
  for (const auto& pi : potential) {
    if (Status s = remove(pi); !s.ok()) return s;
  }
  if (potential.empty()) return Status::UnschedulableAndUnresolvable(kNoVictimsFound);
  // With every lower-priority pod gone, the pod must fit.
  if (Status s = handle_.RunFilterPluginsWithNominatedPods(state, pod, node); !s.ok()) return s;

  std::stable_sort(potential.begin(), potential.end(),
                   [](const auto& a, const auto& b) { return MoreImportantPod(*a->pod, *b->pod); });
  std::vector<std::shared_ptr<const PodInfo>> violating, non_violating;
  SplitByPdbViolation(potential, pdbs, &violating, &non_violating);
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
      return MoreImportantPod(*a->pod, *b->pod);
    });
  }
  return Status();
}

std::vector<Candidate> DefaultPreemption::FindCandidates(
    const CycleState& state, const api::Pod& pod, const std::vector<const NodeInfo*>& potential,
    NodeToStatus* statuses) {
  const Pdbs pdbs = handle_.ListPodDisruptionBudgets();
  const auto n = static_cast<int32_t>(potential.size());
  const int32_t offset =
      static_cast<int32_t>(offset_rng_() % static_cast<uint32_t>(std::max(n, int32_t{1})));
  const int32_t wanted = NumCandidates(n);
  std::vector<Candidate> non_violating, violating;
  // One node after the other, from a random offset, until enough candidates (one of them free of
  // PDB violations) were found; upstream checks them in parallel, with the same result up to the
  // order of equal candidates.
  for (int32_t i = 0; i < n; ++i) {
    if (!non_violating.empty() &&
        static_cast<int32_t>(non_violating.size() + violating.size()) >= wanted) {
      break;
    }
    const NodeInfo& original = *potential[(offset + i) % n];
    std::unique_ptr<NodeInfo> node = original.Clone();
    std::unique_ptr<CycleState> state_copy = state.Clone();
    Candidate c{.node = original.name()};
    Status s = SelectVictimsOnNode(*state_copy, pod, *node, pdbs, &c.victims);
    if (s.ok() && !c.victims.pods.empty()) {
      (c.victims.num_pdb_violations == 0 ? non_violating : violating).push_back(std::move(c));
      continue;
    }
    if (s.ok()) {
      s = Status::Error(fmt::format("expected at least one victim pod on node \"{}\"", c.node));
    }
    statuses->statuses[original.name()] = std::move(s);
  }
  for (Candidate& c : violating) non_violating.push_back(std::move(c));
  return non_violating;
}

const Candidate* PickOneNodeForPreemption(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return nullptr;
  // Each criterion keeps the candidates with the highest score; the first that leaves one wins.
  const std::function<int64_t(const Victims&)> criteria[] = {
      [](const Victims& v) { return -v.num_pdb_violations; },
      [](const Victims& v) { return -static_cast<int64_t>(Priority(*v.pods[0]->pod)); },
      [](const Victims& v) {
        int64_t sum = 0;
        for (const auto& pi : v.pods) {
          sum += static_cast<int64_t>(Priority(*pi->pod)) +
                 static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1;
        }
        return -sum;
      },
      [](const Victims& v) { return -static_cast<int64_t>(v.pods.size()); },
  };
  std::vector<const Candidate*> left;
  left.reserve(candidates.size());
  for (const Candidate& c : candidates) left.push_back(&c);
  for (const auto& score : criteria) {
    int64_t best = std::numeric_limits<int64_t>::min();
    std::vector<const Candidate*> kept;
    for (const Candidate* c : left) {
      const int64_t s = score(c->victims);
      if (s > best) {
        best = s;
        kept.clear();
      }
      if (s == best) kept.push_back(c);
    }
    if (kept.size() == 1) return kept[0];
    left = std::move(kept);
  }
  // The latest start of the most important victims: evict what has run the shortest.
  const Candidate* latest = left[0];
  for (const Candidate* c : left) {
    if (EarliestStartOfMostImportant(c->victims) > EarliestStartOfMostImportant(latest->victims)) {
      latest = c;
    }
  }
  return latest;
}

absl::Status DefaultPreemption::Evict(const api::Pod& pod, const std::string& node,
                                      const api::Pod& victim) {
  std::string note = fmt::format("Preempted by pod {} on node {}", pod.metadata.uid, node);
  if (std::shared_ptr<WaitingPod> wp = handle_.GetWaitingPod(victim.metadata.uid)) {
    wp->Reject(Name(), "preempted");
    handle_.writer().RecordEvent(victim, "Normal", "Preempted", "Preempting",
                                 note + " (in kube-scheduler memory).");
    return absl::OkStatus();
  }
  api::PodCondition target{
      .type = "DisruptionTarget",
      .status = "True",
      .reason = "PreemptionByScheduler",
      .message = fmt::format("{}: preempting to accommodate a higher priority pod",
                             pod.spec.scheduler_name)};
  // In place before the deletion, so that the terminating victim reads as preemption's.
  absl::Status st = handle_.writer().UpdatePodStatusAndWait(victim, target);
  if (st.ok()) st = handle_.writer().DeletePod(victim);
  if (absl::IsNotFound(st)) return absl::OkStatus();  // Gone already.
  if (!st.ok()) return st;
  handle_.writer().RecordEvent(victim, "Normal", "Preempted", "Preempting", std::move(note));
  return absl::OkStatus();
}

void DefaultPreemption::EvictAsync(const api::Pod& pod, const Candidate& c) {
  std::vector<std::shared_ptr<const api::Pod>> victims;
  for (const auto& pi : c.victims.pods) {
    if (!pi->pod->metadata.deletion_timestamp) victims.push_back(pi->pod);  // Else on its way.
  }
  if (victims.empty()) return;
  if (metrics_ != nullptr) {
    metrics_->preemption_victims.With({})->Observe(static_cast<double>(c.victims.pods.size()));
  }
  {
    absl::MutexLock lock(&mu_);
    // A pod whose last victim went while it was not looked at (deleted itself, or scheduled
    // through an activation) leaves no entry behind.
    for (auto it = preempting_.begin(); it != preempting_.end();) {
      auto entry = it++;
      if (entry->second.answered && VictimGone(entry->second.last_victim)) {
        preempting_.erase(entry);
      }
    }
    preempting_[pod.metadata.uid] = {};
  }
  handle_.RunAsync([this, pod = std::make_shared<const api::Pod>(pod), node = c.node,
                    num_victims = c.victims.pods.size(), victims = std::move(victims)] {
    KLOG(2, "Start the preemption asynchronously",
         {"preemptor", pod->metadata.namespace_ + "/" + pod->metadata.name}, {"node", node},
         {"numVictims", num_victims}, {"numVictimsToDelete", victims.size()});
    // Lower-priority pods nominated to the node may no longer fit there: they lose their
    // nomination, and so look for another node sooner.
    static const std::string kNoNode;
    for (const auto& pi : handle_.NominatedPodsForNode(node)) {
      const api::Pod& nominated = *pi->pod;
      if (Priority(nominated) >= Priority(*pod)) continue;
      api::PodCondition scheduled{
          .type = "PodScheduled", .status = "False", .reason = "Unschedulable"};
      for (const api::PodCondition& cond : nominated.status.conditions) {
        if (cond.type == "PodScheduled") scheduled = cond;
      }
      (void)handle_.writer().UpdatePodStatus(nominated, scheduled, &kNoNode);  // Not critical.
    }
    absl::Status st = absl::OkStatus();
    for (size_t i = 0; i + 1 < victims.size() && st.ok(); ++i) st = Evict(*pod, node, *victims[i]);
    if (st.ok()) {
      {
        absl::MutexLock lock(&mu_);
        preempting_[pod->metadata.uid].last_victim = victims.back()->metadata.uid;
      }
      st = Evict(*pod, node, *victims.back());
    }
    bool held = false;
    bool gone = false;
    {
      absl::MutexLock lock(&mu_);
      Preempting& p = preempting_[pod->metadata.uid];
      held = p.held;
      gone = VictimGone(victims.back()->metadata.uid);
      // Held back until the watch shows the last victim going (PreEnqueue), unless it failed.
      if (st.ok() && !gone) {
        p.answered = true;
      } else {
        preempting_.erase(pod->metadata.uid);
      }
    }
    if (!st.ok()) {
      KLOG_ERROR("Error occurred during async preemption",
                 {"pod", pod->metadata.namespace_ + "/" + pod->metadata.name}, {"node", node},
                 {"err", std::string(st.message())});
      // So that the pod is not left waiting for deletions that never come.
      handle_.Activate({pod});
    } else if (held && gone) {
      // PreEnqueue held the pod back from an event meanwhile, and the deletions it waits for may
      // all have been watched already (victims the API had deleted before this preemption chose
      // them): no event is left to move it.
      handle_.Activate({pod});
    }
  });
}

Status DefaultPreemption::PreEnqueue(const api::Pod& pod) {
  absl::MutexLock lock(&mu_);
  auto it = preempting_.find(pod.metadata.uid);
  if (it == preempting_.end()) return Status();
  // The last victim's eviction runs or was answered: the preemption is done once that victim is
  // terminating or gone, a deletion this event may be the watch's news of.
  if (!it->second.last_victim.empty() && VictimGone(it->second.last_victim)) {
    if (it->second.answered) preempting_.erase(it);
    return Status();
  }
  it->second.held = true;
  return Status::UnschedulableAndUnresolvable(kWaitingForPreemption);
}

bool DefaultPreemption::VictimGone(const std::string& uid) const {
  std::shared_ptr<const api::Pod> victim = handle_.GetAssignedPod(uid);
  return victim == nullptr || victim->metadata.deletion_timestamp.has_value();
}

std::vector<ClusterEventWithHint> DefaultPreemption::EventsToRegister() const {
  auto skip = [](const api::Pod&, const ClusterEventData&) { return QueueingHint::kQueueSkip; };
  return {{{EventResource::kPod, ActionType::kDelete}, skip}};
}

Status DefaultPreemption::PostFilter(CycleState& state, const api::Pod& pod,
                                     const NodeToStatus& filtered, PostFilterResult* result) {
  if (metrics_ != nullptr) metrics_->preemption_attempts.With({})->Inc();
  auto unschedulable = [](const std::string& msg) {
    return Status::Unschedulable("preemption: " + msg);
  };
  std::string reason;
  if (!EligibleToPreemptOthers(pod, filtered, &reason)) return unschedulable(reason);

  const std::vector<const NodeInfo*>& all = handle_.snapshot().nodes();
  if (all.empty()) return Status::Error("preemption: no nodes available");
  // Only nodes that rejected the pod for a reason eviction may remove.
  std::vector<const NodeInfo*> potential;
  for (const NodeInfo* ni : all) {
    if (filtered.Get(ni->name()).code() == Code::kUnschedulable) potential.push_back(ni);
  }
  framework::FitError none{.num_all_nodes = static_cast<int>(all.size())};
  none.diagnosis.node_to_status.absent = Status::UnschedulableAndUnresolvable(kNotHelpful);
  std::vector<Candidate> candidates;
  if (!potential.empty()) {
    candidates = FindCandidates(state, pod, potential, &none.diagnosis.node_to_status);
  }
  if (candidates.empty()) {
    for (const auto& [node, s] : none.diagnosis.node_to_status.statuses) {
      if (s.code() == Code::kError) return Status::Error("preemption: " + s.Message());
    }
    result->nominated_node_name = "";
    return unschedulable(none.Error());
  }
  const Candidate* best = PickOneNodeForPreemption(candidates);
  KLOG(2, "the target node for the preemption is determined", {"node", best->node},
       {"pod", pod.metadata.namespace_ + "/" + pod.metadata.name});
  EvictAsync(pod, *best);
  result->nominated_node_name = best->node;
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const DefaultPreemptionArgs& args, Handle& handle) {
  return std::make_unique<DefaultPreemption>(args, handle);
}

}  // namespace ksched::plugins::default_preemption
