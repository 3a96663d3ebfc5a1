// Preemption for a pod group (upstream's PodGroupEvaluator, framework/preemption/
// podgrouppreemption.go, which DefaultPreemption runs as its PodGroupPostFilter): when a group's
// pods cannot be placed, every lower-priority pod of the cluster is taken out of the snapshot
// (a PodGroup with disruptionMode all as one victim), the group is tried again, and if it fits,
// the victims are put back one by one, the most important first, each kept where the group's
// placed pods still fit; the rest are evicted through DefaultPreemption, which holds the group's
// pods back until they are gone, and the placed pods are nominated to their nodes.
//
// The what-if changes go to the scheduler's snapshot only, never to the cache (binding threads
// read it), and are undone before the evictions start.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "ksched/preemption.h"
#include "src/scheduler/scheduler.h"
#include "src/scheduler/snapshot_overlay.h"

namespace ksched::scheduler {

using preemption::Victim;

Status Scheduler::PreemptForPodGroup(framework::Framework& fw, const api::PodGroup& group,
                                     const std::vector<QueuedPodInfo>& pods,
                                     std::map<std::string, std::string>* nominated) {
  const int32_t priority = api::PodGroupPriority(group);
  // The group's policy with PodGroupPreemptionPolicy (PreemptLowerPriority when it has none);
  // without, Never if any of its pods says so.
  const bool never = options_.pod_group_preemption_policy
                         ? group.preemption_policy.value_or("") == "Never"
                         : std::any_of(pods.begin(), pods.end(), [](const QueuedPodInfo& info) {
                             return info.pod().spec.preemption_policy.value_or("") == "Never";
                           });
  if (never) return Status::Unschedulable("not eligible due to preemptionPolicy=Never.");
  // An earlier preemption's victims still terminating where the group's pods are nominated: they
  // keep their nominations, and nothing more is evicted.
  std::set<std::string> nodes;
  for (const QueuedPodInfo& info : pods) {
    if (std::string node = fw.NominatedNodeOf(info.pod()); !node.empty()) nodes.insert(node);
  }
  for (const std::string& node : nodes) {
    const NodeInfo* ni = snapshot_.Get(node);
    if (ni == nullptr) continue;
    for (const auto& pi : ni->pods()) {
      if (preemption::VictimPriority(*pi->pod, &fw.pod_groups()) < priority &&
          preemption::TerminatingByPreemption(*pi->pod)) {
        for (const QueuedPodInfo& info : pods) {
          (*nominated)[info.pod().metadata.uid] = fw.NominatedNodeOf(info.pod());
        }
        return Status(Code::kSuccess, {"ongoing preemption on nominated nodes"});
      }
    }
  }

  // Every pod of lower priority, in the order of the nodes and of their pods; the pods of a
  // PodGroup disrupted as a whole, wherever they run, as one, where its first pod is.
  std::vector<Victim> potential =
      preemption::VictimsOf(snapshot_.nodes(), &fw.pod_groups(), /*whole=*/nullptr);
  std::erase_if(potential, [&](const Victim& v) { return v.priority >= priority; });
  if (potential.empty()) {
    return Status::UnschedulableAndUnresolvable(
        "No preemption victims found for incoming preemptor");
  }
  std::vector<std::shared_ptr<const PodInfo>> gone;
  for (const Victim& v : potential) gone.insert(gone.end(), v.pods.begin(), v.pods.end());

  // The group, tried again with them all gone.
  SnapshotOverlay overlay(snapshot_);
  overlay.RemovePods(gone);
  GroupRun run = RunGroupPlacements(fw, group, pods, &overlay);
  if (!run.status.ok()) return run.status;
  std::vector<size_t> placed;
  for (size_t i = 0; i < run.tried.size(); ++i) {
    if (run.tried[i].status.ok() && !run.tried[i].node.empty()) placed.push_back(i);
  }

  // Each victim back, those a PodDisruptionBudget protects first, the most important first: kept
  // if every placed pod still fits, in order, with the ones before it.
  std::stable_sort(potential.begin(), potential.end(), preemption::MoreImportantVictim);
  preemption::SplitVictimsByPdb(potential, fw.ListPodDisruptionBudgets());
  auto each_placed = [&](const PodInfo& victim, const NodeInfo& ni, bool add) {
    for (size_t i : placed) {
      GroupTry& t = run.tried[i];
      Status s = add ? fw.RunPreFilterExtensionAddPod(*t.state, pods[i].pod(), victim, ni)
                     : fw.RunPreFilterExtensionRemovePod(*t.state, pods[i].pod(), victim, ni);
      if (!s.ok()) return s;
    }
    return Status();
  };
  auto put_back = [&](const Victim& v, bool add) {
    for (const auto& pi : v.pods) {
      const std::string& node = pi->pod->spec.node_name;
      const NodeInfo* ni =
          add ? overlay.AddPod(node, pi) : overlay.RemovePod(node, pi->pod->metadata.uid);
      if (ni == nullptr) continue;
      if (Status s = each_placed(*pi, *ni, add); !s.ok()) return s;
    }
    return Status();
  };
  // Whether the group's placed pods still fit with `v` back.
  auto reprieve = [&](const Victim& v, bool* fits) -> Status {
    if (Status s = put_back(v, true); !s.ok()) return s;
    *fits = true;
    Status out;
    std::vector<size_t> added;
    for (size_t i : placed) {
      GroupTry& t = run.tried[i];
      const NodeInfo* ni = snapshot_.Get(t.node);
      if (ni == nullptr ||
          !fw.RunFilterPluginsWithNominatedPods(*t.state, pods[i].pod(), *ni).ok()) {
        *fits = false;
        out = put_back(v, false);
        break;
      }
      overlay.AddPod(t.node, t.placed);
      (void)fw.RunReservePluginsReserve(*t.state, pods[i].pod(), t.node);  // As upstream.
      added.push_back(i);
    }
    for (auto it = added.rbegin(); it != added.rend(); ++it) {
      GroupTry& t = run.tried[*it];
      fw.RunReservePluginsUnreserve(*t.state, pods[*it].pod(), t.node);
      overlay.RemovePod(t.node, pods[*it].pod().metadata.uid);
    }
    return out;
  };
  std::vector<const Victim*> evicted;
  int64_t violations = 0;
  for (bool protected_first : {true, false}) {
    for (const Victim& v : potential) {
      if ((v.violations > 0) != protected_first) continue;
      bool fits = false;
      if (Status s = reprieve(v, &fits); !s.ok()) return Status::Error(s.Message());
      if (fits) continue;
      evicted.push_back(&v);
      violations += v.violations;
    }
  }
  std::stable_sort(evicted.begin(), evicted.end(), [](const Victim* a, const Victim* b) {
    return preemption::MoreImportantVictim(*a, *b);
  });
  preemption::Victims victims{.num_pdb_violations = violations};
  for (const Victim* v : evicted) {
    victims.pods.insert(victims.pods.end(), v->pods.begin(), v->pods.end());
  }
  for (size_t i : placed) (*nominated)[pods[i].pod().metadata.uid] = run.tried[i].node;

  // The snapshot as it was, before the evictions (whose deletions the scheduler may see at once).
  overlay.Restore();
  feasible_.clear();
  score_table_.nodes.clear();
  // The evictions count its PodDisruptionBudget violations and PodGroup victims.
  metrics_->pod_groups->workload_preemption_victims.With({})->Observe(
      static_cast<double>(victims.pods.size()));
  if (preemption::PodGroupPreemptionPlugin* plugin = fw.pod_group_preemption()) {
    std::vector<std::shared_ptr<const api::Pod>> members;
    for (const QueuedPodInfo& info : pods) members.push_back(info.pod_info->pod);
    plugin->PreemptForPodGroup(group, std::move(members), victims);
  }
  return Status(
      Code::kSuccess,
      {fmt::format("found a placement for podgroup, preempting {} victims", victims.pods.size())});
}

}  // namespace ksched::scheduler
