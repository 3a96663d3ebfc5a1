// The one table of the kinds ksched reads: a row (kKind<T>) per kind, with its name, its API
// group and version, its resource, whether it is namespaced, its decoder, and its traits for the
// informers: optional or required and why, the event resource plugins register for and where its
// changes reach them, whether kube-scheduler watches it and on which thread its events are
// handled. The decoders' dispatch, KindOf, IsNamespaced, the reflectors (ApiSource makes one per
// watched kind), the listers (Listers::Of), the listing of a live cluster, the scheduler's one
// change handler (Scheduler::OnObjectChange), the framework's event names and the test harnesses'
// REST paths all read it; adding a kind is a row here, an alternative of api::Object, its decoder,
// and, if plugins read it, its store in listers.h (and its reflector's instantiation).
//
//   kKind<Pod>.name                          // "Pod"
//   CollectionPath<PersistentVolumeClaim>()  // "/api/v1/persistentvolumeclaims"
//   CollectionPath<PersistentVolumeClaim>("db")  // "/api/v1/namespaces/db/persistentvolumeclaims"
//   QualifiedResource<PriorityClass>()   // "priorityclasses.scheduling.k8s.io", as errors say
//   ForEachKind([&]<typename T>() { ... kKind<T>.resource ... });  // In api::Object's order.
//   if constexpr (kKind<T>.change != nullptr) ... (ClusterEventData.storage.*kKind<T>.change)
//
// Thread safety: constants and pure functions.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "ksched/events.h"
#include "src/api/decode.h"

namespace ksched::api {

// A row: the kind's name, "v1" or "<group>/v1", its resource (plural, lower case), whether its
// objects live in a namespace (as kubectl api-resources says), its decoder (decode.h), and:
template <typename T>
struct KindInfo {
  std::string_view name;
  std::string_view group_version;
  std::string_view resource;
  bool namespaced;
  absl::Status (*decode)(simdjson::dom::element, T*);
  // Why ksched's informers may go on without it, if they may (they wait for the others to sync,
  // as kube-scheduler waits for every informer it starts).
  std::string_view optional_because = {};
  // The resource plugins register cluster events for (EventsToRegister); none: no plugin hears of
  // its changes, the kind is only looked up.
  std::optional<EventResource> event = std::nullopt;
  // Where a change of it reaches the plugins' queueing hints (ClusterEventData::storage); nullptr
  // for the kinds without events and for pods and nodes, which have their own members.
  ObjectChange<T> StorageChange::*change = nullptr;
  // Whether kube-scheduler watches it; false: only `ksched simulate` reads it (from manifests, or
  // listed once from a cluster).
  bool watched = true;
  // Whether its watch events are handled on the HTTP client's I/O thread, where they arrive, rather
  // than on its reflector's own: the busiest kinds, whose handlers (the scheduler's, and the
  // PreEnqueue plugins and queueing hints they run) must not block (plugin.h).
  bool on_io_thread = false;
  // The feature gate without which kube-scheduler does not watch it (nor the API server serve
  // it); none: always watched.
  std::string_view gate = {};
};

inline constexpr std::string_view kMayBeForbidden =
    "system:kube-scheduler may not list them: kube-scheduler does not watch them, since admission "
    "has already set each pod's priority";
inline constexpr std::string_view kMayBeUnserved = "a cluster may not serve resource.k8s.io/v1";

// Declared only: a kind without its row does not compile.
template <typename T>
extern const KindInfo<T> kKind;

// clang-format off
template <> inline constexpr KindInfo<Pod> kKind<Pod> = {
    .name = "Pod", .group_version = "v1", .resource = "pods", .namespaced = true,
    .decode = DecodePod, .event = EventResource::kPod, .on_io_thread = true};
template <> inline constexpr KindInfo<Node> kKind<Node> = {
    .name = "Node", .group_version = "v1", .resource = "nodes", .namespaced = false,
    .decode = DecodeNode, .event = EventResource::kNode};
template <> inline constexpr KindInfo<Namespace> kKind<Namespace> = {
    .name = "Namespace", .group_version = "v1", .resource = "namespaces", .namespaced = false,
    .decode = DecodeNamespace};
template <> inline constexpr KindInfo<PriorityClass> kKind<PriorityClass> = {
    .name = "PriorityClass", .group_version = "scheduling.k8s.io/v1",
    .resource = "priorityclasses", .namespaced = false, .decode = DecodePriorityClass,
    .optional_because = kMayBeForbidden};
template <> inline constexpr KindInfo<Service> kKind<Service> = {
    .name = "Service", .group_version = "v1", .resource = "services", .namespaced = true,
    .decode = DecodeService};
template <> inline constexpr KindInfo<ReplicationController> kKind<ReplicationController> = {
    .name = "ReplicationController", .group_version = "v1",
    .resource = "replicationcontrollers", .namespaced = true,
    .decode = DecodeReplicationController};
template <> inline constexpr KindInfo<ReplicaSet> kKind<ReplicaSet> = {
    .name = "ReplicaSet", .group_version = "apps/v1", .resource = "replicasets",
    .namespaced = true, .decode = DecodeReplicaSet};
template <> inline constexpr KindInfo<StatefulSet> kKind<StatefulSet> = {
    .name = "StatefulSet", .group_version = "apps/v1", .resource = "statefulsets",
    .namespaced = true, .decode = DecodeStatefulSet};
template <> inline constexpr KindInfo<PodDisruptionBudget> kKind<PodDisruptionBudget> = {
    .name = "PodDisruptionBudget", .group_version = "policy/v1",
    .resource = "poddisruptionbudgets", .namespaced = true, .decode = DecodePodDisruptionBudget};
template <> inline constexpr KindInfo<PersistentVolume> kKind<PersistentVolume> = {
    .name = "PersistentVolume", .group_version = "v1", .resource = "persistentvolumes",
    .namespaced = false, .decode = DecodePersistentVolume,
    .event = EventResource::kPersistentVolume, .change = &StorageChange::pv};
template <> inline constexpr KindInfo<PersistentVolumeClaim> kKind<PersistentVolumeClaim> = {
    .name = "PersistentVolumeClaim", .group_version = "v1", .resource = "persistentvolumeclaims",
    .namespaced = true, .decode = DecodePersistentVolumeClaim,
    .event = EventResource::kPersistentVolumeClaim, .change = &StorageChange::pvc};
template <> inline constexpr KindInfo<StorageClass> kKind<StorageClass> = {
    .name = "StorageClass", .group_version = "storage.k8s.io/v1", .resource = "storageclasses",
    .namespaced = false, .decode = DecodeStorageClass, .event = EventResource::kStorageClass,
    .change = &StorageChange::storage_class};
template <> inline constexpr KindInfo<CSINode> kKind<CSINode> = {
    .name = "CSINode", .group_version = "storage.k8s.io/v1", .resource = "csinodes",
    .namespaced = false, .decode = DecodeCSINode, .event = EventResource::kCSINode,
    .change = &StorageChange::csi_node};
template <> inline constexpr KindInfo<CSIDriver> kKind<CSIDriver> = {
    .name = "CSIDriver", .group_version = "storage.k8s.io/v1", .resource = "csidrivers",
    .namespaced = false, .decode = DecodeCSIDriver, .event = EventResource::kCSIDriver,
    .change = &StorageChange::csi_driver};
template <> inline constexpr KindInfo<CSIStorageCapacity> kKind<CSIStorageCapacity> = {
    .name = "CSIStorageCapacity", .group_version = "storage.k8s.io/v1",
    .resource = "csistoragecapacities", .namespaced = true, .decode = DecodeCSIStorageCapacity,
    .event = EventResource::kCSIStorageCapacity, .change = &StorageChange::csi_storage_capacity};
template <> inline constexpr KindInfo<VolumeAttachment> kKind<VolumeAttachment> = {
    .name = "VolumeAttachment", .group_version = "storage.k8s.io/v1",
    .resource = "volumeattachments", .namespaced = false, .decode = DecodeVolumeAttachment,
    .event = EventResource::kVolumeAttachment, .change = &StorageChange::volume_attachment};
template <> inline constexpr KindInfo<DeviceClass> kKind<DeviceClass> = {
    .name = "DeviceClass", .group_version = "resource.k8s.io/v1", .resource = "deviceclasses",
    .namespaced = false, .decode = DecodeDeviceClass, .optional_because = kMayBeUnserved,
    .event = EventResource::kDeviceClass, .change = &StorageChange::device_class};
template <> inline constexpr KindInfo<ResourceSlice> kKind<ResourceSlice> = {
    .name = "ResourceSlice", .group_version = "resource.k8s.io/v1", .resource = "resourceslices",
    .namespaced = false, .decode = DecodeResourceSlice, .optional_because = kMayBeUnserved,
    .event = EventResource::kResourceSlice, .change = &StorageChange::resource_slice};
template <> inline constexpr KindInfo<ResourceClaim> kKind<ResourceClaim> = {
    .name = "ResourceClaim", .group_version = "resource.k8s.io/v1", .resource = "resourceclaims",
    .namespaced = true, .decode = DecodeResourceClaim, .optional_because = kMayBeUnserved,
    .event = EventResource::kResourceClaim, .change = &StorageChange::resource_claim,
    .on_io_thread = true};
// Not watched: the resourceclaim controller makes a pod's claims from it, as `ksched simulate`
// does in its place.
template <> inline constexpr KindInfo<ResourceClaimTemplate> kKind<ResourceClaimTemplate> = {
    .name = "ResourceClaimTemplate", .group_version = "resource.k8s.io/v1",
    .resource = "resourceclaimtemplates", .namespaced = true,
    .decode = DecodeResourceClaimTemplate, .optional_because = kMayBeUnserved, .watched = false};
// Its changes reach the plugins as a ResourceSlice Update (Scheduler::OnObjectChange), as
// upstream's slice tracker sends them for the slices whose devices it taints.
template <> inline constexpr KindInfo<DeviceTaintRule> kKind<DeviceTaintRule> = {
    .name = "DeviceTaintRule", .group_version = "resource.k8s.io/v1",
    .resource = "devicetaintrules", .namespaced = false, .decode = DecodeDeviceTaintRule,
    .optional_because = kMayBeUnserved};
// Watched with GenericWorkload on: the API server serves it only with that gate.
template <> inline constexpr KindInfo<PodGroup> kKind<PodGroup> = {
    .name = "PodGroup", .group_version = "scheduling.k8s.io/v1beta1", .resource = "podgroups",
    .namespaced = true, .decode = DecodePodGroup, .event = EventResource::kPodGroup,
    .change = &StorageChange::pod_group, .gate = "GenericWorkload"};
// clang-format on

// Calls fn.template operator()<T>() for each kind of api::Object, in its order; stops at the first
// call that returns true, if fn returns bool, and returns whether one did.
template <typename Fn>
bool ForEachKind(Fn&& fn) {
  return [&]<typename... T>(std::variant<T...>*) {
    if constexpr (std::is_same_v<decltype(fn.template operator()<Pod>()), bool>) {
      return (fn.template operator()<T>() || ...);
    } else {
      (fn.template operator()<T>(), ...);
      return false;
    }
  }(static_cast<Object*>(nullptr));
}

// As ForEachKind, with nodes and then pods last: the order a source lists and watches in, so
// that what plugins look up is there before the pods that need it.
template <typename Fn>
void ForEachKindPodsLast(Fn&& fn) {
  ForEachKind([&]<typename T>() {
    if constexpr (!std::is_same_v<T, Pod> && !std::is_same_v<T, Node>) fn.template operator()<T>();
  });
  fn.template operator()<Node>();
  fn.template operator()<Pod>();
}

// The path of T's collection: of every namespace, or of `ns`'s.
template <typename T>
std::string CollectionPath(std::string_view ns = {}) {
  constexpr const KindInfo<T>& k = kKind<T>;
  std::string out = k.group_version == "v1" ? "/api/v1" : "/apis/";
  if (k.group_version != "v1") out.append(k.group_version);
  if (k.namespaced && !ns.empty()) out.append("/namespaces/").append(ns);
  return out.append("/").append(k.resource);
}

// The kind's name as the logs write it: "priorityClass", "csiNode".
inline std::string LowerCamelName(std::string_view kind) {
  std::string out(kind);
  size_t caps = 0;  // The leading capitals, of which all but a word's first letter go lower case.
  while (caps < out.size() && std::isupper(static_cast<unsigned char>(out[caps]))) ++caps;
  const size_t lower = caps == out.size() || caps <= 1 ? caps : caps - 1;
  for (size_t i = 0; i < lower; ++i) {
    out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
  }
  return out;
}

// T's resource as the API server's errors name it: "pods", "priorityclasses.scheduling.k8s.io".
template <typename T>
std::string QualifiedResource() {
  constexpr const KindInfo<T>& k = kKind<T>;
  std::string out(k.resource);
  const size_t slash = k.group_version.find('/');
  if (slash != std::string_view::npos) out.append(".").append(k.group_version.substr(0, slash));
  return out;
}

}  // namespace ksched::api
