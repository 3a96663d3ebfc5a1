// Matching of label selectors, node selectors and tolerations, with the API's semantics.
//
//   if (!Matches(*term.label_selector, pod.metadata.labels)) continue;
//   bool fits = Matches(*affinity.required_during_scheduling_ignored_during_execution, node);
//
// The decoder (src/api/decode.h) has already rejected unknown operators and malformed values,
// as the API server's validation does; the functions here treat anything left over as no match.
// Thread safety: pure functions.
#pragma once

#include "ksched/api/objects.h"

namespace ksched::api {

// metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist),
// ANDed. An empty selector matches every set of labels.
bool Matches(const LabelSelector& selector, const StringMap& labels);

// One requirement against a label set. NotIn and DoesNotExist match when the key is absent.
// Gt and Lt compare the label and values[0] as integers; a label that is not one fails.
bool Matches(const NodeSelectorRequirement& requirement, const StringMap& labels);

// matchExpressions against the node's labels and matchFields against metadata.name, ANDed.
// A term with no requirements matches no node.
bool Matches(const NodeSelectorTerm& term, const Node& node);

// The terms are ORed; a selector with no terms matches no node.
bool Matches(const NodeSelector& selector, const Node& node);

// core/v1 Toleration.ToleratesTaint: an empty effect matches all effects, an empty key with
// Exists matches all keys, Equal (or an empty operator) compares values.
bool ToleratesTaint(const Toleration& toleration, const Taint& taint);

// Whether any of the tolerations tolerates the taint.
bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

}  // namespace ksched::api
