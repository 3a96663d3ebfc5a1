// NodeResourcesBalancedAllocation: favours nodes whose resource usage becomes more balanced if the
// pod lands there (upstream's plugins/noderesources/balanced_allocation.go, v1.36).
//
// For each node, balance(x) = int((1 - std) * 100) where std is the standard deviation of the
// fractions min(x_i / allocatable_i, 1) over the configured resources the node has (for two
// resources, |f0 - f1| / 2). The score is
//   50 + (50 + balance(with the pod) - balance(without the pod)) / 2      (integer division)
// so no change scores 75, balanced→unbalanced 50 and unbalanced→balanced 100. This is the
// formula of kubernetes PR #135573 (merged for v1.36); v1.35 scored balance(with the pod) alone.
// Node usage is NodeInfo::requested() (no non-zero defaults); pod-level requests count. A
// configured resource that a DeviceClass backs (DRAExtendedResource), on a node where no device
// plugin advertises it, counts the class's devices there and those in use.
//
// Thread safety: Score only reads the plugin and the CycleState.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"
#include "src/plugins/names.h"
#include "src/plugins/node_resources/args.h"
#include "src/plugins/node_resources/resource_allocation.h"

namespace ksched::plugins::node_resources {

class BalancedAllocation final : public PreScorePlugin, public ScorePlugin, public SignPlugin {
 public:
  // `dra`: the DRA objects, for DRA-backed extended resources; null: the gate is off.
  explicit BalancedAllocation(BalancedAllocationArgs args, const DraLister* dra = nullptr);

  std::string_view Name() const override { return names::kNodeResourcesBalancedAllocation; }

  // Signs the requests, overhead included.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Skip for a pod that requests none of the configured resources (upstream #129138), so that
  // best-effort pods are not all drawn to the same node.
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  // Reads the PreScore state once per run of nodes.
  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override;

 private:
  ResourceAllocationScorer scorer_;
  const DraLister* dra_;
};

// The strategy function described above, exposed for tests.
int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable);

// Builds BalancedAllocation from its decoded args (the Registry wraps it with
// TypedFactory<BalancedAllocationArgs>), with DRA-backed extended resources.
absl::StatusOr<std::unique_ptr<Plugin>> NewBalancedAllocation(const BalancedAllocationArgs& args,
                                                              Handle& handle);
// The factory with the DRAExtendedResource gate at `dra_extended_resource`.
std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const BalancedAllocationArgs&, Handle&)>
MakeBalancedAllocationFactory(bool dra_extended_resource);

}  // namespace ksched::plugins::node_resources
