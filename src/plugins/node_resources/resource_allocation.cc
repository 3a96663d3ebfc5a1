#include "src/plugins/node_resources/resource_allocation.h"

#include <algorithm>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "ksched/api/resources.h"

namespace ksched::plugins::node_resources {

ResourceAllocationScorer::ResourceAllocationScorer(std::vector<ResourceSpec> resources,
                                                   Options options, ResourceScorerFn scorer)
    : resources_(std::move(resources)), options_(options), scorer_(std::move(scorer)) {}

std::vector<int64_t> ResourceAllocationScorer::PodRequests(const api::Pod& pod) const {
  api::ResourceList defaults;
  api::PodRequestsOptions opts{.skip_pod_level_resources = !options_.pod_level_resources};
  if (!options_.use_requested) {
    defaults[api::kResourceCPU] = api::Quantity::FromMilli(api::kDefaultMilliCPURequest);
    defaults[api::kResourceMemory] = api::Quantity::FromValue(api::kDefaultMemoryRequest);
    opts.non_missing_container_requests = &defaults;
  }
  const api::ResourceList requests = api::PodRequests(pod, opts);
  std::vector<int64_t> out(resources_.size(), 0);
  for (size_t i = 0; i < resources_.size(); ++i) {
    auto it = requests.find(resources_[i].name);
    if (it == requests.end()) continue;
    out[i] = resources_[i].name == api::kResourceCPU ? it->second.MilliValue() : it->second.Value();
  }
  return out;
}

ResourceAllocationScorer::NodeAmounts ResourceAllocationScorer::NodeSide(
    const NodeInfo& node, const std::string& resource) const {
  const Resource& alloc = node.allocatable();
  const Resource& used = options_.use_requested ? node.requested() : node.non_zero_requested();
  if (resource == api::kResourceCPU) return {alloc.milli_cpu, used.milli_cpu};
  if (resource == api::kResourceMemory) return {alloc.memory, used.memory};
  if (resource == api::kResourceEphemeralStorage) {
    return {alloc.ephemeral_storage, node.requested().ephemeral_storage};
  }
  // Any other name is looked up among the node's scalar resources ("pods" never is one).
  auto it = alloc.scalar.find(resource);
  if (it == alloc.scalar.end()) return {};
  auto used_it = node.requested().scalar.find(resource);
  return {it->second, used_it == node.requested().scalar.end() ? 0 : used_it->second};
}

Status ResourceAllocationScorer::Score(const NodeInfo& node, std::span<const int64_t> pod_requests,
                                       int64_t* score) const {
  if (resources_.empty()) return Status::Error("resources not found");
  const size_t n = resources_.size();
  // On the stack for the usual handful of resources: Score runs once per node per pod.
  absl::InlinedVector<int64_t, 8> requested(n, 0), allocated(n, 0), allocatable(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t pod_request = i < pod_requests.size() ? pod_requests[i] : 0;
    // A scalar resource the pod does not request is left out, so that nodes with and without
    // it score alike (upstream #102154).
    if (pod_request == 0 && IsScalarResourceName(resources_[i].name)) continue;
    NodeAmounts amounts = NodeSide(node, resources_[i].name);
    if (amounts.allocatable == 0) continue;
    allocatable[i] = amounts.allocatable;
    allocated[i] = amounts.allocated;
    requested[i] = amounts.allocated + pod_request;
  }
  *score = scorer_(requested, allocated, allocatable);
  return Status();
}

bool IsBestEffort(std::span<const int64_t> pod_requests) {
  return std::all_of(pod_requests.begin(), pod_requests.end(), [](int64_t r) { return r == 0; });
}

}  // namespace ksched::plugins::node_resources
