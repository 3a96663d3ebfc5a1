#include "src/plugins/node_resources/scoring_strategy.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ksched/plugin.h"

namespace ksched::plugins::node_resources {
namespace {

// (a * b) / c without overflow (the products here can exceed int64 for byte counts). The 128-bit
// division is slow, so it is taken only when the product overflows.
int64_t MulDiv(int64_t a, int64_t b, int64_t c) {
  int64_t product = 0;
  if (!__builtin_mul_overflow(a, b, &product)) return product / c;
  return static_cast<int64_t>(static_cast<__int128>(a) * b / c);
}

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return MulDiv(capacity - requested, kMaxNodeScore, capacity);
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  // Requests may exceed capacity: containers without requests count 100m / 200Mi.
  return MulDiv(std::min(requested, capacity), kMaxNodeScore, capacity);
}

// requested * 100 / capacity, clamped to [0, 100] (upstream's scaledUtilization).
int64_t ScaledUtilization(int64_t requested, int64_t capacity) {
  if (capacity <= 0 || requested <= 0) return 0;
  if (requested >= capacity) return kMaxNodeScore;
  return MulDiv(requested, kMaxNodeScore, capacity);
}

// The integer weighted mean of per-resource scores over resources with allocatable != 0.
ResourceScorerFn WeightedMean(std::vector<ResourceSpec> resources,
                              int64_t (*resource_score)(int64_t, int64_t)) {
  return [resources = std::move(resources), resource_score](
             std::span<const int64_t> requested, std::span<const int64_t>,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0, weight_sum = 0;
    for (size_t i = 0; i < requested.size() && i < resources.size(); ++i) {
      if (allocatable[i] == 0) continue;
      node_score += resource_score(requested[i], allocatable[i]) * resources[i].weight;
      weight_sum += resources[i].weight;
    }
    return weight_sum == 0 ? 0 : node_score / weight_sum;
  };
}

}  // namespace

ResourceScorerFn LeastAllocatedScorer(std::vector<ResourceSpec> resources) {
  return WeightedMean(std::move(resources), &LeastRequestedScore);
}

ResourceScorerFn MostAllocatedScorer(std::vector<ResourceSpec> resources) {
  return WeightedMean(std::move(resources), &MostRequestedScore);
}

ResourceScorerFn RequestedToCapacityRatioScorer(std::vector<ResourceSpec> resources,
                                                const std::vector<UtilizationShapePoint>& shape) {
  auto raw = helper::ShapeScorer(shape);
  return [resources = std::move(resources), raw = std::move(raw)](
             std::span<const int64_t> requested, std::span<const int64_t>,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0, weight_sum = 0;
    for (size_t i = 0; i < requested.size() && i < resources.size(); ++i) {
      if (allocatable[i] == 0) continue;
      const int64_t c = allocatable[i], r = requested[i];
      const int64_t score = r > c ? raw(kMaxNodeScore) : raw(ScaledUtilization(r, c));
      if (score <= 0) continue;
      node_score += score * resources[i].weight;
      weight_sum += resources[i].weight;
    }
    if (weight_sum == 0) return 0;
    return static_cast<int64_t>(
        std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  };
}

}  // namespace ksched::plugins::node_resources
