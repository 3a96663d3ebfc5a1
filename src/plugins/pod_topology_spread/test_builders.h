// Builders with the names and arguments of upstream's st.MakePod() / st.MakeNode() /
// st.MakeLabelSelector() wrappers, so that the cases ported from upstream's podtopologyspread
// tests read as they do there (and can be compared with them line by line):
//
//   P().Name("p").Label("foo", "").SpreadConstraint(1, "zone", "DoNotSchedule", FooSelector(),
//                                                   nil, nil, nil, nil).Obj()
//   N().Name("node-a").Label("zone", "zone1").Obj()   // No hostname label unless given.
//
// Unlike src/testing/builders.h, a pod's namespace is "" unless set, and a node gets no
// kubernetes.io/hostname label of its own, as upstream's wrappers. For the tests of this folder.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ksched/api/objects.h"
#include "src/plugins/pod_topology_spread/common.h"
#include "src/testing/fake_handle.h"

namespace ksched::plugins::pod_topology_spread::testing {

using Strings = std::vector<std::string>;
using TaintList = std::vector<api::Taint>;

inline constexpr std::nullopt_t nil = std::nullopt;
inline constexpr char kHostname[] = "kubernetes.io/hostname";
inline constexpr char kZone[] = "topology.kubernetes.io/zone";
inline constexpr char kHonor[] = "Honor";
inline constexpr char kIgnore[] = "Ignore";
inline constexpr char kTaintUnschedulable[] = "node.kubernetes.io/unschedulable";
inline constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

enum NodeSelectorType { kMatchExpressions, kMatchFields };

class LS {
 public:
  LS& Label(std::string k, std::string v) {
    s_.match_labels[std::move(k)] = std::move(v);
    return *this;
  }
  LS& Exists(std::string k) { return Expr(std::move(k), "Exists", {}); }
  LS& NotExist(std::string k) { return Expr(std::move(k), "DoesNotExist", {}); }
  LS& In(std::string k, Strings v) { return Expr(std::move(k), "In", std::move(v)); }
  LS& NotIn(std::string k, Strings v) { return Expr(std::move(k), "NotIn", std::move(v)); }
  api::LabelSelector Obj() const { return s_; }

 private:
  LS& Expr(std::string k, std::string op, Strings v) {
    s_.match_expressions.push_back({std::move(k), std::move(op), std::move(v)});
    return *this;
  }
  api::LabelSelector s_;
};

inline api::LabelSelector FooSelector() { return LS().Exists("foo").Obj(); }
inline api::LabelSelector BarSelector() { return LS().Exists("bar").Obj(); }

class P {
 public:
  P& Name(std::string n) { return Set(pod_.metadata.name, std::move(n)); }
  P& Namespace(std::string ns) { return Set(pod_.metadata.namespace_, std::move(ns)); }
  P& UID(std::string uid) { return Set(pod_.metadata.uid, std::move(uid)); }
  P& Node(std::string n) { return Set(pod_.spec.node_name, std::move(n)); }
  P& NominatedNodeName(std::string n) { return Set(pod_.status.nominated_node_name, std::move(n)); }
  P& Label(std::string k, std::string v) {
    pod_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  P& SpreadConstraint(int32_t max_skew, std::string key, std::string mode,
                      std::optional<api::LabelSelector> selector,
                      std::optional<int32_t> min_domains,
                      std::optional<std::string> node_affinity_policy,
                      std::optional<std::string> node_taints_policy,
                      std::optional<Strings> match_label_keys) {
    pod_.spec.topology_spread_constraints.push_back(
        {.max_skew = max_skew,
         .topology_key = std::move(key),
         .when_unsatisfiable = std::move(mode),
         .label_selector = std::move(selector),
         .min_domains = min_domains,
         .node_affinity_policy = std::move(node_affinity_policy),
         .node_taints_policy = std::move(node_taints_policy),
         .match_label_keys = std::move(match_label_keys).value_or(Strings{})});
    return *this;
  }
  P& NodeSelector(api::StringMap m) {
    pod_.spec.node_selector = std::move(m);
    return *this;
  }
  // Replaces the required node affinity with one term: key In vals.
  P& NodeAffinityIn(std::string key, Strings vals, NodeSelectorType t) {
    api::NodeSelectorTerm term;
    api::NodeSelectorRequirement r{std::move(key), "In", std::move(vals)};
    (t == kMatchExpressions ? term.match_expressions : term.match_fields).push_back(std::move(r));
    Required().node_selector_terms = {std::move(term)};
    return *this;
  }
  P& NodeAffinityNotIn(std::string key, Strings vals) {
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({std::move(key), "NotIn", std::move(vals)});
    Required().node_selector_terms = {std::move(term)};
    return *this;
  }
  P& Toleration(std::string key) {
    pod_.spec.tolerations.push_back({.key = std::move(key), .op = "Exists"});
    return *this;
  }
  P& Terminating() {
    pod_.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
    return *this;
  }
  P& OwnerReference(std::string name, std::string api_version, std::string kind) {
    pod_.metadata.owner_references = {{.api_version = std::move(api_version),
                                       .kind = std::move(kind),
                                       .name = std::move(name),
                                       .controller = true}};
    return *this;
  }
  // The pod; its UID is namespace/name unless set, so that the cache tells pods apart.
  api::Pod Obj() const {
    api::Pod out = pod_;
    if (out.metadata.uid.empty())
      out.metadata.uid = out.metadata.namespace_ + "/" + out.metadata.name;
    return out;
  }

 private:
  P& Set(std::string& field, std::string v) {
    field = std::move(v);
    return *this;
  }
  api::NodeSelector& Required() {
    auto& na = pod_.spec.affinity.emplace().node_affinity.emplace();
    return na.required_during_scheduling_ignored_during_execution.emplace();
  }
  api::Pod pod_;
};

class N {
 public:
  N& Name(std::string n) {
    node_.metadata.name = n;
    node_.metadata.uid = std::move(n);
    return *this;
  }
  N& Label(std::string k, std::string v) {
    node_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
  N& Taints(std::vector<api::Taint> taints) {
    node_.spec.taints = std::move(taints);
    return *this;
  }
  api::Node Obj() const { return node_; }

 private:
  api::Node node_;
};

// node.kubernetes.io/unschedulable:NoSchedule (upstream's `taints`).
inline TaintList UnschedulableTaints() {
  return {{.key = kTaintUnschedulable, .value = "", .effect = "NoSchedule"}};
}

// The Services and ReplicaSets a case puts in the cluster.
using Obj = std::variant<api::Service, api::ReplicaSet>;
inline Obj Svc(std::string ns, api::StringMap selector) {
  api::Service s;
  s.metadata.namespace_ = std::move(ns);
  s.selector = std::move(selector);
  return s;
}
inline Obj RS(std::string ns, std::string name, api::LabelSelector selector) {
  api::ReplicaSet rs;
  rs.metadata.namespace_ = std::move(ns);
  rs.metadata.name = std::move(name);
  rs.selector = std::move(selector);
  return rs;
}
// Adds the objects to the handle's cache; Services without a name are named svc-<i>.
inline void AddObjects(ksched::testing::FakeHandle& h, const std::vector<Obj>& objs) {
  int i = 0;
  for (const Obj& o : objs) {
    if (const auto* svc = std::get_if<api::Service>(&o)) {
      api::Service s = *svc;
      if (s.metadata.name.empty()) s.metadata.name = "svc-" + std::to_string(i);
      h.listers().services.Set(std::make_shared<const api::Service>(std::move(s)));
    } else {
      h.listers().replica_sets.Set(
          std::make_shared<const api::ReplicaSet>(std::get<api::ReplicaSet>(o)));
    }
    ++i;
  }
}

// --- Cycle states as upstream's tests spell them ---------------------------------------------

struct WantConstraint {
  int32_t max_skew;
  std::string topology_key;
  int32_t min_domains;
  std::string node_affinity_policy;
  std::string node_taints_policy;
  bool operator==(const WantConstraint&) const = default;
};

inline std::vector<WantConstraint> ConstraintsOf(const std::vector<internal::Constraint>& cs) {
  std::vector<WantConstraint> out;
  out.reserve(cs.size());
  for (const internal::Constraint& c : cs) {
    out.push_back({c.max_skew, c.topology_key, c.min_domains,
                   c.honor_node_affinity ? kHonor : kIgnore,
                   c.honor_node_taints ? kHonor : kIgnore});
  }
  return out;
}

struct Path {
  std::string topology_value;
  int64_t match_num;
  bool operator==(const Path&) const = default;
};
struct Paths {
  Path first, second;
  bool operator==(const Paths&) const = default;
};
inline Paths NewCriticalPaths() { return {{"", kMaxInt32}, {"", kMaxInt32}}; }

using Counts = std::map<std::string, int64_t>;

struct WantState {
  std::vector<WantConstraint> constraints;
  std::vector<Paths> critical_paths;
  std::vector<Counts> counts;
  bool operator==(const WantState&) const = default;
};

inline void PrintTo(const WantState& s, std::ostream* os) {
  *os << "{constraints: [";
  for (const WantConstraint& c : s.constraints) {
    *os << "{" << c.max_skew << " " << c.topology_key << " " << c.min_domains << " "
        << c.node_affinity_policy << " " << c.node_taints_policy << "}";
  }
  *os << "], paths: [";
  for (const Paths& p : s.critical_paths) {
    *os << "{" << p.first.topology_value << ":" << p.first.match_num << " "
        << p.second.topology_value << ":" << p.second.match_num << "}";
  }
  *os << "], counts: [";
  for (const Counts& m : s.counts) {
    *os << "{";
    for (const auto& [k, v] : m) *os << k << ":" << v << " ";
    *os << "}";
  }
  *os << "]}";
}

// The state as upstream's tests compare it: paths with equal counts in value order.
inline WantState StateOf(const internal::PreFilterState& s) {
  WantState out;
  out.constraints = ConstraintsOf(*s.constraints);
  for (const internal::CriticalPaths& cp : s.critical_paths) {
    Paths p{{cp.paths[0].topology_value, cp.paths[0].match_num},
            {cp.paths[1].topology_value, cp.paths[1].match_num}};
    out.critical_paths.push_back(p);
  }
  for (const auto& m : s.tp_value_to_match_num) out.counts.emplace_back(m.begin(), m.end());
  return out;
}
inline WantState Sorted(WantState s) {
  for (Paths& p : s.critical_paths) {
    if (p.first.match_num == p.second.match_num &&
        p.first.topology_value > p.second.topology_value) {
      std::swap(p.first.topology_value, p.second.topology_value);
    }
  }
  return s;
}

}  // namespace ksched::plugins::pod_topology_spread::testing
