// The core/v1 objects the scheduler reads (Pod, Node, Namespace, Service, ReplicationController,
// PersistentVolume, PersistentVolumeClaim), part of the object model of ksched/api/objects.h.
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksched/api/boxed.h"
#include "ksched/api/meta.h"
#include "ksched/api/quantity.h"

namespace ksched::api {

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

// A container's restart rule (restartPolicyRules[]). Only the action is read: the scheduler decides
// nothing by the exit codes it matches.
struct ContainerRestartRule {
  std::string action;  // "Restart" or "RestartAllContainers".
};

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  // Set only on init containers; "Always" makes an init container a sidecar.
  std::optional<std::string> restart_policy;
  std::vector<ContainerRestartRule> restart_policy_rules;
  // Some volumeMounts[] sets bindMountOptions (alpha in 1.37): the node must declare
  // VolumeBindMountOptions.
  bool bind_mount_options = false;
};

// The volume sources the volume plugins look at. `source` names the source field that was set
// ("persistentVolumeClaim", "csi", "emptyDir", ...), including sources that have no fields here.
struct Volume {
  std::string name;
  std::string source;
  std::string claim_name;       // persistentVolumeClaim.claimName
  bool read_only = false;       // readOnly of the source, where it has one.
  std::string csi_driver;       // csi.driver
  std::string image_reference;  // image.reference: an OCI image mounted as a volume.
  // ephemeral.volumeClaimTemplate is present; the PVC is named "<pod>-<volume>".
  bool ephemeral_claim = false;
  // The disk VolumeRestrictions compares and NodeVolumeLimits counts: gcePersistentDisk.pdName,
  // awsElasticBlockStore.volumeID, iscsi.iqn, rbd "<pool>/<image>" (pool defaulted to "rbd", as
  // the API server does), azureDisk.diskURI, cinder.volumeID and portworxVolume.volumeID.
  std::string disk_id;
  // azureDisk.kind, defaulted to "Shared" as the API server does.
  std::string azure_disk_kind;
  std::vector<std::string> rbd_monitors;
  // A digest of the whole source as decoded (its JSON): OpportunisticBatching's signature tells
  // volumes apart by every field of their sources, those above and the others.
  uint64_t source_digest = 0;
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
  bool host_network = false;
  std::optional<bool> host_users;
  StringMap node_selector;
  Boxed<Affinity> affinity;  // On the heap: few pods have one.
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority or Never.
  ResourceList overhead;
  std::vector<PodSchedulingGate> scheduling_gates;
  // spec.schedulingGroup.podGroupName: the PodGroup (in the pod's namespace) the pod is scheduled
  // with, when the GenericWorkload gate is on; nullopt: none.
  std::optional<std::string> pod_group_name;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Volume> volumes;
  std::vector<PodResourceClaim> resource_claims;
  Boxed<ResourceRequirements> resources;  // Pod-level resources; on the heap: few pods have them.
};

// DRA-backed extended resources: which request of the claim the scheduler made for the pod
// serves which container's extended resource.
struct ContainerExtendedResourceRequest {
  std::string container_name;
  std::string resource_name;
  std::string request_name;
  bool operator==(const ContainerExtendedResourceRequest&) const = default;
};
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  std::string resource_claim_name;
  bool operator==(const PodExtendedResourceClaimStatus&) const = default;
};

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::string start_time;  // RFC 3339, set by the kubelet; "" until the pod starts.
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  std::optional<PodExtendedResourceClaimStatus> extended_resource_claim_status;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  // The pod's JSON as it was decoded, minified; kept only while HTTP extenders are configured
  // (api::KeepObjectJson), which are sent pods whole, as kube-scheduler sends them.
  std::shared_ptr<const std::string> json;
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
  // The features the node's kubelet declares (NodeDeclaredFeatures), sorted.
  std::vector<std::string> declared_features;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  // As Pod::json: sent whole to the extenders that are not node-cache-capable.
  std::shared_ptr<const std::string> json;
};

// --- Namespace ---------------------------------------------------------------------------------

struct Namespace {
  ObjectMeta metadata;  // Plugins read its labels (namespaceSelector).
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

// --- PersistentVolume and PersistentVolumeClaim --------------------------------------------

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

}  // namespace ksched::api
