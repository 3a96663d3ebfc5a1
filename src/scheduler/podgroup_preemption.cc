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

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ksched/preemption.h"
#include "src/scheduler/scheduler.h"
#include "src/scheduler/snapshot_overlay.h"

namespace ksched::scheduler {

namespace {

// One victim: a pod, or every scheduled pod of a PodGroup that is disrupted as a whole.
struct Victim {
  std::vector<std::shared_ptr<const PodInfo>> pods;
  int32_t priority = 0;
  int rank = 1;  // 2 for a PodGroup's pod or pods, 1 for a pod of none (upstream's key type).
  std::string_view earliest_start;
  int violations = 0;  // Its pods whose eviction a PodDisruptionBudget forbids.
};

// Upstream's MoreImportantVictim: higher priority, then a PodGroup's before a pod's, then more
// pods, then the one that started earlier.
bool MoreImportant(const Victim& a, const Victim& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.rank != b.rank) return a.rank > b.rank;
  if (a.pods.size() != b.pods.size()) return a.pods.size() > b.pods.size();
  return a.earliest_start < b.earliest_start;
}
}  // namespace

Status Scheduler::PreemptForPodGroup(framework::Framework& fw, const api::PodGroup& group,
                                     const std::vector<QueuedPodInfo>& pods,
                                     std::map<std::string, std::string>* nominated) {
  const int32_t priority = api::PodGroupPriority(group);
  for (const QueuedPodInfo& info : pods) {
    if (info.pod().spec.preemption_policy.value_or("") == "Never") {
      return Status::Unschedulable("not eligible due to preemptionPolicy=Never.");
    }
  }
  // A pod's priority as a victim: its PodGroup's, when it names one (upstream's GetPodPriority).
  auto group_of = [&](const api::Pod& pod) -> std::shared_ptr<const api::PodGroup> {
    if (!pod.spec.pod_group_name) return nullptr;
    return listers_.pod_groups.Get(pod.metadata.namespace_, *pod.spec.pod_group_name);
  };
  auto victim_priority = [&](const api::Pod& pod) {
    std::shared_ptr<const api::PodGroup> g = group_of(pod);
    return g ? api::PodGroupPriority(*g) : api::PodPriority(pod);
  };

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
      if (victim_priority(*pi->pod) < priority && preemption::TerminatingByPreemption(*pi->pod)) {
        for (const QueuedPodInfo& info : pods) {
          (*nominated)[info.pod().metadata.uid] = fw.NominatedNodeOf(info.pod());
        }
        return Status(Code::kSuccess, {"ongoing preemption on nominated nodes"});
      }
    }
  }

  // Every pod of lower priority, in the order of the nodes and of their pods; the pods of a
  // PodGroup disrupted as a whole, wherever they run, as one, where its first pod is.
  std::vector<Victim> potential;
  std::map<std::string, size_t> whole;  // Such a PodGroup's victim in `potential`.
  for (const NodeInfo* ni : snapshot_.nodes()) {
    for (const auto& pi : ni->pods()) {
      const api::Pod& pod = *pi->pod;
      std::shared_ptr<const api::PodGroup> g = group_of(pod);
      if (g && g->disrupt_all) {
        auto [at, added] =
            whole.try_emplace(g->metadata.namespace_ + "/" + g->metadata.name, potential.size());
        if (added) potential.push_back({.priority = api::PodGroupPriority(*g), .rank = 2});
        potential[at->second].pods.push_back(pi);
      } else {
        potential.push_back({.pods = {pi},
                             .priority = g ? api::PodGroupPriority(*g) : api::PodPriority(pod),
                             .rank = pod.spec.pod_group_name ? 2 : 1});
      }
    }
  }
  std::erase_if(potential, [&](const Victim& v) { return v.priority >= priority; });
  if (potential.empty()) {
    return Status::UnschedulableAndUnresolvable(
        "No preemption victims found for incoming preemptor");
  }
  std::vector<std::shared_ptr<const PodInfo>> gone;
  for (Victim& v : potential) {
    v.earliest_start = preemption::StartTime(*v.pods.front()->pod);
    for (const auto& pi : v.pods) {
      v.earliest_start = std::min(v.earliest_start, preemption::StartTime(*pi->pod));
    }
    gone.insert(gone.end(), v.pods.begin(), v.pods.end());
  }

  // The group, tried again with them all gone.
  SnapshotOverlay overlay(snapshot_);
  overlay.RemovePods(gone);
  GroupRun run = RunGroupAlgorithm(fw, group, pods, &overlay);
  if (!run.status.ok()) return run.status;
  std::vector<size_t> placed;
  for (size_t i = 0; i < run.tried.size(); ++i) {
    if (run.tried[i].status.ok() && !run.tried[i].node.empty()) placed.push_back(i);
  }

  // Each victim back, those a PodDisruptionBudget protects first, the most important first: kept
  // if every placed pod still fits, in order, with the ones before it.
  std::stable_sort(potential.begin(), potential.end(), MoreImportant);
  std::vector<std::shared_ptr<const PodInfo>> all, violating, non_violating;
  for (const Victim& v : potential) all.insert(all.end(), v.pods.begin(), v.pods.end());
  preemption::SplitByPdbViolation(all, fw.ListPodDisruptionBudgets(), &violating, &non_violating);
  const absl::flat_hash_set<const PodInfo*> protected_pods = [&] {
    absl::flat_hash_set<const PodInfo*> out;
    for (const auto& pi : violating) out.insert(pi.get());
    return out;
  }();
  for (Victim& v : potential) {
    for (const auto& pi : v.pods) v.violations += protected_pods.contains(pi.get());
  }
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
  std::stable_sort(evicted.begin(), evicted.end(),
                   [](const Victim* a, const Victim* b) { return MoreImportant(*a, *b); });
  preemption::Victims victims{.num_pdb_violations = violations};
  for (const Victim* v : evicted) {
    victims.pods.insert(victims.pods.end(), v->pods.begin(), v->pods.end());
  }
  for (size_t i : placed) (*nominated)[pods[i].pod().metadata.uid] = run.tried[i].node;

  // The snapshot as it was, before the evictions (whose deletions the scheduler may see at once).
  overlay.Restore();
  feasible_.clear();
  score_table_.nodes.clear();
  metrics_->pod_groups->workload_preemption_victims.With({})->Observe(
      static_cast<double>(victims.pods.size()));
  const auto groups =
      std::count_if(evicted.begin(), evicted.end(), [](const Victim* v) { return v->rank == 2; });
  if (groups > 0) {
    metrics_->pod_groups->preemption_workload_disruptions.With({"podgroup"})
        ->Observe(static_cast<double>(groups));
  }
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
