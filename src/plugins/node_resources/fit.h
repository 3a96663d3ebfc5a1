// NodeResourcesFit: filters out nodes without room for the pod's requests, and scores the rest
// with a configurable strategy (upstream's plugins/noderesources/fit.go).
//
//   PreFilter  computes the pod's requests (api::PodRequests: sidecars, init containers,
//              pod-level requests, overhead) into the CycleState.
//   Filter     "Too many pods", "Insufficient cpu", "Insufficient memory",
//              "Insufficient ephemeral-storage", "Insufficient <scalar>" — every failing check
//              in that order (scalars by name), in one status. An extended resource a
//              DeviceClass backs, on a node that does not advertise it, is DynamicResources' to
//              check (DRAExtendedResource).
//   PreScore/Score  LeastAllocated (default), MostAllocated or RequestedToCapacityRatio; a
//              DRA-backed resource they name counts a class's devices where no device plugin
//              serves it (helper::DraResourceCounter).
//
// Thread safety: Filter and Score only read the plugin and the CycleState.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"
#include "src/plugins/names.h"
#include "src/plugins/node_resources/args.h"
#include "src/plugins/node_resources/resource_allocation.h"

namespace ksched::plugins::node_resources {

// Extended resources the Filter skips (NodeResourcesFitArgs.ignoredResources/Groups).
struct IgnoredResources {
  std::set<std::string, std::less<>> names;
  std::set<std::string, std::less<>> groups;  // The part of the name before the first '/'.
};

// One failed check of FitsRequest.
struct InsufficientResource {
  std::string resource;  // "pods", "cpu", "memory", "ephemeral-storage" or the scalar's name.
  std::string reason;    // "Too many pods", "Insufficient cpu", ...
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The request exceeds the node's whole allocatable amount, so preemption cannot help.
  bool unresolvable = false;
};

// The checks of Filter for a pod requesting `request` on a node with `allocatable`, `used`
// (NodeInfo::requested()) and `num_pods` pods. `ignored` applies to extended resources only; a
// scalar the node lacks counts as 0 allocatable; a zero request of a scalar is not checked.
std::vector<InsufficientResource> FitsRequest(const Resource& request, const Resource& allocatable,
                                              const Resource& used, size_t num_pods,
                                              const IgnoredResources& ignored);

// The requests as Fit and BalancedAllocation sign them: upstream's computePodResourceRequest.
std::string SignRequests(const api::Pod& pod);

// `request` without those of `backed` (helper::DraBacked) that `allocatable` lacks: a DRA-backed
// extended resource the node does not advertise is DynamicResources' to check.
Resource WithoutDraBacked(Resource request, const std::vector<std::string>& backed,
                          const Resource& allocatable);

class Fit final : public PreFilterPlugin,
                  public FilterPlugin,
                  public EnqueueExtensions,
                  public PreScorePlugin,
                  public ScorePlugin,
                  public PlacementScorePlugin,
                  public SignPlugin {
 public:
  // `dra`: the DRA objects, for DRA-backed extended resources; null: the gate is off.
  explicit Fit(FitArgs args, const DraLister* dra = nullptr);

  std::string_view Name() const override { return names::kNodeResourcesFit; }

  // Signs the requests, overhead included.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Never rejects; writes the pod's requests for Filter.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // UnschedulableAndUnresolvable when some failing request exceeds the node's allocatable,
  // otherwise Unschedulable; Error when PreFilter did not run.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Pod/Delete|UpdatePodScaleDown: queue when an assigned or nominated pod went away, or when a
  // scaled-down assigned pod freed a resource the pod requests. Node/Add|UpdateNodeAllocatable:
  // skip when the pod would not fit even the empty node; queue an added node; queue an updated
  // node only if the allowed pod count or the allocatable of a requested resource grew (or a
  // requested DRA-backed resource is the devices' there). DeviceClass/Add|Update (DRA-backed
  // extended resources): queue when the class now backs a resource the pod requests.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  // Reads the PreScore state once per run of nodes.
  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override;

  // A pod group's placement (TopologyAwareWorkloadScheduling), whatever the scoring strategy:
  // MostAllocated over the strategy's resources, the group's pods that fit there against the
  // placement's nodes taken as one (upstream's placementScorer), so that the group goes where it
  // fills the domain most.
  Status ScorePlacement(const api::PodGroup& group, const PodGroupAssignments& assignments,
                        int64_t* score) override;

 private:
  IgnoredResources ignored_;
  ResourceAllocationScorer scorer_;
  ResourceAllocationScorer placement_scorer_;
  const DraLister* dra_;
  // The rejections for one of the standard resources, by reason, built once and shared: a full
  // cluster turns most nodes down alike, and preemption's what-if asks again for each victim.
  // [0] is Unschedulable, [1] UnschedulableAndUnresolvable.
  absl::flat_hash_map<std::string, Status> common_rejections_[2];
};

// Builds Fit from its decoded args (the Registry wraps it with TypedFactory<FitArgs>), with
// DRA-backed extended resources.
absl::StatusOr<std::unique_ptr<Plugin>> NewFit(const FitArgs& args, Handle& handle);
// The factory with the DRAExtendedResource gate at `dra_extended_resource`.
std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const FitArgs&, Handle&)> MakeFitFactory(
    bool dra_extended_resource);

}  // namespace ksched::plugins::node_resources
