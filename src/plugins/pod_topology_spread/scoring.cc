// PreScore, Score and NormalizeScore (upstream's scoring.go). Scores are byte-equal to
// kube-scheduler's: the same float operations in the same order (the target builds with
// -ffp-contract=off, so that no multiply-add is fused) and Go's logarithm (GoLog).
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "fmt/format.h"
#include "src/plugins/helper/node_filters.h"
#include "src/plugins/pod_topology_spread/pod_topology_spread.h"

namespace ksched::plugins::pod_topology_spread {

using internal::Constraint;
using internal::PreScoreState;

namespace {

constexpr int64_t kInvalidScore = -1;

Status StateNotFound() {
  return Status::Error(fmt::format("error reading \"{}\" from cycleState: not found",
                                   internal::kPreScoreStateKey.name));
}

// The weight of a constraint's counts: log(domains + 2), so that the counts of a topology with
// few domains are not watered down by one with many.
double TopologyNormalizingWeight(int size) {
  return internal::GoLog(static_cast<double>(size + 2));
}

// The score of `count` matching pods in a domain; maxSkew - 1 is added so that differences
// between domains get watered down, the more so the more skew the constraint tolerates.
double ScoreForCount(int64_t count, int32_t max_skew, double weight) {
  return static_cast<double>(count) * weight + static_cast<double>(max_skew - 1);
}

// The value of `key` on the node; "" when it has none (a Go map's zero value).
const std::string& ValueOrEmpty(const api::StringMap& labels, std::string_view key) {
  static const std::string kEmpty;
  const std::string* v = helper::LabelValue(labels, key);
  return v == nullptr ? kEmpty : *v;
}

}  // namespace

Status PodTopologySpread::PreScore(CycleState& state, const api::Pod& pod,
                                   const std::vector<const NodeInfo*>& feasible) {
  const std::vector<const NodeInfo*>& all_nodes = handle_.snapshot().nodes();
  if (all_nodes.empty()) return Status::Skip();

  auto s = std::make_unique<PreScoreState>();
  s->constraints = Constraints(pod, internal::kScheduleAnyway);
  if (s->constraints.empty()) return Status::Skip();
  const std::vector<Constraint>& constraints = s->constraints;
  const size_t n = constraints.size();
  // Only the System defaults let a node without every topology key score (by hostname alone,
  // say, in a cluster without zones).
  const bool require_all_topologies =
      !pod.spec.topology_spread_constraints.empty() || !system_defaulted_;

  // The domains of the feasible nodes; hostname domains are counted in Score.
  s->topology_value_to_pod_counts.resize(n);
  std::vector<int> topology_size(n, 0);
  for (const NodeInfo* info : feasible) {
    const api::Node* node = info->node();
    if (node == nullptr) continue;
    if (require_all_topologies &&
        !internal::NodeHasAllTopologyKeys(node->metadata.labels, constraints)) {
      s->ignored_nodes.insert(node->metadata.name);
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      if (constraints[i].topology_key == internal::kLabelHostname) continue;
      const std::string& value = ValueOrEmpty(node->metadata.labels, constraints[i].topology_key);
      if (s->topology_value_to_pod_counts[i].try_emplace(value, 0).second) ++topology_size[i];
    }
  }
  s->topology_normalizing_weight.resize(n);
  for (size_t i = 0; i < n; ++i) {
    int size = topology_size[i];
    if (constraints[i].topology_key == internal::kLabelHostname) {
      size = static_cast<int>(feasible.size() - s->ignored_nodes.size());
    }
    s->topology_normalizing_weight[i] = TopologyNormalizingWeight(size);
  }

  // The matching pods of those domains, over every node that counts.
  classes_.Refresh(handle_.snapshot());
  std::vector<helper::PerClass<bool>> matches(n);
  for (const NodeInfo* info : all_nodes) {
    const api::Node* node = info->node();
    if (node == nullptr) continue;
    if (require_all_topologies &&
        !internal::NodeHasAllTopologyKeys(node->metadata.labels, constraints)) {
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const Constraint& c = constraints[i];
      if (!internal::MatchesNodeInclusionPolicies(c, pod, *node)) continue;
      auto& counts = s->topology_value_to_pod_counts[i];
      auto it = counts.find(ValueOrEmpty(node->metadata.labels, c.topology_key));
      if (it == counts.end()) continue;  // No feasible node there, or a hostname domain.
      it->second += CountMatching(classes_.Of(*info), c, pod.metadata.namespace_, matches[i]);
    }
  }
  state.Write(internal::kPreScoreStateKey, std::move(s));
  return Status();
}

int64_t PodTopologySpread::ScoreNode(const PreScoreState& s, const api::Pod& pod,
                                     const NodeInfo& info) const {
  const api::Node& node = *info.node();
  if (s.ignored_nodes.contains(node.metadata.name)) return 0;
  // Each constraint whose key the node has adds its domain's count, weighted.
  double score = 0;
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const Constraint& c = s.constraints[i];
    const std::string* value = helper::LabelValue(node.metadata.labels, c.topology_key);
    if (value == nullptr) continue;
    int64_t count = 0;
    if (c.topology_key == internal::kLabelHostname) {
      count = internal::CountPodsMatchSelector(info.pods(), c.selector, pod.metadata.namespace_);
    } else {
      const auto& counts = s.topology_value_to_pod_counts[i];
      if (auto it = counts.find(*value); it != counts.end()) count = it->second;
    }
    score += ScoreForCount(count, c.max_skew, s.topology_normalizing_weight[i]);
  }
  return static_cast<int64_t>(std::round(score));  // Go's math.Round: half away from zero.
}

Status PodTopologySpread::Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
                                int64_t* score) {
  const PreScoreState* s = state.Read(internal::kPreScoreStateKey);
  if (s == nullptr) return StateNotFound();
  if (node.node() == nullptr) return Status::Error("node not found");
  *score = ScoreNode(*s, pod, node);
  return Status();
}

Status PodTopologySpread::ScoreNodes(const CycleState& state, const api::Pod& pod,
                                     std::span<NodeScore> scores) {
  const PreScoreState* s = state.Read(internal::kPreScoreStateKey);
  if (s == nullptr) return StateNotFound();
  for (NodeScore& ns : scores) {
    if (ns.node->node() == nullptr) return Status::Error("node not found");
    ns.score = ScoreNode(*s, pod, *ns.node);
  }
  return Status();
}

Status PodTopologySpread::NormalizeScore(const CycleState& state, const api::Pod&,
                                         NodeScoreList& scores) {
  const PreScoreState* s = state.Read(internal::kPreScoreStateKey);
  if (s == nullptr) return StateNotFound();
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (NodeScore& ns : scores) {
    if (s->ignored_nodes.contains(ns.node->name())) {
      ns.score = kInvalidScore;
      continue;
    }
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  for (NodeScore& ns : scores) {
    if (ns.score == kInvalidScore) {
      ns.score = 0;
    } else if (max_score == 0) {
      ns.score = kMaxNodeScore;
    } else {
      ns.score = kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
    }
  }
  return Status();
}

}  // namespace ksched::plugins::pod_topology_spread
