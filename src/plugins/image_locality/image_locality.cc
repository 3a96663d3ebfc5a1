#include "src/plugins/image_locality/image_locality.h"

#include <algorithm>

namespace ksched::plugins::image_locality {
namespace {

// Bounds of the score range: 90% of the images on Docker Hub fall between them.
constexpr int64_t kMB = int64_t{1024} * 1024;
constexpr int64_t kMinThreshold = 23 * kMB;
constexpr int64_t kMaxContainerThreshold = 1000 * kMB;

// The image's size scaled by the share of nodes that hold it, truncated as upstream's
// scaledImageScore (float64).
int64_t ScaledImageScore(int64_t size, int num_nodes, size_t total_nodes) {
  if (total_nodes == 0) return 0;
  const double spread = static_cast<double>(num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(size) * spread);
}

bool HasTag(std::string_view image) {
  const size_t colon = image.rfind(':');
  const size_t slash = image.rfind('/');
  // Upstream adds the tag when LastIndex(":") <= LastIndex("/"), an absent index being -1.
  return colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
}

int64_t SumImageScores(const Snapshot& snapshot, const NodeInfo& node, const api::Pod& pod) {
  int64_t sum = 0;
  if (node.image_sizes().empty()) return sum;
  auto add = [&](const api::Container& c) {
    // Score runs per node: build the ":latest" name only for an untagged image.
    std::string untagged;
    const std::string_view name = HasTag(c.image)
                                      ? std::string_view(c.image)
                                      : std::string_view(untagged = c.image + ":latest");
    auto it = node.image_sizes().find(name);
    if (it == node.image_sizes().end()) return;
    sum += ScaledImageScore(it->second, snapshot.NumNodesWithImage(name), snapshot.size());
  };
  std::for_each(pod.spec.init_containers.begin(), pod.spec.init_containers.end(), add);
  std::for_each(pod.spec.containers.begin(), pod.spec.containers.end(), add);
  return sum;
}

// Maps the clamped sum linearly onto [0, MaxNodeScore] (upstream's calculatePriority).
// Whether some node of the snapshot has one of the pod's images.
bool AnyNodeHasAnImage(const Snapshot& snapshot, const api::Pod& pod) {
  auto on_some_node = [&](const api::Container& c) {
    return snapshot.NumNodesWithImage(NormalizedImageName(c.image)) > 0;
  };
  return std::any_of(pod.spec.init_containers.begin(), pod.spec.init_containers.end(),
                     on_some_node) ||
         std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(), on_some_node);
}

int64_t CalculatePriority(int64_t sum, int64_t num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (sum < kMinThreshold) {
    sum = kMinThreshold;
  } else if (sum > max_threshold) {
    sum = max_threshold;
  }
  return kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
}

}  // namespace

std::string NormalizedImageName(std::string_view image) {
  return HasTag(image) ? std::string(image) : std::string(image) + ":latest";
}

Status ImageLocality::Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
                            int64_t* score) {
  const int64_t sum = SumImageScores(handle_->snapshot(), node, pod);
  const int64_t containers =
      static_cast<int64_t>(pod.spec.init_containers.size() + pod.spec.containers.size());
  *score = CalculatePriority(sum, containers);
  return Status();
}

Status ImageLocality::ScoreNodes(const CycleState& state, const api::Pod& pod,
                                 std::span<NodeScore> scores) {
  if (AnyNodeHasAnImage(handle_->snapshot(), pod))
    return ScorePlugin::ScoreNodes(state, pod, scores);
  const int64_t containers =
      static_cast<int64_t>(pod.spec.init_containers.size() + pod.spec.containers.size());
  const int64_t none = CalculatePriority(0, containers);
  for (NodeScore& s : scores) s.score = none;
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<ImageLocality>(handle);
}

}  // namespace ksched::plugins::image_locality
