// DRA-backed extended resources (DRAExtendedResource): a pod's extended resource that no device
// plugin advertises on a node, but a DeviceClass backs (its spec.extendedResourceName, or its
// implicit name "deviceclass.resource.kubernetes.io/<class>"), is served by devices that
// DynamicResources allocates in a claim it makes for the pod; NodeResourcesFit leaves it to it
// (upstream's shouldDelegateResourceToDRA).
//
//   std::vector<std::string> backed = DraBacked(pod, &handle.dra());  // {"example.com/gpu"}
//   if (node.allocatable().Get("example.com/gpu") == 0) ...  // the devices' on this node
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksched/api/objects.h"
#include "ksched/dra_lister.h"

namespace ksched::plugins::helper {

// An extended resource name, or a class's implicit one (upstream's IsDRAExtendedResourceName).
bool IsDraExtendedResourceName(std::string_view name);

// The names the pod requests (non-zero, as api::PodRequests sums them) that a DeviceClass backs,
// by name; none when `dra` is null (the gate is off).
std::vector<std::string> DraBacked(const api::Pod& pod, const DraLister* dra);
// The extended resource names the pod requests (non-zero) that no DeviceClass backs.
std::vector<std::string> DraUnbacked(const api::Pod& pod, const DraLister& dra);

}  // namespace ksched::plugins::helper
