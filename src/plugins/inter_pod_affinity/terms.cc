#include "src/plugins/inter_pod_affinity/terms.h"

#include <algorithm>

#include "ksched/api/selectors.h"
#include "ksched/strings.h"
#include "src/plugins/helper/node_filters.h"

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
  // Upstream adds the names of the matching Namespaces to the term's namespaces and sets the
  // selector to match nothing; an empty selector stays, and matches every namespace. (Until 1.37
  // it kept the selector, which then met the empty label set of Matches(pod, nil).)
  const api::LabelSelector& selector = *term.namespace_selector;
  if (selector.match_labels.empty() && selector.match_expressions.empty()) return true;
  std::shared_ptr<const api::Namespace> ns = handle.GetNamespace(pod.metadata.namespace_);
  return ns != nullptr && api::Matches(selector, ns->metadata.labels);
}

bool SelectedByAll(const std::vector<api::PodAffinityTerm>& terms, std::string_view owner_ns,
                   const api::Pod& pod) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(), [&](const api::PodAffinityTerm& t) {
    return Selects(t, owner_ns, pod, kNoLabels);
  });
}

bool SelectedByAny(const std::vector<api::PodAffinityTerm>& terms, std::string_view owner_ns,
                   const api::Pod& pod) {
  return std::any_of(terms.begin(), terms.end(), [&](const api::PodAffinityTerm& t) {
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

void TopologyCounts::UseDomains(std::string_view key, const LabelDomains& domains) {
  KeyCounts* k = Find(key);
  if (k == nullptr) k = &keys_.emplace_back(KeyCounts{.key = key});
  if (k->domains != nullptr) return;  // Once: its counts stay.
  k->domains = &domains;
  k->by_index.assign(domains.values.size(), 0);
}

TopologyCounts::KeyCounts* TopologyCounts::Find(std::string_view key) {
  for (KeyCounts& k : keys_) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

const TopologyCounts::KeyCounts* TopologyCounts::Find(std::string_view key) const {
  return const_cast<TopologyCounts*>(this)->Find(key);
}

int32_t TopologyCounts::IndexOf(const KeyCounts& k, std::string_view value) {
  if (k.domains == nullptr) return LabelDomains::kNoValue;
  // By value, from a node the snapshot does not hold (InterPodAffinity gives the place of a
  // snapshot node's copy): rare, so a linear search rather than an index of every value.
  const std::vector<std::string>& values = k.domains->values;
  auto it = std::find(values.begin(), values.end(), value);
  return it == values.end() ? LabelDomains::kNoValue : static_cast<int32_t>(it - values.begin());
}

void TopologyCounts::Change(KeyCounts& k, int64_t& count, int64_t delta) {
  touched_ = true;
  const bool was_zero = count == 0;
  count += delta;
  if (was_zero != (count == 0)) {
    const size_t one = 1;
    k.nonzero += was_zero ? one : -one;
    nonzero_ += was_zero ? one : -one;
  }
}

void TopologyCounts::Add(std::string_view key, NodeDomain domain, int64_t delta) {
  if (domain.value == nullptr) return;
  KeyCounts* k = Find(key);
  if (k != nullptr && domain.index != LabelDomains::kNoValue && k->domains == domain.domains) {
    Change(*k, k->by_index[domain.index], delta);
    return;
  }
  Add(key, std::string_view(*domain.value), delta);
}

void TopologyCounts::Add(std::string_view key, std::string_view value, int64_t delta) {
  KeyCounts* k = Find(key);
  if (k == nullptr) k = &keys_.emplace_back(KeyCounts{.key = key});
  if (int32_t i = IndexOf(*k, value); i != LabelDomains::kNoValue) {
    Change(*k, k->by_index[i], delta);
    return;
  }
  auto it = k->by_value.try_emplace(AsAbsl(value), 0).first;
  Change(*k, it->second, delta);
  if (it->second == 0 && !keep_zeros_) k->by_value.erase(it);
}

int64_t TopologyCounts::Get(std::string_view key, NodeDomain domain) const {
  if (domain.value == nullptr) return 0;
  const KeyCounts* k = Find(key);
  if (k == nullptr) return 0;
  if (domain.index != LabelDomains::kNoValue && k->domains == domain.domains) {
    return k->by_index[domain.index];
  }
  return Get(key, std::string_view(*domain.value));
}

int64_t TopologyCounts::Get(std::string_view key, std::string_view value) const {
  const KeyCounts* k = Find(key);
  if (k == nullptr) return 0;
  if (int32_t i = IndexOf(*k, value); i != LabelDomains::kNoValue) return k->by_index[i];
  auto it = k->by_value.find(AsAbsl(value));
  return it == k->by_value.end() ? 0 : it->second;
}

bool TopologyCounts::AnyPositive(
    absl::FunctionRef<NodeDomain(std::string_view key)> domain_of) const {
  for (const KeyCounts& k : keys_) {
    if (k.nonzero > 0 && Get(k.key, domain_of(k.key)) > 0) return true;
  }
  return false;
}

int64_t TopologyCounts::Sum(absl::FunctionRef<NodeDomain(std::string_view key)> domain_of) const {
  int64_t sum = 0;
  for (const KeyCounts& k : keys_) sum += Get(k.key, domain_of(k.key));
  return sum;
}

NodeDomain NodeValues::operator()(std::string_view key) const {
  if (place_ >= 0) {
    for (const auto& [k, d] : domains_) {
      if (k == key) return {.value = d->ValueAt(place_), .domains = d, .index = d->domain[place_]};
    }
  }
  return {.value = helper::LabelValue(node_.metadata.labels, key)};
}

void CountByDomains(KeyDomains& domains, const Snapshot& snapshot, std::string_view key,
                    TopologyCounts& counts) {
  auto d =
      std::find_if(domains.begin(), domains.end(), [&](const auto& d) { return d.first == key; });
  if (d == domains.end()) d = domains.emplace(d, key, &snapshot.NodeLabelDomains(key));
  counts.UseDomains(key, *d->second);
}

}  // namespace ksched::plugins::inter_pod_affinity
