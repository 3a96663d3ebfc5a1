// InterPodAffinity's PreFilter, its extensions and Filter (upstream's filtering.go).
#include <algorithm>
#include <memory>

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
IncomingMatch MatchIncomingTerms(const PreFilterState& s, const api::Pod& incoming,
                                 const api::Pod& existing, const Handle& handle) {
  const std::string& ns = incoming.metadata.namespace_;
  auto selects = [&](const api::PodAffinityTerm& t) {
    return SelectsFromIncoming(t, ns, existing, handle);
  };
  IncomingMatch m;
  if (!s.required_affinity.empty() &&
      std::all_of(s.required_affinity.begin(), s.required_affinity.end(), selects)) {
    for (const api::PodAffinityTerm& t : s.required_affinity) m.affinity.push_back(&t.topology_key);
  }
  for (const api::PodAffinityTerm& t : s.required_anti_affinity) {
    if (selects(t)) m.anti_affinity.push_back(&t.topology_key);
  }
  return m;
}

// Adds `delta` pods on `node` under each key.
void Count(TopologyCounts& counts, const std::vector<const std::string*>& keys,
           const api::Node& node, int64_t delta) {
  for (const std::string* key : keys) counts.Add(node, *key, delta);
}
void Count(PreFilterState& s, const IncomingMatch& m, const api::Node& node, int64_t delta) {
  Count(s.affinity, m.affinity, node, delta);
  Count(s.anti_affinity, m.anti_affinity, node, delta);
}

// Both, as upstream's updateWithPod for AddPod and RemovePod.
Status UpdateWithPod(CycleState& state, const api::Pod& incoming, const PodInfo& existing,
                     const NodeInfo& node, int64_t delta, const Handle& handle) {
  PreFilterState* s = state.ReadMutable(kPreFilterStateKey);
  if (s == nullptr) return Status::Error("reading \"PreFilterInterPodAffinity\" from cycleState");
  if (node.node() == nullptr) return Status();
  Count(s->existing_anti_affinity, ExistingAntiAffinityKeys(*s, incoming, *existing.pod),
        *node.node(), delta);
  Count(*s, MatchIncomingTerms(*s, incoming, *existing.pod, handle), *node.node(), delta);
  return Status();
}

bool SatisfiesPodAffinity(const PreFilterState& s, const api::Node& node) {
  bool pods_exist = true;
  for (const api::PodAffinityTerm& t : s.required_affinity) {
    auto label = node.metadata.labels.find(t.topology_key);
    if (label == node.metadata.labels.end()) return false;
    if (s.affinity.Get(t.topology_key, label->second) <= 0) pods_exist = false;
  }
  // No pod matches anywhere yet: a pod that matches its own terms may start the group.
  return pods_exist || (s.affinity.empty() && s.affinity_selects_itself);
}

bool SatisfiesPodAntiAffinity(const PreFilterState& s, const api::Node& node) {
  if (s.anti_affinity.empty()) return true;
  for (const api::PodAffinityTerm& t : s.required_anti_affinity) {
    auto label = node.metadata.labels.find(t.topology_key);
    if (label != node.metadata.labels.end() &&
        s.anti_affinity.Get(t.topology_key, label->second) > 0) {
      return false;
    }
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
  // Each class of pods is matched once; a node adds its number of pods of each class.
  classes_.Refresh(handle_.snapshot());
  helper::PerClass<std::vector<const std::string*>> existing_keys;
  for (const NodeInfo* ni : handle_.snapshot().nodes_with_required_anti_affinity_pods()) {
    if (ni->node() == nullptr) continue;
    for (const helper::PodClasses::Count& cls : classes_.Of(*ni)) {
      Count(s->existing_anti_affinity,
            existing_keys.Get(
                cls.id, [&] { return ExistingAntiAffinityKeys(*s, pod, classes_.Pod(cls.id)); }),
            *ni->node(), cls.pods);
    }
  }
  if (s->existing_anti_affinity.empty() && s->required_affinity.empty() &&
      s->required_anti_affinity.empty()) {
    return Status::Skip();
  }
  if (!s->required_affinity.empty() || !s->required_anti_affinity.empty()) {
    helper::PerClass<IncomingMatch> matches;
    for (const NodeInfo* ni : nodes) {
      if (ni->node() == nullptr || ni->pods().empty()) continue;
      for (const helper::PodClasses::Count& cls : classes_.Of(*ni)) {
        Count(
            *s,
            matches.Get(cls.id,
                        [&] { return MatchIncomingTerms(*s, pod, classes_.Pod(cls.id), handle_); }),
            *ni->node(), cls.pods);
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
  const api::Node& n = *node.node();
  if (!SatisfiesPodAffinity(*s, n)) return kAffinity;
  if (!SatisfiesPodAntiAffinity(*s, n)) return kAntiAffinity;
  if (s->existing_anti_affinity.AnyPositive(n)) return kExisting;
  return Status();
}

}  // namespace ksched::plugins::inter_pod_affinity
