// The one table of the kinds ksched reads: a row (kKind<T>) per kind, with its
// name, its API group and version, its resource, whether it is namespaced and its decoder. The
// decoders' dispatch, KindOf, IsNamespaced, the reflectors' collections and decoders, the
// listing of a live cluster and the test harnesses' REST paths all read it; adding a kind is a row
// here, an alternative of api::Object and its decoder.
//
//   kKind<Pod>.name                          // "Pod"
//   CollectionPath<PersistentVolumeClaim>()  // "/api/v1/persistentvolumeclaims"
//   CollectionPath<PersistentVolumeClaim>("db")  // "/api/v1/namespaces/db/persistentvolumeclaims"
//   QualifiedResource<PriorityClass>()   // "priorityclasses.scheduling.k8s.io", as errors say
//   ForEachKind([&]<typename T>() { ... kKind<T>.resource ... });  // In api::Object's order.
//
// Thread safety: constants and pure functions.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <variant>

#include "src/api/decode.h"

namespace ksched::api {

// A row: the kind's name, "v1" or "<group>/v1", its resource (plural, lower case), whether its
// objects live in a namespace (as kubectl api-resources says), its decoder (decode.h), and why
// ksched's informers may go on without it, if they may (they wait for the others to sync, as
// kube-scheduler waits for every informer it starts).
template <typename T>
struct KindInfo {
  std::string_view name;
  std::string_view group_version;
  std::string_view resource;
  bool namespaced;
  absl::Status (*decode)(simdjson::dom::element, T*);
  std::string_view optional_because = {};
};

inline constexpr std::string_view kMayBeForbidden =
    "system:kube-scheduler may not list them: kube-scheduler does not watch them, since admission "
    "has already set each pod's priority";
inline constexpr std::string_view kMayBeUnserved = "a cluster may not serve resource.k8s.io/v1";

// Declared only: a kind without its row does not compile.
template <typename T>
extern const KindInfo<T> kKind;

template <>
inline constexpr KindInfo<Pod> kKind<Pod> = {"Pod", "v1", "pods", true, DecodePod};
template <>
inline constexpr KindInfo<Node> kKind<Node> = {"Node", "v1", "nodes", false, DecodeNode};
template <>
inline constexpr KindInfo<Namespace> kKind<Namespace> = {"Namespace", "v1", "namespaces", false,
                                                         DecodeNamespace};
template <>
inline constexpr KindInfo<PriorityClass> kKind<PriorityClass> = {
    "PriorityClass", "scheduling.k8s.io/v1", "priorityclasses",
    false,           DecodePriorityClass,    kMayBeForbidden};
template <>
inline constexpr KindInfo<Service> kKind<Service> = {"Service", "v1", "services", true,
                                                     DecodeService};
template <>
inline constexpr KindInfo<ReplicationController> kKind<ReplicationController> = {
    "ReplicationController", "v1", "replicationcontrollers", true, DecodeReplicationController};
template <>
inline constexpr KindInfo<ReplicaSet> kKind<ReplicaSet> = {"ReplicaSet", "apps/v1", "replicasets",
                                                           true, DecodeReplicaSet};
template <>
inline constexpr KindInfo<StatefulSet> kKind<StatefulSet> = {
    "StatefulSet", "apps/v1", "statefulsets", true, DecodeStatefulSet};
template <>
inline constexpr KindInfo<PodDisruptionBudget> kKind<PodDisruptionBudget> = {
    "PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", true, DecodePodDisruptionBudget};
template <>
inline constexpr KindInfo<PersistentVolume> kKind<PersistentVolume> = {
    "PersistentVolume", "v1", "persistentvolumes", false, DecodePersistentVolume};
template <>
inline constexpr KindInfo<PersistentVolumeClaim> kKind<PersistentVolumeClaim> = {
    "PersistentVolumeClaim", "v1", "persistentvolumeclaims", true, DecodePersistentVolumeClaim};
template <>
inline constexpr KindInfo<StorageClass> kKind<StorageClass> = {
    "StorageClass", "storage.k8s.io/v1", "storageclasses", false, DecodeStorageClass};
template <>
inline constexpr KindInfo<CSINode> kKind<CSINode> = {"CSINode", "storage.k8s.io/v1", "csinodes",
                                                     false, DecodeCSINode};
template <>
inline constexpr KindInfo<CSIDriver> kKind<CSIDriver> = {"CSIDriver", "storage.k8s.io/v1",
                                                         "csidrivers", false, DecodeCSIDriver};
template <>
inline constexpr KindInfo<CSIStorageCapacity> kKind<CSIStorageCapacity> = {
    "CSIStorageCapacity", "storage.k8s.io/v1", "csistoragecapacities", true,
    DecodeCSIStorageCapacity};
template <>
inline constexpr KindInfo<VolumeAttachment> kKind<VolumeAttachment> = {
    "VolumeAttachment", "storage.k8s.io/v1", "volumeattachments", false, DecodeVolumeAttachment};
template <>
inline constexpr KindInfo<DeviceClass> kKind<DeviceClass> = {
    "DeviceClass", "resource.k8s.io/v1", "deviceclasses", false, DecodeDeviceClass, kMayBeUnserved};
template <>
inline constexpr KindInfo<ResourceSlice> kKind<ResourceSlice> = {
    "ResourceSlice", "resource.k8s.io/v1", "resourceslices",
    false,           DecodeResourceSlice,  kMayBeUnserved};
template <>
inline constexpr KindInfo<ResourceClaim> kKind<ResourceClaim> = {
    "ResourceClaim",     "resource.k8s.io/v1", "resourceclaims", true,
    DecodeResourceClaim, kMayBeUnserved};
template <>
inline constexpr KindInfo<ResourceClaimTemplate> kKind<ResourceClaimTemplate> = {
    "ResourceClaimTemplate",     "resource.k8s.io/v1", "resourceclaimtemplates", true,
    DecodeResourceClaimTemplate, kMayBeUnserved};

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
