// The claim DynamicResources makes for a pod's DRA-backed extended resources (upstream's
// extendeddynamicresources.go): on a node where no device plugin advertises a resource the pod
// requests and a DeviceClass backs (helper::DraBacked), the devices come from a claim the
// scheduler builds per node, one request per container that asks for the resource, allocates
// with the pod's own claims, and creates in PreBind, where the pod's
// status.extendedResourceClaimStatus tells which request serves which container.
//
//   api::ResourceClaim claim = NewExtendedClaim(pod);  // name "<extended-resources>" until made
//   ExtendedRequests r = ExtendedRequestsFor(pod, {"example.com/gpu"}, dra);
//   // r.requests: [{name: container-0-request-1, exactly: {deviceClassName: gpu, count: 2}}]
//   // r.mappings: [{containerName: c, resourceName: example.com/gpu,
//   //               requestName: container-0-request-1}]
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ksched/api/objects.h"
#include "ksched/dra_lister.h"

namespace ksched::plugins::dynamic_resources {

inline constexpr char kExtendedClaimAnnotation[] = "resource.kubernetes.io/extended-resource-claim";
// The name of the claim until the API server names it from its generateName.
inline constexpr char kExtendedClaimName[] = "<extended-resources>";

struct ExtendedRequests {
  std::vector<api::DeviceRequest> requests;  // By name.
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};

// The requests for the resources `resources` (by name) of the pod's containers (init containers
// first, a container's request named by its index there and the resource's among its requests by
// name), and which container each serves: an init container that is not a sidecar reuses what
// the containers after it request, and of such init containers' requests only the largest is
// kept (upstream's createRequestsAndMappings).
ExtendedRequests ExtendedRequestsFor(const api::Pod& pod, const std::vector<std::string>& resources,
                                     const DraLister& dra);

// The claim made for the pod in an earlier attempt: annotated as such and controlled by the pod.
std::shared_ptr<const api::ResourceClaim> FindExtendedClaim(const api::Pod& pod,
                                                            const DraLister& dra);

// The claim to make: in the pod's namespace, named from "<pod>-extended-resources-", controlled by
// the pod, annotated; no requests yet.
api::ResourceClaim NewExtendedClaim(const api::Pod& pod);

// Which container each request of an extended resources' claim serves.
using Mappings = std::shared_ptr<const std::vector<api::ContainerExtendedResourceRequest>>;

// The claim to make for the pod's `resources` (NewExtendedClaim with ExtendedRequestsFor's
// requests), and its mappings.
std::pair<std::shared_ptr<const api::ResourceClaim>, Mappings> ExtendedClaim(
    const api::Pod& pod, const std::vector<std::string>& resources, const DraLister& dra);

}  // namespace ksched::plugins::dynamic_resources
