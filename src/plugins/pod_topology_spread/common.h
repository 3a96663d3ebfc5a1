// The parts of PodTopologySpread that Filter, Score and the queueing hints share (upstream's
// podtopologyspread/common.go and helper/spread.go): a pod's spread constraints in the parsed
// form the plugin works with, the node inclusion policies, the counting of matching pods, and
// the cycle states, which the tests read too.
//
//   std::vector<internal::Constraint> hard =
//       internal::ParseConstraints(pod.spec.topology_spread_constraints, pod.metadata.labels,
//                                  internal::kDoNotSchedule);
//   for (const internal::Constraint& c : hard) {
//     if (!internal::MatchesNodeInclusionPolicies(c, pod, node)) continue;
//     int n = internal::CountPodsMatchSelector(node_info.pods(), c.selector, pod_namespace);
//   }
//
// Not part of the plugin SDK. Thread safety: plain values and pure functions, except
// DefaultSelector, which reads the Handle's listers (safe from any thread).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/handle.h"
#include "ksched/node_info.h"

namespace ksched::plugins::pod_topology_spread::internal {

inline constexpr char kLabelHostname[] = "kubernetes.io/hostname";
inline constexpr char kLabelTopologyZone[] = "topology.kubernetes.io/zone";
inline constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
inline constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";
inline constexpr std::string_view kNodeInclusionPolicyHonor = "Honor";

// A label selector as upstream's labels.Selector: either "nothing" (what an absent
// metav1.LabelSelector parses to: it matches no labels) or ANDed requirements. A selector
// without requirements is Empty(): it matches every set of labels, yet counts no pod (see
// CountPodsMatchSelector).
class Selector {
 public:
  // Selects nothing.
  Selector() = default;
  // metav1.LabelSelectorAsSelector: nullopt selects nothing; a selector with neither
  // matchLabels nor matchExpressions is Empty().
  static Selector FromLabelSelector(const std::optional<api::LabelSelector>& selector);
  // labels.Set.AsSelector: key=value for each pair; Empty() for an empty set.
  static Selector FromSet(const api::StringMap& set);

  bool Empty() const { return !nothing_ && requirements_.match_expressions.empty(); }
  bool Matches(const api::StringMap& labels) const;
  // Adds key In (value) for each pair (upstream's mergeLabelSetWithSelector); a selector that
  // selects nothing stays so.
  void AddSet(const api::StringMap& set);
  // Adds the requirements of `other` (selector.Add(other.Requirements()...)); nothing when
  // `other` is absent, as an absent selector has no requirements to give.
  void AddRequirements(const std::optional<api::LabelSelector>& other);

 private:
  bool nothing_ = true;
  // ANDed matchExpressions only: each key=value pair is an In requirement with one value, so
  // that two values for one key can coexist (and then match nothing), as upstream's requirement
  // lists allow.
  api::LabelSelector requirements_;
};

// A TopologySpreadConstraint with its defaults applied and its selector parsed (upstream's
// topologySpreadConstraint).
struct Constraint {
  int32_t max_skew = 0;
  std::string topology_key;
  Selector selector;
  int32_t min_domains = 1;          // minDomains, 1 when unset.
  bool honor_node_affinity = true;  // nodeAffinityPolicy: Honor unless set otherwise.
  bool honor_node_taints = false;   // nodeTaintsPolicy: Ignore unless set to Honor.
};

// The constraints of `constraints` whose whenUnsatisfiable is `action`, in order, with each
// selector parsed and, when the constraint has matchLabelKeys, the pod's values for those keys
// merged into it (upstream's filterTopologySpreadConstraints).
std::vector<Constraint> ParseConstraints(const std::vector<api::TopologySpreadConstraint>& all,
                                         const api::StringMap& pod_labels, std::string_view action);

// The selector of the Services, ReplicationController, ReplicaSet or StatefulSet that select
// `pod` (upstream's helper.DefaultSelector): the Services of the pod's namespace whose selector
// matches the pod, merged, and then its controller's selector (a ReplicationController's merged
// in, a ReplicaSet's or StatefulSet's requirements added). Empty() when none applies.
Selector DefaultSelector(const api::Pod& pod, const Handle& handle);

// Whether the node has a label for every constraint's topology key.
bool NodeHasAllTopologyKeys(const api::StringMap& node_labels,
                            const std::vector<Constraint>& constraints);

// Whether the node counts for the constraint under its nodeAffinityPolicy (the pod's
// nodeSelector and required node affinity) and nodeTaintsPolicy (the pod tolerates the node's
// NoSchedule and NoExecute taints).
bool MatchesNodeInclusionPolicies(const Constraint& c, const api::Pod& pod, const api::Node& node);

// Whether spreading counts `pod` for `selector` in namespace `ns`: it is there, not terminating,
// and matches (the Empty() check is the caller's).
bool CountsPod(const api::Pod& pod, const Selector& selector, std::string_view ns);

// The pods of `pods` that CountsPod; 0 for an Empty() selector.
int CountPodsMatchSelector(const std::vector<std::shared_ptr<const PodInfo>>& pods,
                           const Selector& selector, std::string_view ns);

// Whether the labels match the selector of any of the constraints.
bool MatchesAnySelector(const std::vector<Constraint>& constraints, const api::StringMap& labels);

// Go's math.Log (the algorithm of its amd64 assembly and of log.go), so that scores round as
// kube-scheduler's do: it differs from glibc's log in the last bit for about one integer in a
// hundred. For finite x > 0.
double GoLog(double x);

// --- Cycle states ------------------------------------------------------------------------------

// The two domains with the fewest matching pods of one constraint, [0] holding the minimum;
// [1] is not always the second smallest (upstream's criticalPaths, which preemption's one-node
// updates keep right).
struct CriticalPaths {
  struct Path {
    std::string topology_value;
    int64_t match_num = std::numeric_limits<int32_t>::max();
  };
  std::array<Path, 2> paths;

  void Update(std::string_view value, int64_t num);
};

// What PreFilter computes for Filter: per DoNotSchedule constraint, the matching pods of each
// domain among the nodes that count, and its critical paths.
struct PreFilterState : StateData {
  // Shared by clones: they do not change within a cycle.
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::vector<bool> self_match;  // Whether the incoming pod matches constraint i's selector.
  std::vector<CriticalPaths> critical_paths;
  std::vector<absl::flat_hash_map<std::string, int64_t>> tp_value_to_match_num;
  // Constraint i's topology key over the snapshot's nodes (Snapshot::NodeLabelDomains), for
  // Filter; empty when PreFilter was given other nodes.
  std::vector<const LabelDomains*> domains;

  // The global minimum for constraint i: 0 while fewer domains than minDomains exist.
  int64_t MinMatchNum(size_t i) const;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};
inline constexpr StateKey<PreFilterState> kPreFilterStateKey{"PreFilterPodTopologySpread",
                                                             StateScope::kSchedulingCycle};

// What PreScore computes for Score: per ScheduleAnyway constraint, the matching pods of each
// domain that holds a feasible node (hostname domains are counted in Score), and its weight.
struct PreScoreState : StateData {
  std::vector<Constraint> constraints;
  // Feasible nodes without every topology key; they score 0.
  absl::flat_hash_set<std::string> ignored_nodes;
  std::vector<absl::flat_hash_map<std::string, int64_t>> topology_value_to_pod_counts;
  std::vector<double> topology_normalizing_weight;

  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};
inline constexpr StateKey<PreScoreState> kPreScoreStateKey{"PreScorePodTopologySpread",
                                                           StateScope::kSchedulingCycle};

}  // namespace ksched::plugins::pod_topology_spread::internal
