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
#include "ksched/snapshot.h"

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
// upstream's podMatchesAnyAffinityTerms (its anti-affinity hints since 1.37).
bool SelectedByAny(const std::vector<api::PodAffinityTerm>& terms, std::string_view owner_ns,
                   const api::Pod& pod);

// The required or preferred terms of podAffinity / podAntiAffinity; empty when absent.
const std::vector<api::PodAffinityTerm>& RequiredAffinityTerms(const api::Pod& pod);
const std::vector<api::PodAffinityTerm>& RequiredAntiAffinityTerms(const api::Pod& pod);
const std::vector<api::WeightedPodAffinityTerm>& PreferredAffinityTerms(const api::Pod& pod);
const std::vector<api::WeightedPodAffinityTerm>& PreferredAntiAffinityTerms(const api::Pod& pod);

// A node's domain of a topology key: its label value (nullptr: the node lacks the label) and, for a
// node of the snapshot, its index in `domains`, the snapshot's LabelDomains of the key. Counts that
// keep the key by those domains (TopologyCounts::UseDomains) go by the index, others by the value.
struct NodeDomain {
  const std::string* value = nullptr;
  const LabelDomains* domains = nullptr;
  int32_t index = LabelDomains::kNoValue;
};

// The snapshot's LabelDomains of the topology keys a cycle counts under.
using KeyDomains = std::vector<std::pair<std::string_view, const LabelDomains*>>;

// A node's domains: the node at `place` in the snapshot's nodes() (helper::PlaceForLabels) finds
// those of the keys in `domains` in them, by index; any other node or key, by its label values.
class NodeValues {
 public:
  NodeValues(const KeyDomains& domains, const api::Node& node, int32_t place)
      : domains_(domains), node_(node), place_(place) {}
  NodeDomain operator()(std::string_view key) const;

 private:
  const KeyDomains& domains_;
  const api::Node& node_;
  const int32_t place_;
};

class TopologyCounts;
// Has `counts` count `key` by the snapshot's domains of it, added to `domains` unless there.
void CountByDomains(KeyDomains& domains, const Snapshot& snapshot, std::string_view key,
                    TopologyCounts& counts);

// Counts per topology domain (label key, value), as upstream's topologyToMatchedTermCount: a
// count that returns to zero is removed, so empty() means no domain counts. With kKeepZeros (for
// scores) a domain stays once touched, even at zero.
//
// A key given UseDomains is counted in an array by domain index, so that a snapshot node's domain
// is found by its index rather than by hashing its value; other keys, and values its domains lack,
// in a hash map by value. Domains are views into what the snapshot holds for the scheduling cycle
// (the nodes' labels, their LabelDomains, the pods' terms): the counts are for that cycle only
// (StateScope::kSchedulingCycle).
class TopologyCounts {
 public:
  enum Zeros { kDropZeros, kKeepZeros };
  explicit TopologyCounts(Zeros zeros = kDropZeros) : keep_zeros_(zeros == kKeepZeros) {}

  // Counts `key` by the index of its domains in `domains` from now on; before any count under it.
  // Later calls for the key change nothing.
  void UseDomains(std::string_view key, const LabelDomains& domains);

  // Adds `delta` to the node's domain of `key`; nothing when the node lacks the label.
  void Add(std::string_view key, NodeDomain domain, int64_t delta);
  // The same for the domain (key, value), both held as long as the counts (as the labels are).
  void Add(std::string_view key, std::string_view value, int64_t delta);
  int64_t Get(std::string_view key, NodeDomain domain) const;
  int64_t Get(std::string_view key, std::string_view value) const;
  // Whether any of the node's domains has a positive count.
  bool AnyPositive(absl::FunctionRef<NodeDomain(std::string_view key)> domain_of) const;
  // The sum of the counts of the node's domains.
  int64_t Sum(absl::FunctionRef<NodeDomain(std::string_view key)> domain_of) const;
  bool empty() const { return keep_zeros_ ? !touched_ : nonzero_ == 0; }

 private:
  struct KeyCounts {
    std::string_view key;
    const LabelDomains* domains = nullptr;  // With UseDomains: `by_index` counts its domains.
    std::vector<int64_t> by_index;
    // absl's string_view, for absl's hash (Debian's abseil hashes std::string_view with std::hash).
    absl::flat_hash_map<absl::string_view, int64_t> by_value;
    size_t nonzero = 0;  // Domains whose count is not zero.
  };
  KeyCounts* Find(std::string_view key);
  const KeyCounts* Find(std::string_view key) const;
  // The domain `value` has in k's LabelDomains, or kNoValue.
  static int32_t IndexOf(const KeyCounts& k, std::string_view value);
  void Change(KeyCounts& k, int64_t& count, int64_t delta);

  std::vector<KeyCounts> keys_;  // Few: a vector.
  size_t nonzero_ = 0;
  bool touched_ = false;
  bool keep_zeros_;
};

}  // namespace ksched::plugins::inter_pod_affinity
