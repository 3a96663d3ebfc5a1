// A pod's resource requests, computed as kube-scheduler computes them (component-helpers'
// resource.PodRequests and the scheduler's non-zero defaults).
//
//   ResourceList req = PodRequests(pod);      // what NodeResourcesFit checks
//   NonZeroRequests nz = NonZeroPodRequests(pod);  // what the scoring plugins weigh
//
// Thread safety: pure functions.
#pragma once

#include "ksched/api/objects.h"

namespace ksched::api {

// The requests the scheduler assumes for a container that sets none (100m CPU, 200Mi memory).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = int64_t{200} * 1024 * 1024;

struct PodRequestsOptions {
  bool exclude_overhead = false;
  bool skip_pod_level_resources = false;
  // Added to each container (regular or init) for each resource it does not request.
  const ResourceList* non_missing_container_requests = nullptr;
};

// Whether `name` may be set in pod-level resources (cpu, memory, hugepages-*).
bool IsSupportedPodLevelResource(std::string_view name);

// Whether spec.resources.requests sets a supported pod-level resource.
bool IsPodLevelRequestsSet(const Pod& pod);

// The larger of (a) the regular containers plus the sidecars (init containers with
// restartPolicy Always) and (b) each other init container plus the sidecars started before it.
// Pod-level requests, when set, replace the containers' total per resource; overhead is added.
ResourceList PodRequests(const Pod& pod, const PodRequestsOptions& options = {});

struct NonZeroRequests {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
};

// The CPU and memory requests used for scoring: as PodRequests, but a container that requests
// no CPU (memory) counts as 100m (200Mi). With pod-level requests set, the default applies only
// to a resource set neither at pod level nor by any container.
NonZeroRequests NonZeroPodRequests(const Pod& pod);

}  // namespace ksched::api
