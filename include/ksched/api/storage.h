// The storage.k8s.io/v1 objects the volume plugins read (StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity, VolumeAttachment), part of the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/meta.h"
#include "ksched/api/quantity.h"

namespace ksched::api {

// --- Storage (storage.k8s.io/v1) -------------------------------------------------------------

// core/v1 TopologySelectorTerm: ANDed requirements that a label's value be one of `values`.
struct TopologySelectorRequirement {
  std::string key;
  std::vector<std::string> values;
};
struct TopologySelectorTerm {
  std::vector<TopologySelectorRequirement> match_label_expressions;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  // Immediate (the API server's default) or WaitForFirstConsumer.
  std::string volume_binding_mode = "Immediate";
  std::vector<TopologySelectorTerm> allowed_topologies;  // ORed; none allows every node.
};

struct CSINodeDriver {
  std::string name;
  std::string node_id;
  std::vector<std::string> topology_keys;
  std::optional<int32_t> allocatable_count;  // allocatable.count: the volumes the node can attach.
};
struct CSINode {
  ObjectMeta metadata;  // Named as its node.
  std::vector<CSINodeDriver> drivers;
};

struct CSIDriver {
  ObjectMeta metadata;
  std::optional<bool> attach_required;  // Defaults to true.
  std::optional<bool> storage_capacity;
  // Pods may not go to a node whose CSINode lacks the driver (the VolumeLimitScaling gate).
  std::optional<bool> prevent_pod_scheduling_if_missing;
};

struct CSIStorageCapacity {
  ObjectMeta metadata;
  std::string storage_class_name;
  std::optional<LabelSelector> node_topology;  // Absent: no node has access.
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximum_volume_size;
};

struct VolumeAttachment {
  ObjectMeta metadata;
  std::string attacher;
  std::string node_name;
  std::string persistent_volume_name;  // spec.source.persistentVolumeName
};

}  // namespace ksched::api
