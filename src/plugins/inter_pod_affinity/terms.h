// The pieces InterPodAffinity's filtering and scoring share: which pods a term selects, and counts
// per topology domain.
//
// A term selects a pod as upstream's fwk.AffinityTerm.Matches does: the pod's namespace is in the
// term's scope and its labels match the labelSelector (absent: no pod). The scope is the owner's
// namespace when the term lists no namespaces and has no namespaceSelector; otherwise the listed
// namespaces plus those the namespaceSelector matches.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "ksched/api/objects.h"
#include "ksched/handle.h"

namespace ksched::plugins::inter_pod_affinity {

// Whether `term`, written by a pod of `owner_ns`, selects `pod`, with `ns_labels` the labels of
// `pod`'s namespace (upstream's Matches(pod, nsLabels), used for existing pods' terms and hints).
bool Selects(const api::PodAffinityTerm& term, std::string_view owner_ns, const api::Pod& pod,
             const api::StringMap& ns_labels);

// The same for a term of the pod being scheduled, whose namespaceSelector upstream resolves
// against the cluster's Namespaces first (mergeAffinityTermNamespacesIfNotEmpty): `pod`'s
// namespace is in scope when its Namespace exists and matches, or when the selector matches
// an empty label set.
bool SelectsFromIncoming(const api::PodAffinityTerm& term, std::string_view owner_ns,
                         const api::Pod& pod, const Handle& handle);

// upstream's podMatchesAllAffinityTerms for `owner`'s terms: false when there are none.
bool SelectedByAll(const std::vector<api::PodAffinityTerm>& terms, std::string_view owner_ns,
                   const api::Pod& pod);

// The required or preferred terms of podAffinity / podAntiAffinity; empty when absent.
const std::vector<api::PodAffinityTerm>& RequiredAffinityTerms(const api::Pod& pod);
const std::vector<api::PodAffinityTerm>& RequiredAntiAffinityTerms(const api::Pod& pod);
const std::vector<api::WeightedPodAffinityTerm>& PreferredAffinityTerms(const api::Pod& pod);
const std::vector<api::WeightedPodAffinityTerm>& PreferredAntiAffinityTerms(const api::Pod& pod);

// Counts per topology domain (label key, value), as upstream's topologyToMatchedTermCount: a
// count that returns to zero is removed, so empty() means no domain counts. With kKeepZeros (for
// scores) a domain stays once touched, even at zero.
//
// Domains are views into what the snapshot holds for the scheduling cycle (the nodes' labels, their
// LabelDomains, the pods' terms): the counts are for that cycle only
// (StateScope::kSchedulingCycle).
class TopologyCounts {
 public:
  enum Zeros { kDropZeros, kKeepZeros };
  explicit TopologyCounts(Zeros zeros = kDropZeros) : keep_zeros_(zeros == kKeepZeros) {}

  // A node's value of a label key; nullptr where it has none.
  using ValueOf = absl::FunctionRef<const std::string*(std::string_view key)>;

  // Adds `delta` to the node's domain of `key`; nothing when the node lacks the label.
  void Add(const api::Node& node, std::string_view key, int64_t delta);
  // The same for the domain (key, value), both held as long as the counts (as the labels are).
  void Add(std::string_view key, std::string_view value, int64_t delta);
  int64_t Get(std::string_view key, std::string_view value) const;
  // Whether any of the node's values names a domain with a positive count.
  bool AnyPositive(ValueOf value_of) const;
  // The sum of the counts of the node's domains.
  int64_t Sum(const api::Node& node) const;
  bool empty() const { return counts_.empty(); }

 private:
  // absl's string_view, for absl's hash (Debian's abseil hashes std::string_view with std::hash).
  absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>, int64_t> counts_;
  // The keys counted under, with their number of domains: few, so a vector.
  std::vector<std::pair<std::string_view, size_t>> keys_;
  bool keep_zeros_;
};

}  // namespace ksched::plugins::inter_pod_affinity
