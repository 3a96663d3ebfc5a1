#include "src/plugins/node_resources/resource_allocation.h"

#include <algorithm>
#include <array>
#include <utility>

#include "ksched/api/resources.h"

namespace ksched::plugins::node_resources {

ResourceAllocationScorer::ResourceAllocationScorer(std::vector<ResourceSpec> resources,
                                                   Options options, ResourceScorerFn scorer)
    : resources_(std::move(resources)), options_(options), scorer_(std::move(scorer)) {
  for (const ResourceSpec& r : resources_) {
    names_.push_back(r.name);
    kinds_.push_back(r.name == api::kResourceCPU                ? Kind::kCpu
                     : r.name == api::kResourceMemory           ? Kind::kMemory
                     : r.name == api::kResourceEphemeralStorage ? Kind::kEphemeralStorage
                                                                : Kind::kScalar);
  }
}

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

std::shared_ptr<const helper::DraResourceCounter> ResourceAllocationScorer::DraCounter(
    const DraLister* dra, const CycleState& state) const {
  if (dra == nullptr) return nullptr;
  return helper::DraResourceCounter::Make(names_, *dra, state, *selectors_);
}

ResourceAllocationScorer::NodeAmounts ResourceAllocationScorer::ScalarSide(
    const NodeInfo& node, size_t i, const helper::DraResourceCounter* dra) const {
  // Looked up among the node's scalar resources ("pods" never is one).
  const std::string& resource = resources_[i].name;
  auto it = node.allocatable().scalar.find(resource);
  if (dra != nullptr && (it == node.allocatable().scalar.end() || it->second == 0)) {
    // No device plugin serves it here: a class's devices may.
    helper::DraResourceCounter::Amounts devices = dra->On(i, *node.node());
    if (devices.allocatable > 0) return {devices.allocatable, devices.allocated};
  }
  if (it == node.allocatable().scalar.end()) return {};
  auto used_it = node.requested().scalar.find(resource);
  return {it->second, used_it == node.requested().scalar.end() ? 0 : used_it->second};
}

inline ResourceAllocationScorer::NodeAmounts ResourceAllocationScorer::NodeSide(
    const NodeInfo& node, size_t i, const helper::DraResourceCounter* dra) const {
  const Resource& alloc = node.allocatable();
  const Resource& used = options_.use_requested ? node.requested() : node.non_zero_requested();
  switch (kinds_[i]) {
    case Kind::kCpu:
      return {alloc.milli_cpu, used.milli_cpu};
    case Kind::kMemory:
      return {alloc.memory, used.memory};
    case Kind::kEphemeralStorage:
      return {alloc.ephemeral_storage, node.requested().ephemeral_storage};
    case Kind::kScalar:
      break;
  }
  return ScalarSide(node, i, dra);
}

inline int64_t ResourceAllocationScorer::ScoreOne(const NodeInfo& node,
                                                  std::span<const int64_t> pod_requests,
                                                  const helper::DraResourceCounter* dra) const {
  const size_t n = resources_.size();
  // On the stack for the usual handful of resources: this runs once per node per pod.
  constexpr size_t kOnStack = 8;
  std::array<int64_t, 3 * kOnStack> stack_buf;
  std::vector<int64_t> heap_buf;
  int64_t* buf = stack_buf.data();
  if (n > kOnStack) {
    heap_buf.resize(3 * n);
    buf = heap_buf.data();
  }
  std::span<int64_t> requested(buf, n), allocated(buf + n, n), allocatable(buf + 2 * n, n);
  for (size_t i = 0; i < n; ++i) {
    requested[i] = allocated[i] = allocatable[i] = 0;
    const int64_t pod_request = i < pod_requests.size() ? pod_requests[i] : 0;
    // A scalar resource the pod does not request is left out, so that nodes with and without
    // it score alike (upstream #102154).
    if (pod_request == 0 && kinds_[i] == Kind::kScalar &&
        IsScalarResourceName(resources_[i].name)) {
      continue;
    }
    NodeAmounts amounts = NodeSide(node, i, dra);
    if (amounts.allocatable == 0) continue;
    allocatable[i] = amounts.allocatable;
    allocated[i] = amounts.allocated;
    requested[i] = amounts.allocated + pod_request;
  }
  return scorer_(requested, allocated, allocatable);
}

Status ResourceAllocationScorer::Score(const NodeInfo& node, std::span<const int64_t> pod_requests,
                                       int64_t* score,
                                       const helper::DraResourceCounter* dra) const {
  if (resources_.empty()) return Status::Error("resources not found");
  *score = ScoreOne(node, pod_requests, dra);
  return Status();
}

Status ResourceAllocationScorer::ScoreNodes(std::span<NodeScore> scores,
                                            std::span<const int64_t> pod_requests,
                                            const helper::DraResourceCounter* dra) const {
  if (resources_.empty()) return Status::Error("resources not found");
  for (NodeScore& s : scores) s.score = ScoreOne(*s.node, pod_requests, dra);
  return Status();
}

int64_t ResourceAllocationScorer::ScorePlacement(std::span<const NodeInfo* const> nodes,
                                                 std::span<const api::Pod* const> pods) const {
  const size_t n = resources_.size();
  std::vector<int64_t> requested(n, 0), allocated(n, 0), allocatable(n, 0);
  for (const api::Pod* pod : pods) {
    const std::vector<int64_t> r = PodRequests(*pod);
    for (size_t i = 0; i < n; ++i) requested[i] += r[i];
  }
  for (const NodeInfo* node : nodes) {
    for (size_t i = 0; i < n; ++i) {
      // As ScoreOne: a scalar resource the group does not request is left out.
      if (requested[i] == 0 && kinds_[i] == Kind::kScalar &&
          IsScalarResourceName(resources_[i].name)) {
        continue;
      }
      const NodeAmounts amounts = NodeSide(*node, i, nullptr);
      if (amounts.allocatable == 0) continue;
      allocatable[i] += amounts.allocatable;
      allocated[i] += amounts.allocated;
      requested[i] += amounts.allocated;
    }
  }
  return scorer_(requested, allocated, allocatable);
}

bool IsBestEffort(std::span<const int64_t> pod_requests) {
  return std::all_of(pod_requests.begin(), pod_requests.end(), [](int64_t r) { return r == 0; });
}

}  // namespace ksched::plugins::node_resources
