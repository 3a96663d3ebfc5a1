// PodTopologySpread: spreads pods across topology domains (zones, nodes, ...) by their
// spec.topologySpreadConstraints, or by the profile's default constraints for pods that have
// none (upstream's plugins/podtopologyspread).
//
// A DoNotSchedule constraint filters: a node fits when, in its domain, the matching pods plus
// the incoming pod (if it matches) exceed the fewest matching pods of any domain by at most
// maxSkew. A ScheduleAnyway constraint scores: fewer matching pods in a node's domain score
// higher. Only nodes that pass the constraint's nodeAffinityPolicy and nodeTaintsPolicy count,
// and only pods in the incoming pod's namespace that its selector matches.
//
// Args (PodTopologySpreadArgs, args.h): defaultingType System gives every pod without
// constraints kubernetes.io/hostname maxSkew 3 and topology.kubernetes.io/zone maxSkew 5, both
// ScheduleAnyway; List gives it defaultConstraints. Either way the selector comes from the
// Services and the controller that select the pod (Handle::ListServices and friends); a pod
// that none selects gets no default constraints.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "src/plugins/helper/pod_classes.h"
#include "src/plugins/names.h"
#include "src/plugins/pod_topology_spread/args.h"
#include "src/plugins/pod_topology_spread/common.h"

namespace ksched::plugins::pod_topology_spread {

inline constexpr char kErrReasonConstraintsNotMatch[] =
    "node(s) didn't match pod topology spread constraints";
inline constexpr char kErrReasonNodeLabelNotMatch[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";

class PodTopologySpread final : public PreFilterPlugin,
                                public PreFilterExtensions,
                                public FilterPlugin,
                                public PreScorePlugin,
                                public ScorePlugin,
                                public ScoreExtensions,
                                public EnqueueExtensions,
                                public SignPlugin {
 public:
  // `handle` must outlive the plugin; the plugin reads its snapshot and its Service,
  // ReplicationController, ReplicaSet and StatefulSet listers.
  PodTopologySpread(const PodTopologySpreadArgs& args, const Handle& handle);

  std::string_view Name() const override { return names::kPodTopologySpread; }

  // Signs nothing; a pod with spread constraints, or any pod when the plugin has default
  // constraints, is not signed.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Skip when the pod has no DoNotSchedule constraint (its own, or default ones). Otherwise
  // counts, per constraint, the matching pods of each domain over `nodes` that have every
  // topology key and pass the constraint's inclusion policies, in one pass over their pods.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // Count `pod_to_add` (remove `pod_to_remove`) on `node` in PreFilter's state, for
  // preemption's what-if evaluation. Error when PreFilter wrote no state.
  Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node) override;
  Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_remove,
                   const NodeInfo& node) override;

  // For each constraint in order: UnschedulableAndUnresolvable kErrReasonNodeLabelNotMatch when
  // the node lacks the topology key; Unschedulable kErrReasonConstraintsNotMatch when the skew
  // would exceed maxSkew. O(constraints) per node.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Skip when the snapshot has no nodes or the pod has no ScheduleAnyway constraint (its own,
  // or default ones). Otherwise counts the matching pods of each domain that holds a feasible
  // node (hostname domains are counted in Score) over every node of the snapshot.
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;

  // Sum over the constraints whose topology key the node has of
  // count * log(domains + 2) + (maxSkew - 1), rounded: fewer matching pods, lower score.
  // 0 for a node that lacks a topology key (unless the constraints are the System defaults).
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override;

  // 100 * (max + min - score) / max: the fewest matching pods score 100; ignored nodes 0.
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;

  // Pod/Add|UpdatePodLabel|UpdatePodToleration|Delete: Queue when an assigned (or nominated)
  // pod of the namespace that a constraint's selector matches comes or goes, or changes labels
  // so that a selector's verdict flips; or when the rejected pod got new tolerations and a
  // constraint honours taints.
  // Node/Add|Delete|UpdateNodeLabel|UpdateNodeTaint: Queue when a node with every topology key
  // comes or goes, gains or loses one, changes a topology value, or changes taints.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  // The pod's constraints with `action`, or, when it has none at all, the default ones with
  // `action` and the pod's default selector (upstream's getConstraints / buildDefaultConstraints).
  std::vector<internal::Constraint> Constraints(const api::Pod& pod, std::string_view action) const;
  void UpdateWithPod(internal::PreFilterState& s, const api::Pod& updated,
                     const api::Pod& preemptor, const api::Node* node, int delta) const;
  int64_t ScoreNode(const internal::PreScoreState& s, const api::Pod& pod,
                    const NodeInfo& node) const;
  // internal::CountPodsMatchSelector over a node's classes of pods (classes_.Of), each class
  // matched once per cycle (`matches`, one per constraint).
  int CountMatching(const std::vector<helper::PodClasses::Count>& classes,
                    const internal::Constraint& c, std::string_view ns,
                    helper::PerClass<bool>& matches);
  QueueingHint AfterPodChange(const api::Pod& pod, const ClusterEventData& e) const;
  QueueingHint AfterNodeChange(const api::Pod& pod, const ClusterEventData& e) const;

  const Handle& handle_;
  std::vector<api::TopologySpreadConstraint> default_constraints_;
  bool system_defaulted_ = false;
  helper::PodClasses classes_;  // PreFilter's and PreScore's, on the scheduling thread.
};

absl::StatusOr<std::unique_ptr<Plugin>> New(const PodTopologySpreadArgs& args, Handle& handle);

}  // namespace ksched::plugins::pod_topology_spread
