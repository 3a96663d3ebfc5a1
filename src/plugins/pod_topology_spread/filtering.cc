// PreFilter, its extensions and Filter (upstream's filtering.go).
#include <algorithm>
#include <memory>
#include <utility>

#include "fmt/format.h"
#include "src/plugins/helper/node_filters.h"
#include "src/plugins/pod_topology_spread/pod_topology_spread.h"

namespace ksched::plugins::pod_topology_spread {

using internal::Constraint;
using internal::PreFilterState;

namespace {

Status StateNotFound() {
  return Status::Error(
      fmt::format("reading \"{}\" from cycleState: not found", internal::kPreFilterStateKey.name));
}

}  // namespace

Status PodTopologySpread::PreFilter(CycleState& state, const api::Pod& pod,
                                    const std::vector<const NodeInfo*>& nodes, PreFilterResult*) {
  std::vector<Constraint> constraints = Constraints(pod, internal::kDoNotSchedule);
  if (constraints.empty()) return Status::Skip();

  auto s = std::make_unique<PreFilterState>();
  const size_t n = constraints.size();
  s->tp_value_to_match_num.resize(n);
  s->critical_paths.resize(n);
  s->self_match.resize(n);
  for (size_t i = 0; i < n; ++i) {
    s->self_match[i] = constraints[i].selector.Matches(pod.metadata.labels);
  }
  classes_.Refresh(handle_.snapshot());
  std::vector<helper::PerClass<bool>> matches(n);
  // Each constraint's domains over `nodes`: the snapshot's, kept from cycle to cycle, when `nodes`
  // is its list. Pods are counted per domain index; -1: no node of the domain counts.
  const Snapshot& snapshot = handle_.snapshot();
  const bool own = &nodes == &snapshot.nodes();
  std::vector<LabelDomains> own_domains;
  own_domains.reserve(n);
  std::vector<const LabelDomains*> domains(n);
  std::vector<std::vector<int64_t>> counts(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string& key = constraints[i].topology_key;
    domains[i] = own ? &snapshot.NodeLabelDomains(key)
                     : &own_domains.emplace_back(LabelDomains::Of(nodes, key));
    counts[i].assign(domains[i]->values.size(), -1);
  }
  for (size_t j = 0; j < nodes.size(); ++j) {
    const api::Node* node = nodes[j]->node();
    // Spreading counts only the nodes that have every topology key.
    if (node == nullptr || std::any_of(domains.begin(), domains.end(), [&](const LabelDomains* d) {
          return d->domain[j] == LabelDomains::kNoValue;
        })) {
      continue;
    }
    const std::vector<helper::PodClasses::Count>& classes =
        classes_.Of(*nodes[j], helper::PlaceInSnapshot(snapshot, nodes, j));
    for (size_t i = 0; i < n; ++i) {
      const Constraint& c = constraints[i];
      if (!internal::MatchesNodeInclusionPolicies(c, pod, *node)) continue;
      int64_t& count = counts[i][domains[i]->domain[j]];
      count = std::max<int64_t>(count, 0) +
              CountMatching(classes, c, pod.metadata.namespace_, matches[i]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    s->tp_value_to_match_num[i].reserve(counts[i].size());
    for (size_t d = 0; d < counts[i].size(); ++d) {
      if (counts[i][d] >= 0)
        s->tp_value_to_match_num[i].emplace(domains[i]->values[d], counts[i][d]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [value, num] : s->tp_value_to_match_num[i]) {
      s->critical_paths[i].Update(value, num);
    }
  }
  if (own) s->domains = std::move(domains);
  s->constraints = std::make_shared<const std::vector<Constraint>>(std::move(constraints));
  state.Write(internal::kPreFilterStateKey, std::move(s));
  return Status();
}

int PodTopologySpread::CountMatching(const std::vector<helper::PodClasses::Count>& classes,
                                     const Constraint& c, std::string_view ns,
                                     helper::PerClass<bool>& matches) {
  if (c.selector.Empty()) return 0;
  int count = 0;
  for (const helper::PodClasses::Count& cls : classes) {
    if (matches.Get(cls.id,
                    [&] { return internal::CountsPod(classes_.Pod(cls.id), c.selector, ns); })) {
      count += cls.pods;
    }
  }
  return count;
}

Status PodTopologySpread::AddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                 const PodInfo& pod_to_add, const NodeInfo& node) {
  PreFilterState* s = state.ReadMutable(internal::kPreFilterStateKey);
  if (s == nullptr) return StateNotFound();
  UpdateWithPod(*s, *pod_to_add.pod, pod_to_schedule, node.node(), 1);
  return Status();
}

Status PodTopologySpread::RemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                    const PodInfo& pod_to_remove, const NodeInfo& node) {
  PreFilterState* s = state.ReadMutable(internal::kPreFilterStateKey);
  if (s == nullptr) return StateNotFound();
  UpdateWithPod(*s, *pod_to_remove.pod, pod_to_schedule, node.node(), -1);
  return Status();
}

void PodTopologySpread::UpdateWithPod(PreFilterState& s, const api::Pod& updated,
                                      const api::Pod& preemptor, const api::Node* node,
                                      int delta) const {
  if (updated.metadata.namespace_ != preemptor.metadata.namespace_ || node == nullptr) return;
  const std::vector<Constraint>& constraints = *s.constraints;
  if (!internal::NodeHasAllTopologyKeys(node->metadata.labels, constraints)) return;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    if (!c.selector.Matches(updated.metadata.labels)) continue;
    if (!internal::MatchesNodeInclusionPolicies(c, preemptor, *node)) continue;
    const std::string& value = *helper::LabelValue(node->metadata.labels, c.topology_key);
    int64_t& num = s.tp_value_to_match_num[i][value];
    num += delta;
    s.critical_paths[i].Update(value, num);
  }
}

Status PodTopologySpread::Filter(const CycleState& state, const api::Pod&, const NodeInfo& info) {
  // Built once and shared: every node that turns the pod down says the same.
  static const Status kNoLabel = Status::UnschedulableAndUnresolvable(kErrReasonNodeLabelNotMatch)
                                     .WithPlugin(names::kPodTopologySpread);
  static const Status kSkewed =
      Status::Unschedulable(kErrReasonConstraintsNotMatch).WithPlugin(names::kPodTopologySpread);
  const api::Node* node = info.node();
  if (node == nullptr) return Status::Error("node not found");
  const PreFilterState* s = state.Read(internal::kPreFilterStateKey);
  if (s == nullptr) return StateNotFound();
  const std::vector<Constraint>& constraints = *s->constraints;
  // A snapshot node, or a copy of one, reads its values from the domains PreFilter used; any
  // other node from its labels.
  const int32_t at = s->domains.empty() ? -1 : helper::PlaceForLabels(handle_.snapshot(), info);
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    const std::string* value = at >= 0 ? s->domains[i]->ValueAt(at)
                                       : helper::LabelValue(node->metadata.labels, c.topology_key);
    if (value == nullptr) return kNoLabel;
    // 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
    const auto& counts = s->tp_value_to_match_num[i];
    auto it = counts.find(*value);
    const int64_t match_num = it == counts.end() ? 0 : it->second;
    const int64_t skew = match_num + (s->self_match[i] ? 1 : 0) - s->MinMatchNum(i);
    if (skew > c.max_skew) return kSkewed;
  }
  return Status();
}

}  // namespace ksched::plugins::pod_topology_spread
