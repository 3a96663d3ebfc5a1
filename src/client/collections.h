// Where the API serves each kind ksched reads: one table for the informers (api_source.cc)
// and for `simulate --kubeconfig`'s listing (cluster_listing.cc), so that both read the same lists.
//
//   Reflector<api::Node> nodes(http, {.path = std::string(kCollection<api::Node>)}, handlers);
#pragma once

#include <string_view>

#include "ksched/api/objects.h"

namespace ksched::client {

// Declared only: a kind without its path below does not compile.
template <typename T>
extern const std::string_view kCollection;

template <>
inline constexpr std::string_view kCollection<api::Node> = "/api/v1/nodes";
template <>
inline constexpr std::string_view kCollection<api::Pod> = "/api/v1/pods";
template <>
inline constexpr std::string_view kCollection<api::Namespace> = "/api/v1/namespaces";
template <>
inline constexpr std::string_view kCollection<api::PriorityClass> =
    "/apis/scheduling.k8s.io/v1/priorityclasses";
template <>
inline constexpr std::string_view kCollection<api::Service> = "/api/v1/services";
template <>
inline constexpr std::string_view kCollection<api::ReplicationController> =
    "/api/v1/replicationcontrollers";
template <>
inline constexpr std::string_view kCollection<api::ReplicaSet> = "/apis/apps/v1/replicasets";
template <>
inline constexpr std::string_view kCollection<api::StatefulSet> = "/apis/apps/v1/statefulsets";
template <>
inline constexpr std::string_view kCollection<api::PodDisruptionBudget> =
    "/apis/policy/v1/poddisruptionbudgets";
template <>
inline constexpr std::string_view kCollection<api::PersistentVolume> = "/api/v1/persistentvolumes";
template <>
inline constexpr std::string_view kCollection<api::PersistentVolumeClaim> =
    "/api/v1/persistentvolumeclaims";
template <>
inline constexpr std::string_view kCollection<api::StorageClass> =
    "/apis/storage.k8s.io/v1/storageclasses";
template <>
inline constexpr std::string_view kCollection<api::CSINode> = "/apis/storage.k8s.io/v1/csinodes";
template <>
inline constexpr std::string_view kCollection<api::CSIDriver> =
    "/apis/storage.k8s.io/v1/csidrivers";
template <>
inline constexpr std::string_view kCollection<api::CSIStorageCapacity> =
    "/apis/storage.k8s.io/v1/csistoragecapacities";
template <>
inline constexpr std::string_view kCollection<api::VolumeAttachment> =
    "/apis/storage.k8s.io/v1/volumeattachments";
template <>
inline constexpr std::string_view kCollection<api::DeviceClass> =
    "/apis/resource.k8s.io/v1/deviceclasses";
template <>
inline constexpr std::string_view kCollection<api::ResourceSlice> =
    "/apis/resource.k8s.io/v1/resourceslices";
template <>
inline constexpr std::string_view kCollection<api::ResourceClaim> =
    "/apis/resource.k8s.io/v1/resourceclaims";
template <>
inline constexpr std::string_view kCollection<api::ResourceClaimTemplate> =
    "/apis/resource.k8s.io/v1/resourceclaimtemplates";

// The pods a scheduler reads: not those that ended (kube-scheduler's informer's field selector).
inline constexpr std::string_view kUnfinishedPods = "status.phase!=Succeeded,status.phase!=Failed";

}  // namespace ksched::client
