// The Kubernetes objects the scheduler reads, as plain C++ values.
//
// Field names follow the real API (core/v1) in snake_case; only the fields a scheduler looks at are
// kept. Optional API fields that have no zero value with the same meaning are std::optional (an
// absent `priority` is not a priority of 0). Objects are decoded from the API's JSON by
// src/api/decode.h; plugins only read them.
//
//   const Pod& pod = ...;
//   for (const Container& c : pod.spec.containers) { ... c.resources.requests ... }
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/boxed.h"
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
  std::string namespace_;  // "namespace" is a C++ keyword.
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

// --- Affinity ------------------------------------------------------------------------------

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  std::optional<NodeSelector> required_during_scheduling_ignored_during_execution;
  std::vector<PreferredSchedulingTerm> preferred_during_scheduling_ignored_during_execution;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;

  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm pod_affinity_term;

  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

// Used for both podAffinity and podAntiAffinity, which have the same shape.
struct PodAffinity {
  std::vector<PodAffinityTerm> required_during_scheduling_ignored_during_execution;
  std::vector<WeightedPodAffinityTerm> preferred_during_scheduling_ignored_during_execution;

  bool operator==(const PodAffinity&) const = default;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

// --- Taints and tolerations ----------------------------------------------------------------

inline constexpr char kTaintEffectNoSchedule[] = "NoSchedule";
inline constexpr char kTaintEffectPreferNoSchedule[] = "PreferNoSchedule";
inline constexpr char kTaintEffectNoExecute[] = "NoExecute";

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::string time_added;
};

struct Toleration {
  std::string key;
  std::string op;  // Equal (also when empty) or Exists.
  std::string value;
  std::string effect;  // Empty matches every effect.
  std::optional<int64_t> toleration_seconds;
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule or ScheduleAnyway.
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;  // Honor or Ignore.
  std::optional<std::string> node_taints_policy;    // Honor or Ignore.
  std::vector<std::string> match_label_keys;
};

// --- Containers and volumes ----------------------------------------------------------------

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0: not exposed on the host.
  std::string host_ip;
  std::string protocol = "TCP";
};

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
};

inline constexpr char kContainerRestartPolicyAlways[] = "Always";

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  // Set only on init containers; "Always" makes an init container a sidecar.
  std::optional<std::string> restart_policy;
};

// The volume sources the volume plugins look at. `source` names the source field that was set
// ("persistentVolumeClaim", "csi", "emptyDir", ...), including sources that have no fields here.
struct Volume {
  std::string name;
  std::string source;
  std::string claim_name;  // persistentVolumeClaim.claimName
  bool read_only = false;  // readOnly of the source, where it has one.
  std::string csi_driver;  // csi.driver
  // ephemeral.volumeClaimTemplate is present; the PVC is named "<pod>-<volume>".
  bool ephemeral_claim = false;
  // The disk VolumeRestrictions compares and NodeVolumeLimits counts: gcePersistentDisk.pdName,
  // awsElasticBlockStore.volumeID, iscsi.iqn, rbd "<pool>/<image>" (pool defaulted to "rbd", as
  // the API server does), azureDisk.diskURI, cinder.volumeID and portworxVolume.volumeID.
  std::string disk_id;
  // azureDisk.kind, defaulted to "Shared" as the API server does.
  std::string azure_disk_kind;
  std::vector<std::string> rbd_monitors;
};

// --- Pod -----------------------------------------------------------------------------------

struct PodSchedulingGate {
  std::string name;
};

// spec.resourceClaims[]: a DRA claim the pod needs, named in the pod as `name`: an existing
// ResourceClaim, or one the resourceclaim controller makes from a template (its name is then in
// status.resourceClaimStatuses).
struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
};

// status.resourceClaimStatuses[]: the claim made for a template (none where none is needed).
struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
};

struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_transition_time;
};

struct PodSpec {
  std::string scheduler_name;
  std::string node_name;
  StringMap node_selector;
  Boxed<Affinity> affinity;  // On the heap: few pods have one.
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority or Never.
  ResourceList overhead;
  std::vector<PodSchedulingGate> scheduling_gates;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Volume> volumes;
  std::vector<PodResourceClaim> resource_claims;
  Boxed<ResourceRequirements> resources;  // Pod-level resources; on the heap: few pods have them.
};

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::string start_time;  // RFC 3339, set by the kubelet; "" until the pod starts.
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

// The pod's priority, 0 when it has none (upstream's corev1helpers.PodPriority).
inline int32_t PodPriority(const Pod& pod) { return pod.spec.priority.value_or(0); }

// --- Node ----------------------------------------------------------------------------------

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<ContainerImage> images;
  std::vector<NodeCondition> conditions;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

// --- Namespace, PriorityClass ----------------------------------------------------------------

struct Namespace {
  ObjectMeta metadata;  // Plugins read its labels (namespaceSelector).
};

// scheduling.k8s.io/v1 PriorityClass.
struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority (the default) or Never.
};

// --- Workloads that select pods (PodTopologySpread's default constraints) --------------------

// core/v1 Service: only its spec.selector. An empty selector selects no pod (the API server
// drops an empty map, so a Service without a selector reads back the same).
struct Service {
  ObjectMeta metadata;
  StringMap selector;
};

// core/v1 ReplicationController: its spec.selector (the API server defaults it to the template's
// labels).
struct ReplicationController {
  ObjectMeta metadata;
  StringMap selector;
};

// apps/v1 ReplicaSet and StatefulSet: their spec.selector.
struct ReplicaSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
};
struct StatefulSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
};

// --- PodDisruptionBudget (policy/v1) ---------------------------------------------------------

// intstr.IntOrString: 2 or "50%".
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string str_value;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  // Absent: selects no pod. Empty: preemption counts no pod under it, while the disruption
  // controller counts every pod of the namespace (policy/v1).
  std::optional<LabelSelector> selector;
  // Status, as the disruption controller writes it: how many more pods may be disrupted, and
  // the pods already being disrupted (name → the time it began), which count as gone.
  int32_t disruptions_allowed = 0;
  std::map<std::string, std::string, std::less<>> disrupted_pods;
  // Whether the object came with a status. The API server always serves one; a hand-written
  // manifest may leave it out, and `ksched simulate` then computes it as the controller would.
  bool has_status = false;
};

// --- Storage (core/v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1) ----------

// Well-known storage annotations (k8s.io/component-helpers/storage/volume).
inline constexpr char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
inline constexpr char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
inline constexpr char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
inline constexpr char kAnnBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";
inline constexpr char kAnnMigratedPlugins[] = "storage.alpha.kubernetes.io/migrated-plugins";
inline constexpr char kNoProvisioner[] = "kubernetes.io/no-provisioner";
inline constexpr char kResourceStorage[] = "storage";

// core/v1 ObjectReference, as a PersistentVolume's spec.claimRef holds it.
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
};

// The one source of a PersistentVolume that the volume plugins read: its kind ("csi",
// "gcePersistentDisk", "awsElasticBlockStore", "local", ...), and for CSI its driver and handle.
// In-tree disks keep their id in volume_handle (pdName, volumeID, diskURI, ...).
struct PersistentVolumeSource {
  std::string kind;
  std::string driver;  // csi.driver
  // csi.volumeHandle, or the in-tree disk's id (as api::Volume's disk_id).
  std::string volume_handle;
  bool read_only = false;
  std::string azure_disk_kind;  // As api::Volume's.
};

struct PersistentVolume {
  ObjectMeta metadata;
  std::optional<Quantity> capacity;  // spec.capacity.storage
  std::vector<std::string> access_modes;
  std::optional<ObjectReference> claim_ref;
  std::string storage_class_name;          // The beta annotation, if set, wins (StorageClassOf).
  std::optional<std::string> volume_mode;  // Filesystem when absent.
  std::optional<std::string> volume_attributes_class_name;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  PersistentVolumeSource source;
  std::string phase;  // status.phase: Pending, Available, Bound, Released, Failed.
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  std::vector<std::string> access_modes;
  std::optional<LabelSelector> selector;
  std::optional<Quantity> storage_request;  // spec.resources.requests.storage
  std::optional<std::string> storage_class_name;
  std::string volume_name;
  std::optional<std::string> volume_mode;
  std::optional<std::string> volume_attributes_class_name;
  std::string phase;  // status.phase: Pending, Bound, Lost.
};

// The class of a claim or a volume, as upstream's GetPersistentVolumeClaimClass and
// GetPersistentVolumeClass: the beta annotation, else the spec's field; "" for none.
inline std::string StorageClassOf(const PersistentVolumeClaim& claim) {
  auto it = claim.metadata.annotations.find(kAnnBetaStorageClass);
  if (it != claim.metadata.annotations.end()) return it->second;
  return claim.storage_class_name.value_or("");
}
inline std::string StorageClassOf(const PersistentVolume& volume) {
  auto it = volume.metadata.annotations.find(kAnnBetaStorageClass);
  return it != volume.metadata.annotations.end() ? it->second : volume.storage_class_name;
}

// A reference to the claim, as a PersistentVolume's spec.claimRef holds it (client-go's
// GetReference).
inline ObjectReference ClaimReference(const PersistentVolumeClaim& claim) {
  return {.kind = "PersistentVolumeClaim",
          .namespace_ = claim.metadata.namespace_,
          .name = claim.metadata.name,
          .uid = claim.metadata.uid,
          .api_version = "v1",
          .resource_version = claim.metadata.resource_version};
}
// Whether the volume's claimRef names the claim, by namespace and name and, where the reference
// has one, by UID (upstream's IsVolumeBoundToClaim).
inline bool IsVolumeBoundToClaim(const PersistentVolume& pv, const PersistentVolumeClaim& claim) {
  const std::optional<ObjectReference>& ref = pv.claim_ref;
  return ref && ref->name == claim.metadata.name && ref->namespace_ == claim.metadata.namespace_ &&
         (ref->uid.empty() || ref->uid == claim.metadata.uid);
}

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

// --- Dynamic resource allocation (resource.k8s.io/v1) ----------------------------------------
// What the DynamicResources plugin reads. A field ksched does not model (a feature it does not
// implement yet: partitionable devices' counters, consumable capacity, binding conditions, ...)
// is named in the object's `unsupported`, so that a pod that needs the object stays pending and
// says why, rather than being placed as if the field were absent.

// An attribute of a device: exactly one value is set (the list forms, DRAListTypeAttributes, are
// alpha and off in 1.36: unsupported).
struct DeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;  // semver, "1.2.3"
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, NoExecute or None.
};

struct DeviceToleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists.
  std::string value;
  std::string effect;  // "" tolerates every effect.
  std::optional<int64_t> toleration_seconds;
  bool operator==(const DeviceToleration&) const = default;
};

// One device of a ResourceSlice.
struct Device {
  std::string name;
  std::map<std::string, DeviceAttribute> attributes;  // By qualified name.
  std::map<std::string, Quantity> capacity;           // By qualified name: capacity.<name>.value.
  // Where the slice has perDeviceNodeSelection: the node(s) this device is on.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::vector<std::string> unsupported;  // Field paths, from the device: "consumesCounters".
};

struct ResourceSlice {
  ObjectMeta metadata;
  std::string driver;
  std::string pool;              // spec.pool.name
  int64_t pool_generation = 0;   // spec.pool.generation
  int64_t pool_slice_count = 0;  // spec.pool.resourceSliceCount
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<Device> devices;
  std::vector<std::string> unsupported;  // Field paths, from spec: "sharedCounters".
};

// A device class's or a request's opaque configuration for the driver, kept as it came.
struct DeviceConfiguration {
  std::vector<std::string> requests;  // A claim's: the requests it applies to (none: all).
  std::string driver;                 // opaque.driver
  std::string parameters;             // opaque.parameters, as minified JSON.
  bool operator==(const DeviceConfiguration&) const = default;
};

struct DeviceClass {
  ObjectMeta metadata;
  std::vector<std::string> selectors;  // spec.selectors[].cel.expression
  std::vector<DeviceConfiguration> config;
  std::optional<std::string> extended_resource_name;
  std::vector<std::string> unsupported;
};

// A request for devices of one class (ExactDeviceRequest), or one alternative of a
// firstAvailable list (DeviceSubRequest, with its name).
struct DeviceSubRequest {
  std::string name;  // A firstAvailable alternative's; "" for `exactly`.
  std::string device_class_name;
  std::vector<std::string> selectors;          // selectors[].cel.expression
  std::string allocation_mode = "ExactCount";  // ExactCount or All.
  int64_t count = 1;  // ExactCount's, defaulted as the API server does; 0 with All.
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  bool operator==(const DeviceSubRequest&) const = default;
};

struct DeviceRequest {
  std::string name;
  std::optional<DeviceSubRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
  bool operator==(const DeviceRequest&) const = default;
};

struct DeviceConstraint {
  std::vector<std::string> requests;  // None: every request.
  std::optional<std::string> match_attribute;
  bool operator==(const DeviceConstraint&) const = default;
};

struct ResourceClaimSpec {
  std::vector<DeviceRequest> requests;  // spec.devices.requests
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceConfiguration> config;
  std::vector<std::string> unsupported;  // Field paths, from spec.
  bool operator==(const ResourceClaimSpec&) const = default;
};

struct DeviceRequestAllocationResult {
  std::string request;  // "<request>" or "<request>/<firstAvailable alternative>"
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
};

// status.allocation.devices.config: a class's (source FromClass) or the claim's (FromClaim).
struct DeviceAllocationConfiguration {
  std::string source;
  DeviceConfiguration configuration;
};

struct AllocationResult {
  std::vector<DeviceRequestAllocationResult> results;  // devices.results
  std::vector<DeviceAllocationConfiguration> config;   // devices.config
  std::optional<NodeSelector> node_selector;           // The nodes that can use the devices.
  std::string allocation_timestamp;                    // RFC 3339
};

struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;  // "pods"
  std::string name;
  std::string uid;
};

// The finalizer the scheduler gives a claim it allocates, which the resourceclaim controller
// removes once the claim is deallocated.
inline constexpr char kResourceClaimFinalizer[] = "resource.kubernetes.io/delete-protection";

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  std::optional<AllocationResult> allocation;                // status.allocation
  std::vector<ResourceClaimConsumerReference> reserved_for;  // status.reservedFor
  std::vector<std::string> unsupported;  // Field paths, from status: "allocation.devices..."
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  StringMap claim_labels;       // spec.metadata.labels
  StringMap claim_annotations;  // spec.metadata.annotations
  ResourceClaimSpec spec;       // spec.spec
};

}  // namespace ksched::api
