// The plugin's construction, its constraints and its queueing hints (upstream's plugin.go).
// PreFilter and Filter are in filtering.cc, PreScore and Score in scoring.cc.
#include "src/plugins/pod_topology_spread/pod_topology_spread.h"

#include <algorithm>
#include <utility>

#include "src/plugins/helper/node_filters.h"

namespace ksched::plugins::pod_topology_spread {

using internal::Constraint;

namespace {

std::vector<api::TopologySpreadConstraint> SystemDefaultConstraints() {
  return {{.max_skew = 3,
           .topology_key = internal::kLabelHostname,
           .when_unsatisfiable = std::string(internal::kScheduleAnyway)},
          {.max_skew = 5,
           .topology_key = internal::kLabelTopologyZone,
           .when_unsatisfiable = std::string(internal::kScheduleAnyway)}};
}

// Whether `incoming` bears on the spreading of `pod`: it is `pod` itself, or a pod of the same
// namespace that is assigned or nominated to a node.
bool InvolvedInTopologySpreading(const api::Pod& incoming, const api::Pod& pod) {
  if (incoming.metadata.uid == pod.metadata.uid) return true;
  if (incoming.spec.node_name.empty() && incoming.status.nominated_node_name.empty()) return false;
  return incoming.metadata.namespace_ == pod.metadata.namespace_;
}

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const api::Toleration& x, const api::Toleration& y) {
                      return x.key == y.key && x.op == y.op && x.value == y.value &&
                             x.effect == y.effect && x.toleration_seconds == y.toleration_seconds;
                    });
}

bool SameTaints(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const api::Taint& x, const api::Taint& y) {
                      return x.key == y.key && x.value == y.value && x.effect == y.effect &&
                             x.time_added == y.time_added;
                    });
}

// Whether any constraint's topology value differs between the two label sets.
bool TopologyValuesChanged(const api::StringMap& old_labels, const api::StringMap& new_labels,
                           const std::vector<Constraint>& constraints) {
  for (const Constraint& c : constraints) {
    const std::string* o = helper::LabelValue(old_labels, c.topology_key);
    const std::string* n = helper::LabelValue(new_labels, c.topology_key);
    // An absent label reads as "", as a Go map's zero value.
    if ((o ? *o : std::string()) != (n ? *n : std::string())) return true;
  }
  return false;
}

}  // namespace

PodTopologySpread::PodTopologySpread(const PodTopologySpreadArgs& args, const Handle& handle)
    : handle_(handle), default_constraints_(args.default_constraints) {
  if (args.defaulting_type == DefaultingType::kSystem) {
    default_constraints_ = SystemDefaultConstraints();
    system_defaulted_ = true;
  }
}

std::vector<Constraint> PodTopologySpread::Constraints(const api::Pod& pod,
                                                       std::string_view action) const {
  if (!pod.spec.topology_spread_constraints.empty()) {
    return internal::ParseConstraints(pod.spec.topology_spread_constraints, pod.metadata.labels,
                                      action);
  }
  std::vector<Constraint> constraints =
      internal::ParseConstraints(default_constraints_, pod.metadata.labels, action);
  if (constraints.empty()) return constraints;
  internal::Selector selector = internal::DefaultSelector(pod, handle_);
  if (selector.Empty()) return {};
  for (Constraint& c : constraints) c.selector = selector;
  return constraints;
}

// --- Queueing hints ----------------------------------------------------------------------------

std::vector<ClusterEventWithHint> PodTopologySpread::EventsToRegister() const {
  auto pod_hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    return AfterPodChange(pod, e);
  };
  auto node_hint = [this](const api::Pod& pod, const ClusterEventData& e) {
    return AfterNodeChange(pod, e);
  };
  return {
      {{EventResource::kPod, ActionType::kAdd | ActionType::kUpdatePodLabel |
                                 ActionType::kUpdatePodToleration | ActionType::kDelete},
       pod_hint},
      {{EventResource::kNode, ActionType::kAdd | ActionType::kDelete |
                                  ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint},
       node_hint},
  };
}

QueueingHint PodTopologySpread::AfterPodChange(const api::Pod& pod,
                                               const ClusterEventData& e) const {
  const api::Pod* old_pod = e.old_pod;
  const api::Pod* new_pod = e.new_pod;
  if (old_pod == nullptr && new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected.
  if ((new_pod != nullptr && !InvolvedInTopologySpreading(*new_pod, pod)) ||
      (old_pod != nullptr && !InvolvedInTopologySpreading(*old_pod, pod))) {
    return QueueingHint::kQueueSkip;
  }
  const std::vector<Constraint> constraints = Constraints(pod, internal::kDoNotSchedule);

  if (old_pod != nullptr && new_pod != nullptr) {
    // The rejected pod itself got other tolerations: a node its taints kept out may count now.
    const bool honors_taints = std::any_of(constraints.begin(), constraints.end(),
                                           [](const Constraint& c) { return c.honor_node_taints; });
    if (pod.metadata.uid == new_pod->metadata.uid &&
        !SameTolerations(new_pod->spec.tolerations, old_pod->spec.tolerations) && honors_taints) {
      return QueueingHint::kQueue;
    }
    if (new_pod->metadata.labels == old_pod->metadata.labels) return QueueingHint::kQueueSkip;
    // Queue when the update makes the pod match, or stop matching, a constraint's selector.
    for (const Constraint& c : constraints) {
      if (c.selector.Matches(old_pod->metadata.labels) !=
          c.selector.Matches(new_pod->metadata.labels)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  }
  // Added or deleted: Queue when a constraint's selector matches it.
  const api::Pod& changed = new_pod != nullptr ? *new_pod : *old_pod;
  return internal::MatchesAnySelector(constraints, changed.metadata.labels)
             ? QueueingHint::kQueue
             : QueueingHint::kQueueSkip;
}

QueueingHint PodTopologySpread::AfterNodeChange(const api::Pod& pod,
                                                const ClusterEventData& e) const {
  const api::Node* old_node = e.old_node;
  const api::Node* new_node = e.new_node;
  if (old_node == nullptr && new_node == nullptr) return QueueingHint::kQueue;  // Unexpected.
  const std::vector<Constraint> constraints = Constraints(pod, internal::kDoNotSchedule);
  const bool old_matching = old_node != nullptr && internal::NodeHasAllTopologyKeys(
                                                       old_node->metadata.labels, constraints);
  const bool new_matching = new_node != nullptr && internal::NodeHasAllTopologyKeys(
                                                       new_node->metadata.labels, constraints);

  if (old_node != nullptr && new_node != nullptr) {  // Updated.
    if (old_matching != new_matching) return QueueingHint::kQueue;
    if (new_matching &&
        (TopologyValuesChanged(old_node->metadata.labels, new_node->metadata.labels, constraints) ||
         !SameTaints(old_node->spec.taints, new_node->spec.taints))) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (new_node != nullptr) return new_matching ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  return old_matching ? QueueingHint::kQueue : QueueingHint::kQueueSkip;  // Deleted.
}

Status PodTopologySpread::SignPod(const api::Pod& pod, std::vector<SignFragment>*) const {
  if (!pod.spec.topology_spread_constraints.empty()) {
    return Status::Unschedulable("pods with topology constraints are not signable");
  }
  if (!default_constraints_.empty()) {
    return Status::Unschedulable("pods with default topology constraints are not signable");
  }
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PodTopologySpreadArgs& args, Handle& handle) {
  return std::make_unique<PodTopologySpread>(args, handle);
}

}  // namespace ksched::plugins::pod_topology_spread
