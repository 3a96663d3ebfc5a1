// Where the API server keeps an object given as JSON, for the harnesses that create and delete
// objects over REST (test/difftest, bench/side_by_side).
//
//   http.Call({.method = "POST", .path = CollectionOf(pod), .body = pod.dump()});
//   http.Call({.method = "DELETE", .path = PathOf(pod)});
#pragma once

#include <string>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ksched::testing {

// The collection of the object's kind (and namespace, "default" if it has none): Namespace,
// Node, PriorityClass, Service, PodDisruptionBudget, PersistentVolume, PersistentVolumeClaim,
// StorageClass, CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment; any other kind is
// taken for a Pod.
inline std::string CollectionOf(const nlohmann::json& o) {
  const std::string kind = o.value("kind", "");
  const std::string ns = o["metadata"].value("namespace", "default");
  if (kind == "Namespace") return "/api/v1/namespaces";
  if (kind == "Node") return "/api/v1/nodes";
  if (kind == "PriorityClass") return "/apis/scheduling.k8s.io/v1/priorityclasses";
  if (kind == "Service") return fmt::format("/api/v1/namespaces/{}/services", ns);
  if (kind == "PersistentVolume") return "/api/v1/persistentvolumes";
  if (kind == "PersistentVolumeClaim") {
    return fmt::format("/api/v1/namespaces/{}/persistentvolumeclaims", ns);
  }
  if (kind == "StorageClass") return "/apis/storage.k8s.io/v1/storageclasses";
  if (kind == "CSINode") return "/apis/storage.k8s.io/v1/csinodes";
  if (kind == "CSIDriver") return "/apis/storage.k8s.io/v1/csidrivers";
  if (kind == "VolumeAttachment") return "/apis/storage.k8s.io/v1/volumeattachments";
  if (kind == "CSIStorageCapacity") {
    return fmt::format("/apis/storage.k8s.io/v1/namespaces/{}/csistoragecapacities", ns);
  }
  if (kind == "DeviceClass") return "/apis/resource.k8s.io/v1/deviceclasses";
  if (kind == "ResourceSlice") return "/apis/resource.k8s.io/v1/resourceslices";
  if (kind == "ResourceClaim") {
    return fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims", ns);
  }
  if (kind == "ResourceClaimTemplate") {
    return fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaimtemplates", ns);
  }
  if (kind == "PodDisruptionBudget") {
    return fmt::format("/apis/policy/v1/namespaces/{}/poddisruptionbudgets", ns);
  }
  return fmt::format("/api/v1/namespaces/{}/pods", ns);
}

// The object itself: its collection and its metadata.name.
inline std::string PathOf(const nlohmann::json& o) {
  return CollectionOf(o) + "/" + o["metadata"].value("name", "");
}

}  // namespace ksched::testing
