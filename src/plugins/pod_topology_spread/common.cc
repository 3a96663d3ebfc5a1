#include "src/plugins/pod_topology_spread/common.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ksched/api/selectors.h"
#include "src/plugins/helper/node_filters.h"

namespace ksched::plugins::pod_topology_spread::internal {

namespace {

constexpr char kOpIn[] = "In";

api::LabelSelectorRequirement Equals(const std::string& key, const std::string& value) {
  return {.key = key, .op = kOpIn, .values = {value}};
}

// The group and version of an apiVersion, as schema.ParseGroupVersion splits it; nullopt when
// it is malformed (more than one '/').
std::optional<std::pair<std::string_view, std::string_view>> ParseGroupVersion(
    std::string_view gv) {
  if (gv.empty() || gv == "/") return std::pair{std::string_view(), std::string_view()};
  const size_t slash = gv.find('/');
  if (slash == std::string_view::npos) return std::pair{std::string_view(), gv};
  if (gv.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return std::pair{gv.substr(0, slash), gv.substr(slash + 1)};
}

bool SetMatches(const api::StringMap& set, const api::StringMap& labels) {
  for (const auto& [key, value] : set) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

// labels.Merge: the pairs of both, `extra` winning on a shared key.
void Merge(api::StringMap& into, const api::StringMap& extra) {
  for (const auto& [key, value] : extra) into[key] = value;
}

}  // namespace

// --- Selector ----------------------------------------------------------------------------------

Selector Selector::FromLabelSelector(const std::optional<api::LabelSelector>& selector) {
  Selector out;
  if (!selector) return out;
  out.nothing_ = false;
  out.AddRequirements(selector);
  return out;
}

Selector Selector::FromSet(const api::StringMap& set) {
  Selector out;
  out.nothing_ = false;
  out.AddSet(set);
  return out;
}

bool Selector::Matches(const api::StringMap& labels) const {
  return !nothing_ && api::Matches(requirements_, labels);
}

void Selector::AddSet(const api::StringMap& set) {
  if (nothing_) return;
  for (const auto& [key, value] : set) {
    requirements_.match_expressions.push_back(Equals(key, value));
  }
}

void Selector::AddRequirements(const std::optional<api::LabelSelector>& other) {
  if (nothing_ || !other) return;
  AddSet(other->match_labels);
  for (const api::LabelSelectorRequirement& r : other->match_expressions) {
    requirements_.match_expressions.push_back(r);
  }
}

// --- Constraints -------------------------------------------------------------------------------

std::vector<Constraint> ParseConstraints(const std::vector<api::TopologySpreadConstraint>& all,
                                         const api::StringMap& pod_labels,
                                         std::string_view action) {
  std::vector<Constraint> out;
  for (const api::TopologySpreadConstraint& c : all) {
    if (c.when_unsatisfiable != action) continue;
    Constraint& tsc = out.emplace_back();
    tsc.max_skew = c.max_skew;
    tsc.topology_key = c.topology_key;
    tsc.selector = Selector::FromLabelSelector(c.label_selector);
    if (!c.match_label_keys.empty()) {
      api::StringMap match_labels;
      for (const std::string& key : c.match_label_keys) {
        if (auto it = pod_labels.find(key); it != pod_labels.end()) match_labels[key] = it->second;
      }
      tsc.selector.AddSet(match_labels);
    }
    tsc.min_domains = c.min_domains.value_or(1);
    if (c.node_affinity_policy) {
      tsc.honor_node_affinity = *c.node_affinity_policy == kNodeInclusionPolicyHonor;
    }
    if (c.node_taints_policy) {
      tsc.honor_node_taints = *c.node_taints_policy == kNodeInclusionPolicyHonor;
    }
  }
  return out;
}

Selector DefaultSelector(const api::Pod& pod, const Handle& handle) {
  const std::string& ns = pod.metadata.namespace_;
  api::StringMap label_set;
  for (const std::shared_ptr<const api::Service>& svc : handle.ListServices(ns)) {
    // A Service without a selector selects no pod.
    if (svc->selector.empty() || !SetMatches(svc->selector, pod.metadata.labels)) continue;
    Merge(label_set, svc->selector);
  }
  Selector selector = Selector::FromSet(label_set);

  const api::OwnerReference* owner = api::ControllerOf(pod.metadata);
  if (owner == nullptr) return selector;
  const auto gv = ParseGroupVersion(owner->api_version);
  if (!gv) return selector;
  const auto [group, version] = *gv;
  if (group.empty() && version == "v1" && owner->kind == "ReplicationController") {
    if (auto rc = handle.GetReplicationController(ns, owner->name)) {
      Merge(label_set, rc->selector);
      selector = Selector::FromSet(label_set);
    }
  } else if (group == "apps" && version == "v1" && owner->kind == "ReplicaSet") {
    if (auto rs = handle.GetReplicaSet(ns, owner->name)) selector.AddRequirements(rs->selector);
  } else if (group == "apps" && version == "v1" && owner->kind == "StatefulSet") {
    if (auto ss = handle.GetStatefulSet(ns, owner->name)) selector.AddRequirements(ss->selector);
  }
  return selector;
}

bool NodeHasAllTopologyKeys(const api::StringMap& node_labels,
                            const std::vector<Constraint>& constraints) {
  return std::all_of(constraints.begin(), constraints.end(), [&](const Constraint& c) {
    return node_labels.find(c.topology_key) != node_labels.end();
  });
}

bool MatchesNodeInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node) {
  if (c.honor_node_affinity && !helper::MatchesRequiredNodeAffinity(pod, node)) return false;
  if (c.honor_node_taints && helper::HasUntoleratedDoNotScheduleTaint(node, pod.spec.tolerations)) {
    return false;
  }
  return true;
}

int CountPodsMatchSelector(const std::vector<std::shared_ptr<const PodInfo>>& pods,
                           const Selector& selector, std::string_view ns) {
  if (selector.Empty()) return 0;
  int count = 0;
  for (const std::shared_ptr<const PodInfo>& info : pods) {
    if (CountsPod(*info->pod, selector, ns)) ++count;
  }
  return count;
}

bool CountsPod(const api::Pod& pod, const Selector& selector, std::string_view ns) {
  // Terminating pods do not count (kubernetes#87621).
  return !pod.metadata.deletion_timestamp && pod.metadata.namespace_ == ns &&
         selector.Matches(pod.metadata.labels);
}

bool MatchesAnySelector(const std::vector<Constraint>& constraints, const api::StringMap& labels) {
  return std::any_of(constraints.begin(), constraints.end(),
                     [&](const Constraint& c) { return c.selector.Matches(labels); });
}

double GoLog(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kL1 = 6.666666666666735130e-01;
  constexpr double kL2 = 3.999999999940941908e-01;
  constexpr double kL3 = 2.857142874366239149e-01;
  constexpr double kL4 = 2.222219843214978396e-01;
  constexpr double kL5 = 1.818357216161805012e-01;
  constexpr double kL6 = 1.531383769920937332e-01;
  constexpr double kL7 = 1.479819860511658591e-01;
  constexpr double kHalfSqrt2 = 7.07106781186547524401e-01;
  // Reduce: x = f1 * 2^k with f1 in [sqrt(2)/2, sqrt(2)).
  int ki = 0;
  double f1 = std::frexp(x, &ki);
  if (f1 < kHalfSqrt2) {
    f1 *= 2;
    --ki;
  }
  const double f = f1 - 1;
  const double k = ki;
  // Each step rounds as Go's does: no fused multiply-add (none is built for the baseline
  // x86-64 ksched targets).
  const double s = f / (2 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  const double t1 = s2 * (kL1 + s4 * (kL3 + s4 * (kL5 + s4 * kL7)));
  const double t2 = s4 * (kL2 + s4 * (kL4 + s4 * kL6));
  const double r = t1 + t2;
  const double hfsq = 0.5 * f * f;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);
}

// --- Cycle states ------------------------------------------------------------------------------

void CriticalPaths::Update(std::string_view value, int64_t num) {
  int i = -1;
  if (value == paths[0].topology_value) {
    i = 0;
  } else if (value == paths[1].topology_value) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].match_num = num;
    if (paths[0].match_num > paths[1].match_num) std::swap(paths[0], paths[1]);
    return;
  }
  if (num < paths[0].match_num) {
    paths[1] = paths[0];
    paths[0] = {std::string(value), num};
  } else if (num < paths[1].match_num) {
    paths[1] = {std::string(value), num};
  }
}

int64_t PreFilterState::MinMatchNum(size_t i) const {
  const Constraint& c = (*constraints)[i];
  // Fewer eligible domains than minDomains: the global minimum is taken as 0.
  if (tp_value_to_match_num[i].size() < static_cast<size_t>(std::max(c.min_domains, 0))) return 0;
  return critical_paths[i].paths[0].match_num;
}

}  // namespace ksched::plugins::pod_topology_spread::internal
