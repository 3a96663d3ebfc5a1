#include "src/plugins/inter_pod_affinity/terms.h"

#include <algorithm>

#include "ksched/api/selectors.h"
#include "src/base/strings.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

enum class Scope { kIn, kOut, kBySelector };

// The part of a term's namespace scope that needs no labels.
Scope ScopeOf(const api::PodAffinityTerm& term, std::string_view owner_ns, std::string_view ns) {
  if (term.namespaces.empty() && !term.namespace_selector) {
    return ns == owner_ns ? Scope::kIn : Scope::kOut;
  }
  if (std::find(term.namespaces.begin(), term.namespaces.end(), ns) != term.namespaces.end()) {
    return Scope::kIn;
  }
  return term.namespace_selector ? Scope::kBySelector : Scope::kOut;
}

bool LabelsMatch(const api::PodAffinityTerm& term, const api::Pod& pod) {
  return term.label_selector && api::Matches(*term.label_selector, pod.metadata.labels);
}

const api::StringMap kNoLabels;
const std::vector<api::PodAffinityTerm> kNoTerms;
const std::vector<api::WeightedPodAffinityTerm> kNoWeightedTerms;

}  // namespace

bool Selects(const api::PodAffinityTerm& term, std::string_view owner_ns, const api::Pod& pod,
             const api::StringMap& ns_labels) {
  switch (ScopeOf(term, owner_ns, pod.metadata.namespace_)) {
    case Scope::kIn:
      return LabelsMatch(term, pod);
    case Scope::kOut:
      return false;
    case Scope::kBySelector:
      return api::Matches(*term.namespace_selector, ns_labels) && LabelsMatch(term, pod);
  }
  return false;
}

bool SelectsFromIncoming(const api::PodAffinityTerm& term, std::string_view owner_ns,
                         const api::Pod& pod, const Handle& handle) {
  switch (ScopeOf(term, owner_ns, pod.metadata.namespace_)) {
    case Scope::kIn:
      return LabelsMatch(term, pod);
    case Scope::kOut:
      return false;
    case Scope::kBySelector:
      break;
  }
  if (!LabelsMatch(term, pod)) return false;
  // Upstream adds the names of the matching Namespaces to the term's namespaces, and keeps the
  // selector, which then meets the empty label set of Matches(pod, nil).
  if (api::Matches(*term.namespace_selector, kNoLabels)) return true;
  std::shared_ptr<const api::Namespace> ns = handle.GetNamespace(pod.metadata.namespace_);
  return ns != nullptr && api::Matches(*term.namespace_selector, ns->metadata.labels);
}

bool SelectedByAll(const std::vector<api::PodAffinityTerm>& terms, std::string_view owner_ns,
                   const api::Pod& pod) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(), [&](const api::PodAffinityTerm& t) {
    return Selects(t, owner_ns, pod, kNoLabels);
  });
}

const std::vector<api::PodAffinityTerm>& RequiredAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return kNoTerms;
  return a->pod_affinity->required_during_scheduling_ignored_during_execution;
}

const std::vector<api::PodAffinityTerm>& RequiredAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return kNoTerms;
  return a->pod_anti_affinity->required_during_scheduling_ignored_during_execution;
}

const std::vector<api::WeightedPodAffinityTerm>& PreferredAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return kNoWeightedTerms;
  return a->pod_affinity->preferred_during_scheduling_ignored_during_execution;
}

const std::vector<api::WeightedPodAffinityTerm>& PreferredAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return kNoWeightedTerms;
  return a->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution;
}

void TopologyCounts::Add(const api::Node& node, std::string_view key, int64_t delta) {
  auto label = node.metadata.labels.find(key);
  if (label != node.metadata.labels.end()) Add(label->first, label->second, delta);
}

void TopologyCounts::Add(std::string_view key, std::string_view value, int64_t delta) {
  auto [it, inserted] = counts_.try_emplace({AsAbsl(key), AsAbsl(value)}, 0);
  auto known =
      std::find_if(keys_.begin(), keys_.end(), [&](const auto& e) { return e.first == key; });
  if (inserted) {
    if (known == keys_.end()) known = keys_.insert(known, {key, 0});
    ++known->second;
  }
  it->second += delta;
  if (it->second == 0 && !keep_zeros_) {
    counts_.erase(it);
    if (--known->second == 0) keys_.erase(known);
  }
}

int64_t TopologyCounts::Get(std::string_view key, std::string_view value) const {
  auto it = counts_.find(std::pair(AsAbsl(key), AsAbsl(value)));
  return it == counts_.end() ? 0 : it->second;
}

bool TopologyCounts::AnyPositive(ValueOf value_of) const {
  for (const auto& [key, domains] : keys_) {
    const std::string* value = value_of(key);
    if (value != nullptr && Get(key, *value) > 0) return true;
  }
  return false;
}

int64_t TopologyCounts::Sum(const api::Node& node) const {
  int64_t sum = 0;
  for (const auto& [key, domains] : keys_) {
    auto label = node.metadata.labels.find(key);
    if (label != node.metadata.labels.end()) sum += Get(key, label->second);
  }
  return sum;
}

}  // namespace ksched::plugins::inter_pod_affinity
