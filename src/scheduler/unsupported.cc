#include "src/scheduler/unsupported.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "ksched/api/selectors.h"
#include "src/plugins/names.h"

namespace ksched::scheduler {
namespace {

namespace names = plugins::names;

Status Rejected(std::string_view field, std::string_view plugin) {
  return Status::UnschedulableAndUnresolvable(
             fmt::format("{} is not supported by ksched yet (kube-scheduler's {} plugin)", field,
                         plugin))
      .WithPlugin(plugin);
}

bool HasTerms(const std::optional<api::PodAffinity>& a) {
  return a && (!a->required_during_scheduling_ignored_during_execution.empty() ||
               !a->preferred_during_scheduling_ignored_during_execution.empty());
}

// Whether an existing pod's required anti-affinity term could select `pod`: its label selector
// matches and `pod`'s namespace is in the term's scope. A namespaceSelector is taken to match
// every namespace, so that a pod is held back rather than placed wrongly.
bool CouldSelect(const api::PodAffinityTerm& term, const api::Pod& owner, const api::Pod& pod) {
  if (!term.label_selector || !api::Matches(*term.label_selector, pod.metadata.labels)) {
    return false;
  }
  if (term.namespace_selector) return true;
  if (term.namespaces.empty()) return pod.metadata.namespace_ == owner.metadata.namespace_;
  return std::find(term.namespaces.begin(), term.namespaces.end(), pod.metadata.namespace_) !=
         term.namespaces.end();
}

}  // namespace

Status UnsupportedFields(const api::Pod& pod, const Snapshot& snapshot) {
  const api::PodSpec& spec = pod.spec;
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const api::Volume& v = spec.volumes[i];
    if (v.source == "persistentVolumeClaim" || (v.source == "ephemeral" && v.ephemeral_claim)) {
      return Rejected(fmt::format("spec.volumes[{}].{}", i, v.source), names::kVolumeBinding);
    }
  }
  if (!spec.resource_claims.empty()) {
    return Rejected("spec.resourceClaims", names::kDynamicResources);
  }
  if (spec.affinity && HasTerms(spec.affinity->pod_affinity)) {
    return Rejected("spec.affinity.podAffinity", names::kInterPodAffinity);
  }
  if (spec.affinity && HasTerms(spec.affinity->pod_anti_affinity)) {
    return Rejected("spec.affinity.podAntiAffinity", names::kInterPodAffinity);
  }
  for (const NodeInfo* ni : snapshot.nodes_with_required_anti_affinity_pods()) {
    for (const auto& info : ni->pods_with_required_anti_affinity()) {
      const api::Pod& owner = *info->pod;
      for (const api::PodAffinityTerm& term :
           owner.spec.affinity->pod_anti_affinity
               ->required_during_scheduling_ignored_during_execution) {
        if (!CouldSelect(term, owner, pod)) continue;
        return Rejected(fmt::format("spec.affinity.podAntiAffinity of pod {}/{}, which selects "
                                    "this pod,",
                                    owner.metadata.namespace_, owner.metadata.name),
                        names::kInterPodAffinity);
      }
    }
  }
  return Status();
}

}  // namespace ksched::scheduler
