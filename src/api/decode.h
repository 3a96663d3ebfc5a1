// Decoding of the API's JSON into the object model (include/ksched/api/objects.h).
//
// JSON is parsed with simdjson; YAML is first converted to JSON by yaml.h and then decoded here,
// so there is one decoder. Unknown fields are ignored, as a client of a newer API server must.
// Errors are values, never exceptions, and name the field:
//   spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"
//
//   absl::StatusOr<std::vector<Object>> objects = DecodeObjects(json);
//
// Thread safety: the functions are reentrant; each call uses its own parser.
#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/api/objects.h"
#include "ksched/custom_objects.h"
#include "simdjson.h"

namespace ksched::api {

// One object of a kind the scheduler reads.
using Object = std::variant<Pod, Node, Namespace, PriorityClass, Service, ReplicationController,
                            ReplicaSet, StatefulSet, PodDisruptionBudget, PersistentVolume,
                            PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
                            CSIStorageCapacity, VolumeAttachment, DeviceClass, ResourceSlice,
                            ResourceClaim, ResourceClaimTemplate, DeviceTaintRule, PodGroup>;

// The kind name of an object ("Pod", "Node", "PodDisruptionBudget", ...).
std::string_view KindOf(const Object& object);
// The object's metadata.
const ObjectMeta& MetaOf(const Object& object);
// How errors name an object of JSON: "Pod default/web", "Node n1"; its kind (`default_kind` when
// it has none) alone when it has no name.
std::string DescribeObject(simdjson::dom::element e, std::string_view default_kind = "");
// Whether objects of its kind live in a namespace (Pods, claims, ...) rather than in the cluster
// (Nodes, PriorityClasses, PersistentVolumes, ...).
bool IsNamespaced(const Object& object);

// Decodes an already parsed JSON element. On error, `out` holds what was decoded so far.
absl::Status DecodePod(simdjson::dom::element e, Pod* out);
absl::Status DecodeNode(simdjson::dom::element e, Node* out);
absl::Status DecodeNamespace(simdjson::dom::element e, Namespace* out);
absl::Status DecodePriorityClass(simdjson::dom::element e, PriorityClass* out);
// scheduling.k8s.io/v1beta1 PodGroup; the fields of gates ksched does not implement go to its
// gated_fields.
absl::Status DecodePodGroup(simdjson::dom::element e, PodGroup* out);
// A custom resource's object (ksched/custom_objects.h): its metadata, and the whole of it.
absl::Status DecodeCustomObject(simdjson::dom::element e, CustomObject* out);
absl::Status DecodeService(simdjson::dom::element e, Service* out);
absl::Status DecodeReplicationController(simdjson::dom::element e, ReplicationController* out);
absl::Status DecodeReplicaSet(simdjson::dom::element e, ReplicaSet* out);
absl::Status DecodeStatefulSet(simdjson::dom::element e, StatefulSet* out);
// spec.minAvailable and maxUnavailable are checked as the API server validates them:
//   spec.minAvailable: Invalid value: "150%": must not be greater than 100%
absl::Status DecodePodDisruptionBudget(simdjson::dom::element e, PodDisruptionBudget* out);
// The storage objects the volume plugins read. A StorageClass's volumeBindingMode is checked as
// the API server validates it.
absl::Status DecodePersistentVolume(simdjson::dom::element e, PersistentVolume* out);
absl::Status DecodePersistentVolumeClaim(simdjson::dom::element e, PersistentVolumeClaim* out);
absl::Status DecodeStorageClass(simdjson::dom::element e, StorageClass* out);
absl::Status DecodeCSINode(simdjson::dom::element e, CSINode* out);
absl::Status DecodeCSIDriver(simdjson::dom::element e, CSIDriver* out);
absl::Status DecodeCSIStorageCapacity(simdjson::dom::element e, CSIStorageCapacity* out);
absl::Status DecodeVolumeAttachment(simdjson::dom::element e, VolumeAttachment* out);
// The DRA objects (resource.k8s.io/v1) the DynamicResources plugin reads. The fields of features
// ksched does not implement are named in each object's `unsupported`.
absl::Status DecodeDeviceClass(simdjson::dom::element e, DeviceClass* out);
absl::Status DecodeResourceSlice(simdjson::dom::element e, ResourceSlice* out);
absl::Status DecodeResourceClaim(simdjson::dom::element e, ResourceClaim* out);
absl::Status DecodeResourceClaimTemplate(simdjson::dom::element e, ResourceClaimTemplate* out);
absl::Status DecodeDeviceTaintRule(simdjson::dom::element e, DeviceTaintRule* out);

// Parts that other documents embed (NodeAffinityArgs.addedAffinity, fuzz targets). Errors are
// relative to `e`; the caller names where it sits.
absl::Status DecodeLabelSelector(simdjson::dom::element e, LabelSelector* out);
absl::Status DecodeNodeSelector(simdjson::dom::element e, NodeSelector* out);
// NodeAffinityArgs' own: an operator it does not know is "Unsupported value", as kube-scheduler's
// config validation says, where an object's is the API server's "not a valid selector operator".
absl::Status DecodeNodeAffinity(simdjson::dom::element e, NodeAffinity* out);

// Whether pods and nodes decoded from now on keep their JSON (Pod::json, Node::json), for the HTTP
// extenders; off until asked. Process-wide: the scheduler asks before anything is watched or
// loaded.
void KeepObjectJson(bool keep);

absl::StatusOr<Pod> DecodePod(std::string_view json);
absl::StatusOr<Node> DecodeNode(std::string_view json);

// Decodes one object, or a list (`kind: List`, PodList, NodeList, ...) into its items in order.
// Items without a kind (as the API's own lists serve them) take it from the list's kind.
// An unknown kind is an error naming it; an error inside a list names the item:
//   items[2] (Pod default/web): spec.priority: expected integer, got string
absl::StatusOr<std::vector<Object>> DecodeObjects(simdjson::dom::element e);
absl::StatusOr<std::vector<Object>> DecodeObjects(std::string_view json);

}  // namespace ksched::api
