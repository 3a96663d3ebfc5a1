// What every object has (ObjectMeta) and the selectors objects share (meta/v1 LabelSelector,
// core/v1 NodeSelector), part of the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/quantity.h"

namespace ksched::api {

// Ordered so that every listing of labels and resources is deterministic.
using StringMap = std::map<std::string, std::string, std::less<>>;
using ResourceList = std::map<std::string, Quantity, std::less<>>;

// Well-known resource names.
inline constexpr char kResourceCPU[] = "cpu";
inline constexpr char kResourceMemory[] = "memory";
inline constexpr char kResourceEphemeralStorage[] = "ephemeral-storage";
inline constexpr char kResourcePods[] = "pods";

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;  // Where an object is yet to be made, with a name from this prefix.
  std::string namespace_;     // "namespace" is a C++ keyword.
  std::string uid;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::string creation_timestamp;                 // RFC 3339, as the API writes it.
  std::optional<std::string> deletion_timestamp;  // Set once deletion has begun.
  std::string resource_version;
};

// An object's key in the informers' form (client-go's MetaNamespaceKeyFunc): "namespace/name", or
// the name of a cluster-scoped object.
inline std::string KeyOf(const ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

// The owner reference marked as the controller, the first if several are; nullptr without one
// (metav1.GetControllerOf).
inline const OwnerReference* ControllerOf(const ObjectMeta& m) {
  for (const OwnerReference& o : m.owner_references) {
    if (o.controller) return &o;
  }
  return nullptr;
}

// --- Selectors -----------------------------------------------------------------------------

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist.
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

// metav1.LabelSelector. An empty selector matches everything; where the API has a *LabelSelector,
// the field is std::optional and an absent selector matches nothing.
struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool operator==(const LabelSelector&) const = default;
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt.
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // Only the key metadata.name is defined.
};

// Terms are ORed; the requirements of one term are ANDed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
};

}  // namespace ksched::api
