// InterPodAffinity's PreScore, Score and NormalizeScore (upstream's scoring.go).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "src/plugins/helper/node_filters.h"
#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "src/plugins/inter_pod_affinity/terms.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

struct PreScoreState : StateData {
  // The summed weights per domain.
  TopologyCounts topology_score{TopologyCounts::kKeepZeros};
  // The snapshot's domains of the keys weighed under, so that a snapshot node's are found by its
  // place rather than by its labels.
  KeyDomains domains;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};
inline constexpr StateKey<PreScoreState> kPreScoreStateKey{"PreScoreInterPodAffinity",
                                                           StateScope::kSchedulingCycle};

// A topology key and the weight added to a domain of it.
using Weights = std::vector<std::pair<const std::string*, int64_t>>;

// What one existing pod adds to the domains of its node (upstream's processExistingPod).
Weights WeightsOfExistingPod(const api::Pod& incoming, const api::Pod& existing,
                             const api::StringMap& ns_labels, int32_t hard_pod_affinity_weight,
                             const Handle& handle) {
  Weights out;
  const std::string& ns = incoming.metadata.namespace_;
  for (const auto& [weight, term] : PreferredAffinityTerms(incoming)) {
    if (SelectsFromIncoming(term, ns, existing, handle))
      out.emplace_back(&term.topology_key, weight);
  }
  for (const auto& [weight, term] : PreferredAntiAffinityTerms(incoming)) {
    if (SelectsFromIncoming(term, ns, existing, handle)) {
      out.emplace_back(&term.topology_key, -weight);
    }
  }
  const std::string& owner_ns = existing.metadata.namespace_;
  if (hard_pod_affinity_weight > 0) {
    for (const api::PodAffinityTerm& term : RequiredAffinityTerms(existing)) {
      if (Selects(term, owner_ns, incoming, ns_labels)) {
        out.emplace_back(&term.topology_key, hard_pod_affinity_weight);
      }
    }
  }
  for (const auto& [weight, term] : PreferredAffinityTerms(existing)) {
    if (Selects(term, owner_ns, incoming, ns_labels)) out.emplace_back(&term.topology_key, weight);
  }
  for (const auto& [weight, term] : PreferredAntiAffinityTerms(existing)) {
    if (Selects(term, owner_ns, incoming, ns_labels)) out.emplace_back(&term.topology_key, -weight);
  }
  return out;
}

}  // namespace

Status InterPodAffinity::PreScore(CycleState& state, const api::Pod& pod,
                                  const std::vector<const NodeInfo*>&) {
  const bool has_constraints =
      !PreferredAffinityTerms(pod).empty() || !PreferredAntiAffinityTerms(pod).empty();
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) return Status::Skip();

  api::StringMap ns_labels;
  if (auto ns = handle_.GetNamespace(pod.metadata.namespace_)) ns_labels = ns->metadata.labels;
  // With preferred terms of its own, every pod of the cluster may count; without, only the pods
  // that have terms.
  const Snapshot& snapshot = handle_.snapshot();
  const std::vector<const NodeInfo*>& nodes =
      has_constraints ? snapshot.nodes() : snapshot.nodes_with_affinity_pods();
  auto s = std::make_unique<PreScoreState>();
  // Each class of pods is weighed once; a node adds the weights times its number of pods of it.
  classes_.Refresh(snapshot);
  helper::PerClass<Weights> weights;
  for (size_t j = 0; j < nodes.size(); ++j) {
    const NodeInfo* ni = nodes[j];
    const api::Node* node = ni->node();
    if (node == nullptr || node->metadata.labels.empty() || ni->pods().empty()) continue;
    const int32_t place = helper::PlaceInSnapshot(snapshot, nodes, j);
    const NodeValues values(s->domains, *node, place);
    for (const helper::PodClasses::Count& cls : classes_.Of(*ni, place)) {
      const Weights& w = weights.Get(cls.id, [&] {
        Weights w = WeightsOfExistingPod(pod, classes_.Pod(cls.id), ns_labels,
                                         args_.hard_pod_affinity_weight, handle_);
        for (const auto& [key, weight] : w) {
          CountByDomains(s->domains, snapshot, *key, s->topology_score);
        }
        return w;
      });
      for (const auto& [key, weight] : w) {
        s->topology_score.Add(*key, values(*key), weight * cls.pods);
      }
    }
  }
  if (s->topology_score.empty()) return Status::Skip();
  state.Write(kPreScoreStateKey, std::move(s));
  return Status();
}

Status InterPodAffinity::Score(const CycleState& state, const api::Pod&, const NodeInfo& node,
                               int64_t* score) {
  const PreScoreState* s = state.Read(kPreScoreStateKey);
  if (s == nullptr) return Status::Error("reading \"PreScoreInterPodAffinity\" from cycleState");
  *score = s->topology_score.Sum(
      NodeValues(s->domains, *node.node(), helper::PlaceForLabels(handle_.snapshot(), node)));
  return Status();
}

Status InterPodAffinity::NormalizeScore(const CycleState& state, const api::Pod&,
                                        NodeScoreList& scores) {
  const PreScoreState* s = state.Read(kPreScoreStateKey);
  if (s == nullptr) return Status::Error("reading \"PreScoreInterPodAffinity\" from cycleState");
  if (s->topology_score.empty()) return Status();
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = std::numeric_limits<int64_t>::min();
  for (const NodeScore& ns : scores) {
    min = std::min(min, ns.score);
    max = std::max(max, ns.score);
  }
  const int64_t diff = max - min;
  for (NodeScore& ns : scores) {
    // In float64, as upstream, so that the truncation lands on the same integer.
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(kMaxNodeScore) *
          (static_cast<double>(ns.score - min) / static_cast<double>(diff));
    }
    ns.score = static_cast<int64_t>(f);
  }
  return Status();
}

}  // namespace ksched::plugins::inter_pod_affinity
