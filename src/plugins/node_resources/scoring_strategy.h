// NodeResourcesFit's three scoring strategies (upstream's least_allocated.go, most_allocated.go
// and requested_to_capacity_ratio.go, with helper/shape_score.go), as ResourceScorerFns. All use
// integer arithmetic exactly as upstream, and skip resources whose allocatable is 0.
//
//   ResourceScorerFn f = MostAllocatedScorer({{"cpu", 1}, {"memory", 2}});
//
// Thread safety: the returned functions are pure.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "src/plugins/node_resources/args.h"
#include "src/plugins/node_resources/resource_allocation.h"

namespace ksched::plugins::node_resources {

// Σ w_i * ((c_i - r_i) * 100 / c_i) / Σ w_i, where a resource over capacity scores 0.
ResourceScorerFn LeastAllocatedScorer(std::vector<ResourceSpec> resources);

// Σ w_i * (min(r_i, c_i) * 100 / c_i) / Σ w_i.
ResourceScorerFn MostAllocatedScorer(std::vector<ResourceSpec> resources);

// Per resource, the shape (scores scaled by 10 to 0..100) at utilization r_i * 100 / c_i (100
// when over capacity); resources scoring 0 are left out; the weighted mean is rounded half away
// from zero. `shape` must be validated (non-empty, increasing utilization).
ResourceScorerFn RequestedToCapacityRatioScorer(std::vector<ResourceSpec> resources,
                                                const std::vector<UtilizationShapePoint>& shape);

}  // namespace ksched::plugins::node_resources
