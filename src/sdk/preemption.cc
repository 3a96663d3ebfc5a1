#include "ksched/preemption.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>

#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "ksched/extender.h"
#include "ksched/fit_error.h"
#include "ksched/log.h"

namespace ksched::preemption {
namespace {

using api::PodPriority;

// upstream's GetEarliestPodStartTime: the earliest start among the highest-priority victims.
std::string_view EarliestStartOfMostImportant(const Victims& v) {
  std::string_view earliest = StartTime(*v.pods[0]->pod);
  int32_t max_priority = PodPriority(*v.pods[0]->pod);
  for (const auto& pi : v.pods) {
    const int32_t p = PodPriority(*pi->pod);
    if (p == max_priority) {
      earliest = std::min(earliest, StartTime(*pi->pod));
    } else if (p > max_priority) {
      max_priority = p;
      earliest = StartTime(*pi->pod);
    }
  }
  return earliest;
}

// preempting_'s key of a PodGroup: its UID, or its name where it has none (simulate's).
std::string PodGroupKey(const api::PodGroup& group) {
  return group.metadata.uid.empty()
             ? "podgroup/" + group.metadata.namespace_ + "/" + group.metadata.name
             : group.metadata.uid;
}

}  // namespace

std::string_view StartTime(const api::Pod& pod) {
  return pod.status.start_time.empty() ? std::string_view("9999") : pod.status.start_time;
}

bool MoreImportantPod(const api::Pod& a, const api::Pod& b) {
  if (PodPriority(a) != PodPriority(b)) return PodPriority(a) > PodPriority(b);
  return StartTime(a) < StartTime(b);
}

bool TerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return false;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") {
      return c.status == "True" && c.reason == "PreemptionByScheduler";
    }
  }
  return false;
}

void SplitByPdbViolation(const std::vector<std::shared_ptr<const PodInfo>>& pods,
                         const PodDisruptionBudgets& pdbs,
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
        // (the disruption controller reads an empty one as every pod).
        if (!pdb.selector ||
            (pdb.selector->match_labels.empty() && pdb.selector->match_expressions.empty())) {
          continue;
        }
        if (!api::Matches(*pdb.selector, pod.metadata.labels)) continue;
        if (pdb.disrupted_pods.contains(pod.metadata.name)) continue;  // Counted as gone already.
        // Since 1.37 the first budget the pod would break ends the count: the budgets after it
        // keep their room.
        if (--allowed[i] < 0) {
          violated = true;
          break;
        }
      }
    }
    (violated ? violating : non_violating)->push_back(pi);
  }
}

int32_t VictimPriority(const api::Pod& pod, const PodGroupLister* groups) {
  if (groups == nullptr || !pod.spec.pod_group_name) return PodPriority(pod);
  std::shared_ptr<const api::PodGroup> g =
      groups->GetPodGroup(pod.metadata.namespace_, *pod.spec.pod_group_name);
  return g ? api::PodGroupPriority(*g) : PodPriority(pod);
}

namespace {

// The key of a pod's PodGroup, "namespace/name", when `groups` has it and it is disrupted as a
// whole; "" otherwise.
std::string WholeGroupOf(const api::Pod& pod, const PodGroupLister& groups) {
  if (!pod.spec.pod_group_name) return "";
  std::shared_ptr<const api::PodGroup> g =
      groups.GetPodGroup(pod.metadata.namespace_, *pod.spec.pod_group_name);
  return g && g->disrupt_all ? pod.metadata.namespace_ + "/" + *pod.spec.pod_group_name : "";
}

// The pod group victims among `victims` (upstream's NumPodGroupDisruptions): a PodGroup disrupted
// as a whole counts once, any other pod of a group once.
int GroupDisruptions(const Victims& victims, const PodGroupLister& groups) {
  absl::flat_hash_map<std::string, bool> whole;
  int n = 0;
  for (const auto& pi : victims.pods) {
    if (!pi->pod->spec.pod_group_name) continue;
    const std::string key = WholeGroupOf(*pi->pod, groups);
    if (key.empty() || whole.emplace(key, true).second) ++n;
  }
  return n;
}

}  // namespace

WholeGroups FindWholeGroups(const std::vector<const NodeInfo*>& nodes,
                            const PodGroupLister& groups) {
  WholeGroups out;
  for (const NodeInfo* ni : nodes) {
    for (const auto& pi : ni->pods()) {
      if (std::string key = WholeGroupOf(*pi->pod, groups); !key.empty()) out[key].push_back(pi);
    }
  }
  return out;
}

std::vector<Victim> VictimsOf(const std::vector<const NodeInfo*>& nodes,
                              const PodGroupLister* groups, const WholeGroups* whole) {
  std::vector<Victim> out;
  absl::flat_hash_map<std::string, size_t> at;  // A whole group's victim in `out`.
  for (const NodeInfo* ni : nodes) {
    for (const auto& pi : ni->pods()) {
      const api::Pod& pod = *pi->pod;
      const bool grouped = groups != nullptr && pod.spec.pod_group_name.has_value();
      std::shared_ptr<const api::PodGroup> g =
          grouped ? groups->GetPodGroup(pod.metadata.namespace_, *pod.spec.pod_group_name)
                  : nullptr;
      Victim v{.pods = {pi},
               .priority = g ? api::PodGroupPriority(*g) : PodPriority(pod),
               .rank = grouped ? 2 : 1};
      if (g && g->disrupt_all) {
        const std::string key = pod.metadata.namespace_ + "/" + *pod.spec.pod_group_name;
        // Its pods, given; else gathered as they are met.
        const std::vector<std::shared_ptr<const PodInfo>>* given = nullptr;
        if (whole != nullptr) {
          auto found = whole->find(key);
          if (found != whole->end()) given = &found->second;
        }
        if (whole == nullptr || given != nullptr) {
          auto [it, added] = at.try_emplace(key, out.size());
          if (!added) {
            if (given == nullptr) out[it->second].pods.push_back(pi);
            continue;
          }
          if (given != nullptr) v.pods = *given;
        }
      }
      out.push_back(std::move(v));
    }
  }
  for (Victim& v : out) {
    v.earliest_start = StartTime(*v.pods.front()->pod);
    for (const auto& p : v.pods) v.earliest_start = std::min(v.earliest_start, StartTime(*p->pod));
  }
  return out;
}

bool MoreImportantVictim(const Victim& a, const Victim& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.rank != b.rank) return a.rank > b.rank;
  if (a.pods.size() != b.pods.size()) return a.pods.size() > b.pods.size();
  return a.earliest_start < b.earliest_start;
}

void SplitVictimsByPdb(std::vector<Victim>& victims, const PodDisruptionBudgets& pdbs) {
  std::vector<std::shared_ptr<const PodInfo>> all, violating, non_violating;
  for (const Victim& v : victims) all.insert(all.end(), v.pods.begin(), v.pods.end());
  SplitByPdbViolation(all, pdbs, &violating, &non_violating);
  absl::flat_hash_map<const PodInfo*, bool> is_protected;
  for (const auto& pi : violating) is_protected[pi.get()] = true;
  for (Victim& v : victims) {
    v.violations = 0;
    for (const auto& pi : v.pods) v.violations += is_protected.contains(pi.get()) ? 1 : 0;
  }
}

Evaluator::Evaluator(std::string_view plugin, Handle& handle, Interface& policy)
    : plugin_(plugin), handle_(handle), policy_(policy) {}

Status Evaluator::Preempt(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                          PostFilterResult* result) {
  // The search for victims, timed with how it ended (upstream's evaluate).
  const auto start = std::chrono::steady_clock::now();
  auto evaluated = [&](Status s) {
    handle_.metrics().PreemptionEvaluated(
        "pod", CodeName(s.code()),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return s;
  };
  auto unschedulable = [&](const std::string& msg) {
    return evaluated(Status::Unschedulable("preemption: " + msg));
  };
  std::string reason;
  if (!policy_.PodEligibleToPreemptOthers(pod, filtered, &reason)) return unschedulable(reason);

  const std::vector<const NodeInfo*>& all = handle_.snapshot().nodes();
  if (all.empty()) return evaluated(Status::Error("preemption: no nodes available"));
  // Only nodes that rejected the pod for a reason eviction may remove.
  std::vector<const NodeInfo*> potential;
  for (const NodeInfo* ni : all) {
    if (filtered.Get(ni->name()).code() == Code::kUnschedulable) potential.push_back(ni);
  }
  FitError none{.num_all_nodes = static_cast<int>(all.size())};
  none.diagnosis.node_to_status.absent = Status::UnschedulableAndUnresolvable(kNotHelpful);
  std::vector<Candidate> candidates;
  if (!potential.empty()) {
    candidates = FindCandidates(state, pod, potential, &none.diagnosis.node_to_status);
  }
  if (candidates.empty()) {
    for (const auto& [node, s] : none.diagnosis.node_to_status.statuses) {
      if (s.code() == Code::kError) return evaluated(Status::Error("preemption: " + s.Message()));
    }
    result->nominated_node_name = "";
    return unschedulable(none.Error());
  }
  if (Status s = AskExtenders(pod, &candidates); !s.ok()) {
    return evaluated(Status::Error("preemption: " + s.Message()));
  }
  if (candidates.empty()) return unschedulable("no candidate node for preemption");
  const Candidate* best =
      candidates.size() == 1
          ? &candidates[0]
          : PickOneNodeForPreemption(candidates, policy_.OrderedScoreFuncs(candidates));
  KLOG(2, "the target node for the preemption is determined", {"node", best->node},
       {"pod", pod.metadata.namespace_ + "/" + pod.metadata.name});
  (void)evaluated(Status());
  EvictAsync(std::make_shared<const Preemptor>(
                 Preemptor{.type = "pod",
                           .key = pod.metadata.uid,
                           .uid = pod.metadata.uid,
                           .name = pod.metadata.namespace_ + "/" + pod.metadata.name,
                           .scheduler_name = pod.spec.scheduler_name,
                           .priority = PodPriority(pod),
                           .pods = {std::make_shared<const api::Pod>(pod)}}),
             best->node, best->victims);
  result->nominated_node_name = best->node;
  for (const auto& pi : best->victims.pods) {
    result->victims.push_back(pi->pod->metadata.namespace_ + "/" + pi->pod->metadata.name);
  }
  // Since 1.37 the success says where, and it ends the pod's FailedScheduling message.
  return Status(Code::kSuccess,
                {fmt::format("preemption: found a potential placement for pod on node {}, "
                             "preempting {} victims",
                             best->node, best->victims.pods.size())});
}

Status Evaluator::AskExtenders(const api::Pod& pod, std::vector<Candidate>* candidates) {
  if (handle_.extenders().empty()) return Status();
  std::map<std::string, Victims> victims;
  for (Candidate& c : *candidates) victims.emplace(c.node, std::move(c.victims));
  for (Extender* e : handle_.extenders()) {
    if (!e->SupportsPreemption() || !e->IsInterested(pod)) continue;
    std::map<std::string, Victims> kept = victims;
    if (absl::Status s = e->ProcessPreemption(pod, &kept, handle_.snapshot()); !s.ok()) {
      if (e->IsIgnorable()) {
        KLOG(2, "Skipped extender as it returned error and has ignorable flag set",
             {"extender", e->Name()}, {"err", std::string(s.message())});
        continue;
      }
      return Status::Error(std::string(s.message()));
    }
    for (auto it = kept.begin(); it != kept.end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!e->IsIgnorable()) {
        return Status::Error(
            fmt::format("expected at least one victim pod on node \"{}\"", it->first));
      }
      KLOG(2, "Ignored node for which the extender didn't report victims", {"node", it->first},
           {"extender", e->Name()});
      it = kept.erase(it);
    }
    victims = std::move(kept);
    if (victims.empty()) break;
  }
  // The candidates the extenders kept, in the search's order (upstream rebuilds them from a map,
  // in Go's random order), with the victims they named.
  std::vector<Candidate> kept;
  for (Candidate& c : *candidates) {
    auto it = victims.find(c.node);
    if (it == victims.end()) continue;
    c.victims = std::move(it->second);
    kept.push_back(std::move(c));
  }
  *candidates = std::move(kept);
  return Status();
}

std::vector<Candidate> Evaluator::FindCandidates(const CycleState& state, const api::Pod& pod,
                                                 const std::vector<const NodeInfo*>& potential,
                                                 NodeToStatus* statuses) {
  const PodDisruptionBudgets pdbs = handle_.ListPodDisruptionBudgets();
  const auto n = static_cast<int32_t>(potential.size());
  const auto [offset, wanted] = policy_.GetOffsetAndNumCandidates(n);
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
    Status s = policy_.SelectVictimsOnNode(*state_copy, pod, *node, pdbs, &c.victims);
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

const Candidate* PickOneNodeForPreemption(const std::vector<Candidate>& candidates,
                                          const std::vector<CandidateScore>& scores) {
  if (candidates.empty()) return nullptr;
  static const std::vector<CandidateScore> kUpstreams = {
      [](const Candidate& c) { return -c.victims.num_pdb_violations; },
      [](const Candidate& c) {
        return -static_cast<int64_t>(PodPriority(*c.victims.pods[0]->pod));
      },
      [](const Candidate& c) {
        int64_t sum = 0;
        for (const auto& pi : c.victims.pods) {
          sum += static_cast<int64_t>(PodPriority(*pi->pod)) +
                 static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1;
        }
        return -sum;
      },
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.pods.size()); },
  };
  // Each score keeps the candidates it scores highest; the first that leaves one wins.
  std::vector<const Candidate*> left;
  left.reserve(candidates.size());
  for (const Candidate& c : candidates) left.push_back(&c);
  for (const CandidateScore& score : scores.empty() ? kUpstreams : scores) {
    int64_t best = std::numeric_limits<int64_t>::min();
    std::vector<const Candidate*> kept;
    for (const Candidate* c : left) {
      const int64_t s = score(*c);
      if (s > best) {
        best = s;
        kept.clear();
      }
      if (s == best) kept.push_back(c);
    }
    if (kept.size() == 1) return kept[0];
    left = std::move(kept);
  }
  if (!scores.empty()) return left[0];
  // The latest start of the most important victims: evict what has run the shortest.
  const Candidate* latest = left[0];
  for (const Candidate* c : left) {
    if (EarliestStartOfMostImportant(c->victims) > EarliestStartOfMostImportant(latest->victims)) {
      latest = c;
    }
  }
  return latest;
}

void Evaluator::PreemptForPodGroup(const api::PodGroup& group,
                                   std::vector<std::shared_ptr<const api::Pod>> pods,
                                   const Victims& victims) {
  if (pods.empty()) return;
  const std::string scheduler_name = pods.front()->spec.scheduler_name;
  // Upstream's candidate for a group is the whole cluster, named so in the victims' events.
  EvictAsync(std::make_shared<const Preemptor>(
                 Preemptor{.type = "podgroup",
                           .key = PodGroupKey(group),
                           .uid = group.metadata.uid,
                           .name = group.metadata.namespace_ + "/" + group.metadata.name,
                           .scheduler_name = scheduler_name,
                           .priority = api::PodGroupPriority(group),
                           .pods = std::move(pods)}),
             "cluster", victims);
}

std::pair<std::string, const char*> Evaluator::KeyOf(const api::Pod& pod) const {
  if (pod.spec.pod_group_name) {
    if (std::shared_ptr<const api::PodGroup> group =
            handle_.pod_groups().GetPodGroup(pod.metadata.namespace_, *pod.spec.pod_group_name)) {
      return {PodGroupKey(*group), kWaitingForPodGroupPreemption};
    }
  }
  return {pod.metadata.uid, kWaitingForPreemption};
}

absl::Status Evaluator::Evict(const Preemptor& p, const std::string& node, const api::Pod& victim) {
  std::string note = fmt::format("Preempted by {} {} on node {}", p.type, p.uid, node);
  if (std::shared_ptr<WaitingPod> wp = handle_.GetWaitingPod(victim.metadata.uid)) {
    wp->Reject(plugin_, "preempted");
    handle_.writer().RecordEvent(victim, "Normal", "Preempted", "Preempting",
                                 note + " (in kube-scheduler memory).");
    return absl::OkStatus();
  }
  api::PodCondition target{
      .type = "DisruptionTarget",
      .status = "True",
      .reason = "PreemptionByScheduler",
      .message = fmt::format("{}: preempting to accommodate a higher priority {}", p.scheduler_name,
                             p.type)};
  // In place before the deletion, so that the terminating victim reads as preemption's.
  absl::Status st = handle_.writer().UpdatePodStatusAndWait(victim, target);
  if (st.ok()) st = handle_.writer().DeletePod(victim);
  if (absl::IsNotFound(st)) return absl::OkStatus();  // Gone already.
  if (!st.ok()) return st;
  handle_.writer().RecordEvent(victim, "Normal", "Preempted", "Preempting", std::move(note));
  return absl::OkStatus();
}

void Evaluator::EvictAsync(std::shared_ptr<const Preemptor> p, const std::string& node,
                           const Victims& all) {
  if (p->type == "pod") handle_.metrics().PreemptionVictims(static_cast<int>(all.pods.size()));
  handle_.metrics().PreemptionVictimsChosen(p->type, all.num_pdb_violations,
                                            GroupDisruptions(all, handle_.pod_groups()));
  std::vector<std::shared_ptr<const api::Pod>> victims;
  for (const auto& pi : all.pods) {
    if (!pi->pod->metadata.deletion_timestamp) victims.push_back(pi->pod);  // Else on its way.
  }
  if (victims.empty()) return;
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
    preempting_[p->key] = {};
  }
  handle_.RunAsync(
      [this, p = std::move(p), node, num_victims = all.pods.size(), victims = std::move(victims)] {
        KLOG(2, "Start the preemption asynchronously", {"preemptor", p->name}, {"node", node},
             {"numVictims", num_victims}, {"numVictimsToDelete", victims.size()});
        const auto start = std::chrono::steady_clock::now();
        // Lower-priority pods nominated to the node may no longer fit there: they lose their
        // nomination, and so look for another node sooner.
        static const std::string kNoNode;
        for (const auto& pi : handle_.NominatedPodsForNode(node)) {
          const api::Pod& nominated = *pi->pod;
          if (PodPriority(nominated) >= p->priority) continue;
          api::PodCondition scheduled{
              .type = "PodScheduled", .status = "False", .reason = "Unschedulable"};
          for (const api::PodCondition& cond : nominated.status.conditions) {
            if (cond.type == "PodScheduled") scheduled = cond;
          }
          (void)handle_.writer().UpdatePodStatus(nominated, scheduled, &kNoNode);  // Not critical.
        }
        absl::Status st = absl::OkStatus();
        for (size_t i = 0; i + 1 < victims.size() && st.ok(); ++i)
          st = Evict(*p, node, *victims[i]);
        if (st.ok()) {
          {
            absl::MutexLock lock(&mu_);
            preempting_[p->key].last_victim = victims.back()->metadata.uid;
          }
          st = Evict(*p, node, *victims.back());
        }
        handle_.metrics().PreemptionExecuted(
            p->type, st.ok() ? "success" : "error",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        bool held = false;
        bool gone = false;
        {
          absl::MutexLock lock(&mu_);
          Preempting& entry = preempting_[p->key];
          held = entry.held;
          gone = VictimGone(victims.back()->metadata.uid);
          // Held back until the watch shows the last victim going (PreEnqueue), unless it failed.
          if (st.ok() && !gone) {
            entry.answered = true;
          } else {
            preempting_.erase(p->key);
          }
        }
        if (!st.ok()) {
          KLOG_ERROR("Error occurred during async preemption", {"preemptor", p->name},
                     {"node", node}, {"err", std::string(st.message())});
          // So that the pods are not left waiting for deletions that never come.
          handle_.Activate(p->pods);
        } else if (held && gone) {
          // PreEnqueue held the pods back from an event meanwhile, and the deletions they wait for
          // may all have been watched already (victims the API had deleted before this preemption
          // chose them): no event is left to move them.
          handle_.Activate(p->pods);
        }
      });
}

Status Evaluator::PreEnqueue(const api::Pod& pod) {
  const auto [key, waiting] = KeyOf(pod);  // Before mu_: the lister has a lock of its own.
  absl::MutexLock lock(&mu_);
  auto it = preempting_.find(key);
  if (it == preempting_.end()) return Status();
  // The last victim's eviction runs or was answered: the preemption is done once that victim is
  // terminating or gone, a deletion this event may be the watch's news of.
  if (!it->second.last_victim.empty() && VictimGone(it->second.last_victim)) {
    if (it->second.answered) preempting_.erase(it);
    return Status();
  }
  it->second.held = true;
  return Status::UnschedulableAndUnresolvable(waiting);
}

std::vector<ClusterEventWithHint> Evaluator::EventsToRegister() const {
  auto last_victim_gone = [this](const api::Pod& pod, const ClusterEventData& event) {
    if (event.old_pod == nullptr) return QueueingHint::kQueueSkip;
    const std::string key = KeyOf(pod).first;
    absl::MutexLock lock(&mu_);
    auto it = preempting_.find(key);
    return it != preempting_.end() && it->second.held &&
                   it->second.last_victim == event.old_pod->metadata.uid
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kPod, ActionType::kDelete}, last_victim_gone}};
}

bool Evaluator::VictimGone(const std::string& uid) const {
  std::shared_ptr<const api::Pod> victim = handle_.GetAssignedPod(uid);
  return victim == nullptr || victim->metadata.deletion_timestamp.has_value();
}

}  // namespace ksched::preemption
