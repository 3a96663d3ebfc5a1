// The scoring engine shared by NodeResourcesFit and NodeResourcesBalancedAllocation (upstream's
// resourceAllocationScorer in resource_allocation.go): it turns a pod and a node into three lists
// indexed like the configured resources, and hands them to a strategy function.
//
//   ResourceAllocationScorer scorer(resources, {.use_requested = false},
//                                   LeastAllocatedScorer(resources));
//   std::vector<int64_t> req = scorer.PodRequests(pod);  // once per cycle, in PreScore
//   auto dra = scorer.DraCounter(&handle.dra(), state);  // likewise; null: no resource is DRA's
//   int64_t score = 0;
//   Status s = scorer.Score(node, req, &score, dra.get());  // per node
//
// Thread safety: immutable after construction but for its selector cache, which locks; Score may
// run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ksched/api/objects.h"
#include "ksched/node_info.h"
#include "ksched/plugin.h"
#include "ksched/status.h"
#include "src/plugins/helper/dra_extended.h"
#include "src/plugins/helper/selector_cache.h"
#include "src/plugins/node_resources/args.h"

namespace ksched::plugins::node_resources {

// Scores a node from, per configured resource i:
//   requested[i]   — what the node would hold with the pod (allocated[i] + the pod's request);
//   allocated[i]   — what the node holds without the pod;
//   allocatable[i] — the node's allocatable amount.
// Entries of resources the node lacks (allocatable 0), and of scalar resources the pod does not
// request, are all 0: strategies skip entries whose allocatable is 0.
using ResourceScorerFn =
    std::function<int64_t(std::span<const int64_t> requested, std::span<const int64_t> allocated,
                          std::span<const int64_t> allocatable)>;

class ResourceAllocationScorer {
 public:
  struct Options {
    // true (BalancedAllocation): the node side is NodeInfo::requested() and the pod request has no
    // defaults. false (Fit): cpu and memory come from NodeInfo::non_zero_requested(), and a
    // container without a cpu (memory) request counts as 100m (200Mi).
    bool use_requested = false;
    // Whether pod-level requests (spec.resources) replace the containers' total. Upstream's Fit
    // scorer never receives the PodLevelResources gate, so it ignores them; BalancedAllocation
    // honours them.
    bool pod_level_resources = false;
  };

  ResourceAllocationScorer(std::vector<ResourceSpec> resources, Options options,
                           ResourceScorerFn scorer);

  const std::vector<ResourceSpec>& resources() const { return resources_; }

  // The pod's request of each configured resource: cpu in milli-units, the rest in units.
  std::vector<int64_t> PodRequests(const api::Pod& pod) const;

  // For PreScore, with DRAExtendedResource on (`dra` not null): the counter of the devices that
  // serve the configured resources a DeviceClass backs, on the nodes where no device plugin
  // advertises them (upstream's getDRAPreScoredParams); null when no class backs any of them.
  std::shared_ptr<const helper::DraResourceCounter> DraCounter(const DraLister* dra,
                                                               const CycleState& state) const;

  // Sets *score from the node and `pod_requests` (as PodRequests returned), a DRA-backed
  // resource from `dra`'s devices where the node has none of it. Error "resources not found"
  // when no resource is configured.
  Status Score(const NodeInfo& node, std::span<const int64_t> pod_requests, int64_t* score,
               const helper::DraResourceCounter* dra = nullptr) const;
  // Score for each entry of `scores`.
  Status ScoreNodes(std::span<NodeScore> scores, std::span<const int64_t> pod_requests,
                    const helper::DraResourceCounter* dra = nullptr) const;
  // A pod group's placement as one node (upstream's scorePlacement): the requests of `pods`
  // summed, against the allocatable and allocated amounts of `nodes` summed.
  int64_t ScorePlacement(std::span<const NodeInfo* const> nodes,
                         std::span<const api::Pod* const> pods) const;

 private:
  struct NodeAmounts {
    int64_t allocatable = 0;
    int64_t allocated = 0;
  };
  // Each configured resource's name resolved once, so that Score compares no strings.
  enum class Kind : uint8_t { kCpu, kMemory, kEphemeralStorage, kScalar };
  NodeAmounts NodeSide(const NodeInfo& node, size_t i, const helper::DraResourceCounter* dra) const;
  NodeAmounts ScalarSide(const NodeInfo& node, size_t i,
                         const helper::DraResourceCounter* dra) const;
  int64_t ScoreOne(const NodeInfo& node, std::span<const int64_t> pod_requests,
                   const helper::DraResourceCounter* dra) const;

  std::vector<ResourceSpec> resources_;
  std::vector<std::string> names_;  // The resources' names, for DraCounter.
  // The DeviceClasses' selectors' verdicts, for DraCounter (shared by the scorer's copies).
  std::shared_ptr<helper::SelectorCache> selectors_ = std::make_shared<helper::SelectorCache>();
  std::vector<Kind> kinds_;
  Options options_;
  ResourceScorerFn scorer_;
};

// Whether every request is 0 (a best-effort pod, for the configured resources).
bool IsBestEffort(std::span<const int64_t> pod_requests);

}  // namespace ksched::plugins::node_resources
