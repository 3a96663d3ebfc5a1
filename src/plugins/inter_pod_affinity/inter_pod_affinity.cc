// InterPodAffinity's queueing hints and factory (upstream's plugin.go).
#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include "src/plugins/helper/node_filters.h"
#include "src/plugins/helper/signers.h"
#include "src/plugins/inter_pod_affinity/terms.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

bool Unassigned(const api::Pod& p) {
  return p.spec.node_name.empty() && p.status.nominated_node_name.empty();
}

// upstream's isSchedulableAfterPodChange.
QueueingHint AfterPodChange(const api::Pod& pod, const ClusterEventData& e) {
  const api::Pod* old_pod = e.old_pod;
  const api::Pod* new_pod = e.new_pod;
  if (old_pod == nullptr && new_pod == nullptr) return QueueingHint::kQueue;
  // The pod's own labels changed: its terms may now select itself.
  if (old_pod != nullptr && new_pod != nullptr && new_pod->metadata.uid == pod.metadata.uid) {
    return QueueingHint::kQueue;
  }
  // A pod that is not on a node (nor nominated to one) counts nowhere.
  if ((new_pod != nullptr && Unassigned(*new_pod)) ||
      (old_pod != nullptr && Unassigned(*old_pod))) {
    return QueueingHint::kQueueSkip;
  }
  const std::string& ns = pod.metadata.namespace_;
  const auto& terms = RequiredAffinityTerms(pod);
  const auto& anti_terms = RequiredAntiAffinityTerms(pod);
  if (old_pod != nullptr && new_pod != nullptr) {
    if (!SelectedByAll(terms, ns, *old_pod) && SelectedByAll(terms, ns, *new_pod)) {
      return QueueingHint::kQueue;
    }
    if (SelectedByAny(anti_terms, ns, *old_pod) && !SelectedByAny(anti_terms, ns, *new_pod)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (new_pod != nullptr) {
    return SelectedByAll(terms, ns, *new_pod) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  // Deleted: it may have been what the pod's anti-affinity avoided, or it avoided the pod.
  // Since 1.37 any anti-affinity term that selected it (1.36: all of them).
  if (SelectedByAny(anti_terms, ns, *old_pod)) return QueueingHint::kQueue;
  if (SelectedByAny(RequiredAntiAffinityTerms(*old_pod), old_pod->metadata.namespace_, pod)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

// upstream's isSchedulableAfterNodeChange.
QueueingHint AfterNodeChange(const api::Pod& pod, const ClusterEventData& e) {
  const api::Node* old_node = e.old_node;
  const api::Node* new_node = e.new_node;
  if (new_node == nullptr) return QueueingHint::kQueue;
  auto label = [](const api::Node& n, const std::string& key) {
    return helper::LabelValue(n.metadata.labels, key);
  };
  for (const api::PodAffinityTerm& t : RequiredAffinityTerms(pod)) {
    const std::string* now = label(*new_node, t.topology_key);
    if (old_node == nullptr) {
      if (now != nullptr) return QueueingHint::kQueue;  // A node in a domain the pod may want.
      continue;
    }
    const std::string* before = label(*old_node, t.topology_key);
    if ((before == nullptr && now != nullptr) ||
        (before != nullptr && now != nullptr && *before != *now)) {
      return QueueingHint::kQueue;
    }
  }
  for (const api::PodAffinityTerm& t : RequiredAntiAffinityTerms(pod)) {
    if (old_node == nullptr) return QueueingHint::kQueue;  // A new node may be a free domain.
    const std::string* before = label(*old_node, t.topology_key);
    const std::string* now = label(*new_node, t.topology_key);
    if ((before != nullptr && now == nullptr) ||
        (before != nullptr && now != nullptr && *before != *now)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace

std::vector<ClusterEventWithHint> InterPodAffinity::EventsToRegister() const {
  return {
      {{EventResource::kPod, ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete},
       AfterPodChange},
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel}, AfterNodeChange},
  };
}

Status InterPodAffinity::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  if (pod.spec.affinity &&
      (pod.spec.affinity->pod_affinity || pod.spec.affinity->pod_anti_affinity)) {
    return Status::Unschedulable("pods with InterPodAffinity are not signable");
  }
  // The pod's labels matter to the existing pods' terms, unless only pods with terms of their own
  // are scored.
  if (!args_.ignore_preferred_terms_of_existing_pods) {
    out->push_back({helper::kLabelsSigner, helper::SignLabels(pod.metadata.labels)});
  }
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const InterPodAffinityArgs& args, Handle& handle) {
  return std::make_unique<InterPodAffinity>(args, handle);
}

}  // namespace ksched::plugins::inter_pod_affinity
