// InterPodAffinity's PreFilter, its extensions and Filter (upstream's filtering.go).
#include <algorithm>
#include <memory>

#include "src/plugins/helper/node_filters.h"
#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "src/plugins/inter_pod_affinity/terms.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

struct PreFilterState : StateData {
  // Existing pods whose required anti-affinity selects the incoming pod, per domain of the term.
  TopologyCounts existing_anti_affinity;
  // Existing pods that all the incoming pod's required affinity terms select, per domain of each.
  TopologyCounts affinity;
  // Existing pods that one of the incoming pod's required anti-affinity terms selects.
  TopologyCounts anti_affinity;
  // The incoming pod's terms, and whether they select the pod itself (the first pod of a group
  // may go anywhere its affinity could later be met).
  std::vector<api::PodAffinityTerm> required_affinity;
  std::vector<api::PodAffinityTerm> required_anti_affinity;
  bool affinity_selects_itself = false;
  api::StringMap namespace_labels;  // Of the incoming pod's namespace.
  // The snapshot's domains of the keys counted under and of the incoming pod's terms, so that a
  // snapshot node's values are read from them rather than from its labels.
  KeyDomains domains;

  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};
inline constexpr StateKey<PreFilterState> kPreFilterStateKey{"PreFilterInterPodAffinity",
                                                             StateScope::kSchedulingCycle};

// The topology keys of `existing`'s required anti-affinity terms that select the incoming pod.
std::vector<const std::string*> ExistingAntiAffinityKeys(const PreFilterState& s,
                                                         const api::Pod& incoming,
                                                         const api::Pod& existing) {
  std::vector<const std::string*> keys;
  for (const api::PodAffinityTerm& t : RequiredAntiAffinityTerms(existing)) {
    if (Selects(t, existing.metadata.namespace_, incoming, s.namespace_labels)) {
      keys.push_back(&t.topology_key);
    }
  }
  return keys;
}

// Where the incoming pod's required terms count `existing`: under every affinity term's key when
// all of them select it, and under the key of each anti-affinity term that selects it.
struct IncomingMatch {
  std::vector<const std::string*> affinity, anti_affinity;
};
IncomingMatch MatchIncomingTerms(const api::Pod& incoming, const api::Pod& existing,
                                 const Handle& handle) {
  const std::string& ns = incoming.metadata.namespace_;
  auto selects = [&](const api::PodAffinityTerm& t) {
    return SelectsFromIncoming(t, ns, existing, handle);
  };
  // The incoming pod's own terms (the state holds copies): the counts keep views of their keys,
  // and the pod outlives every copy of the state.
  const std::vector<api::PodAffinityTerm>& affinity = RequiredAffinityTerms(incoming);
  IncomingMatch m;
  if (!affinity.empty() && std::all_of(affinity.begin(), affinity.end(), selects)) {
    for (const api::PodAffinityTerm& t : affinity) m.affinity.push_back(&t.topology_key);
  }
  for (const api::PodAffinityTerm& t : RequiredAntiAffinityTerms(incoming)) {
    if (selects(t)) m.anti_affinity.push_back(&t.topology_key);
  }
  return m;
}

// Adds `delta` pods under each key, in the node's domain of it.
void Count(TopologyCounts& counts, const std::vector<const std::string*>& keys,
           const NodeValues& values, int64_t delta) {
  for (const std::string* key : keys) counts.Add(*key, values(*key), delta);
}
void Count(PreFilterState& s, const IncomingMatch& m, const NodeValues& values, int64_t delta) {
  Count(s.affinity, m.affinity, values, delta);
  Count(s.anti_affinity, m.anti_affinity, values, delta);
}

// Both, as upstream's updateWithPod for AddPod and RemovePod.
Status UpdateWithPod(CycleState& state, const api::Pod& incoming, const PodInfo& existing,
                     const NodeInfo& node, int64_t delta, const Handle& handle) {
  PreFilterState* s = state.ReadMutable(kPreFilterStateKey);
  if (s == nullptr) return Status::Error("reading \"PreFilterInterPodAffinity\" from cycleState");
  if (node.node() == nullptr) return Status();
  const NodeValues values(s->domains, *node.node(),
                          helper::PlaceForLabels(handle.snapshot(), node));
  Count(s->existing_anti_affinity, ExistingAntiAffinityKeys(*s, incoming, *existing.pod), values,
        delta);
  Count(*s, MatchIncomingTerms(incoming, *existing.pod, handle), values, delta);
  return Status();
}

bool SatisfiesPodAffinity(const PreFilterState& s, const NodeValues& values) {
  bool pods_exist = true;
  for (const api::PodAffinityTerm& t : s.required_affinity) {
    const NodeDomain domain = values(t.topology_key);
    if (domain.value == nullptr) return false;
    if (s.affinity.Get(t.topology_key, domain) <= 0) pods_exist = false;
  }
  // No pod matches anywhere yet: a pod that matches its own terms may start the group.
  return pods_exist || (s.affinity.empty() && s.affinity_selects_itself);
}

bool SatisfiesPodAntiAffinity(const PreFilterState& s, const NodeValues& values) {
  if (s.anti_affinity.empty()) return true;
  for (const api::PodAffinityTerm& t : s.required_anti_affinity) {
    if (s.anti_affinity.Get(t.topology_key, values(t.topology_key)) > 0) return false;
  }
  return true;
}

}  // namespace

Status InterPodAffinity::PreFilter(CycleState& state, const api::Pod& pod,
                                   const std::vector<const NodeInfo*>& nodes, PreFilterResult*) {
  auto s = std::make_unique<PreFilterState>();
  s->required_affinity = RequiredAffinityTerms(pod);
  s->required_anti_affinity = RequiredAntiAffinityTerms(pod);
  if (auto ns = handle_.GetNamespace(pod.metadata.namespace_)) {
    s->namespace_labels = ns->metadata.labels;
  }
  // Each key's values over the snapshot's nodes, found once, and the counts under it kept by
  // their index: the existing pods' keys as they are met, the incoming pod's now.
  const Snapshot& snapshot = handle_.snapshot();
  for (const api::PodAffinityTerm& t : RequiredAffinityTerms(pod)) {
    CountByDomains(s->domains, snapshot, t.topology_key, s->affinity);
  }
  for (const api::PodAffinityTerm& t : RequiredAntiAffinityTerms(pod)) {
    CountByDomains(s->domains, snapshot, t.topology_key, s->anti_affinity);
  }
  // Each class of pods is matched once; a node adds its number of pods of each class.
  classes_.Refresh(snapshot);
  helper::PerClass<std::vector<const std::string*>> existing_keys;
  for (const NodeInfo* ni : snapshot.nodes_with_required_anti_affinity_pods()) {
    if (ni->node() == nullptr) continue;
    const int32_t place = snapshot.IndexOf(*ni);
    const NodeValues values(s->domains, *ni->node(), place);
    for (const helper::PodClasses::Count& cls : classes_.Of(*ni, place)) {
      const std::vector<const std::string*>& keys = existing_keys.Get(cls.id, [&] {
        std::vector<const std::string*> keys =
            ExistingAntiAffinityKeys(*s, pod, classes_.Pod(cls.id));
        for (const std::string* key : keys) {
          CountByDomains(s->domains, snapshot, *key, s->existing_anti_affinity);
        }
        return keys;
      });
      Count(s->existing_anti_affinity, keys, values, cls.pods);
    }
  }
  if (s->existing_anti_affinity.empty() && s->required_affinity.empty() &&
      s->required_anti_affinity.empty()) {
    return Status::Skip();
  }
  if (!s->required_affinity.empty() || !s->required_anti_affinity.empty()) {
    helper::PerClass<IncomingMatch> matches;
    for (size_t j = 0; j < nodes.size(); ++j) {
      const NodeInfo* ni = nodes[j];
      if (ni->node() == nullptr || ni->pods().empty()) continue;
      const int32_t place = helper::PlaceInSnapshot(snapshot, nodes, j);
      const NodeValues values(s->domains, *ni->node(), place);
      for (const helper::PodClasses::Count& cls : classes_.Of(*ni, place)) {
        Count(*s,
              matches.Get(cls.id,
                          [&] { return MatchIncomingTerms(pod, classes_.Pod(cls.id), handle_); }),
              values, cls.pods);
      }
    }
  }
  s->affinity_selects_itself = SelectedByAll(s->required_affinity, pod.metadata.namespace_, pod);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status();
}

Status InterPodAffinity::AddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                const PodInfo& pod_to_add, const NodeInfo& node) {
  return UpdateWithPod(state, pod_to_schedule, pod_to_add, node, 1, handle_);
}

Status InterPodAffinity::RemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                   const PodInfo& pod_to_remove, const NodeInfo& node) {
  return UpdateWithPod(state, pod_to_schedule, pod_to_remove, node, -1, handle_);
}

Status InterPodAffinity::Filter(const CycleState& state, const api::Pod&, const NodeInfo& node) {
  // Built once and shared: every node that turns the pod down for a reason says the same.
  static const Status kAffinity =
      Status::UnschedulableAndUnresolvable(kErrReasonAffinityRulesNotMatch)
          .WithPlugin(names::kInterPodAffinity);
  static const Status kAntiAffinity = Status::Unschedulable(kErrReasonAntiAffinityRulesNotMatch)
                                          .WithPlugin(names::kInterPodAffinity);
  static const Status kExisting = Status::Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch)
                                      .WithPlugin(names::kInterPodAffinity);
  const PreFilterState* s = state.Read(kPreFilterStateKey);
  if (s == nullptr) return Status::Error("reading \"PreFilterInterPodAffinity\" from cycleState");
  const NodeValues values(s->domains, *node.node(),
                          helper::PlaceForLabels(handle_.snapshot(), node));
  if (!SatisfiesPodAffinity(*s, values)) return kAffinity;
  if (!SatisfiesPodAntiAffinity(*s, values)) return kAntiAffinity;
  if (s->existing_anti_affinity.AnyPositive(values)) return kExisting;
  return Status();
}

}  // namespace ksched::plugins::inter_pod_affinity
