#include "ksched/api/resources.h"

#include <algorithm>

namespace ksched::api {
namespace {

void Add(ResourceList& into, const ResourceList& add) {
  for (const auto& [name, q] : add) into[name] += q;
}

void Max(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto it = into.find(name);
    if (it == into.end() || q > it->second) into[name] = q;
  }
}

ResourceList ContainerRequests(const Container& c, const ResourceList* non_missing) {
  ResourceList reqs = c.resources.requests;
  if (non_missing != nullptr) {
    for (const auto& [name, q] : *non_missing) reqs.try_emplace(name, q);
  }
  return reqs;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || name.starts_with("hugepages-");
}

bool IsPodLevelRequestsSet(const Pod& pod) {
  if (!pod.spec.resources) return false;
  for (const auto& [name, q] : pod.spec.resources->requests) {
    if (IsSupportedPodLevelResource(name)) return true;
  }
  return false;
}

ResourceList PodRequests(const Pod& pod, const PodRequestsOptions& options) {
  const ResourceList* non_missing = options.non_missing_container_requests;
  ResourceList reqs;
  for (const Container& c : pod.spec.containers) Add(reqs, ContainerRequests(c, non_missing));

  ResourceList sidecars;   // Cumulative requests of the sidecars started so far.
  ResourceList init_peak;  // The largest requests of any init phase.
  for (const Container& c : pod.spec.init_containers) {
    ResourceList phase = ContainerRequests(c, non_missing);
    if (c.restart_policy == kContainerRestartPolicyAlways) {
      Add(reqs, phase);
      Add(sidecars, phase);
      phase = sidecars;
    } else {
      Add(phase, sidecars);
    }
    Max(init_peak, phase);
  }
  Max(reqs, init_peak);

  if (!options.skip_pod_level_resources && IsPodLevelRequestsSet(pod)) {
    for (const auto& [name, q] : pod.spec.resources->requests) {
      if (IsSupportedPodLevelResource(name)) reqs[name] = q;
    }
  }
  if (!options.exclude_overhead) Add(reqs, pod.spec.overhead);
  return reqs;
}

NonZeroRequests NonZeroPodRequests(const Pod& pod) {
  ResourceList reqs = PodRequests(pod);
  ResourceList non_missing;
  const bool pod_level = IsPodLevelRequestsSet(pod);
  if (!pod_level || !reqs.contains(kResourceCPU)) {
    non_missing[kResourceCPU] = Quantity::FromMilli(kDefaultMilliCPURequest);
  }
  if (!pod_level || !reqs.contains(kResourceMemory)) {
    non_missing[kResourceMemory] = Quantity::FromValue(kDefaultMemoryRequest);
  }
  // Again with the defaults, unless every container requests what they would stand in for.
  auto lacks = [&](const Container& c) {
    return std::any_of(non_missing.begin(), non_missing.end(),
                       [&](const auto& kv) { return !c.resources.requests.contains(kv.first); });
  };
  if (std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(), lacks) ||
      std::any_of(pod.spec.init_containers.begin(), pod.spec.init_containers.end(), lacks)) {
    reqs = PodRequests(pod, {.non_missing_container_requests = &non_missing});
  }
  auto get = [&](std::string_view name, bool milli) -> int64_t {
    auto it = reqs.find(name);
    if (it == reqs.end()) return 0;
    return milli ? it->second.MilliValue() : it->second.Value();
  };
  return {.milli_cpu = get(kResourceCPU, true), .memory = get(kResourceMemory, false)};
}

}  // namespace ksched::api
