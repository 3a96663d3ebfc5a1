#include "src/plugins/image_locality/image_locality.h"

#include <algorithm>
#include <set>

#include "fmt/ranges.h"
#include "src/plugins/helper/signers.h"

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

// The name nodes report the image by: as written when tagged, else with ":latest", built in
// `untagged` (Score runs per node, so a tagged name is not copied).
std::string_view NameOnNodes(std::string_view image, std::string& untagged) {
  if (HasTag(image)) return image;
  untagged = std::string(image) + ":latest";
  return untagged;
}

// Calls fn with each image the pod pulls: its init containers', its containers', and its image
// volumes' references (upstream's sumImageScores); returns whether some call returned true.
template <typename Fn>
bool AnyImage(const api::Pod& pod, Fn&& fn) {
  for (const api::Container& c : pod.spec.init_containers) {
    if (fn(c.image)) return true;
  }
  for (const api::Container& c : pod.spec.containers) {
    if (fn(c.image)) return true;
  }
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source == "image" && fn(v.image_reference)) return true;
  }
  return false;
}

int64_t SumImageScores(const Snapshot& snapshot, const NodeInfo& node, const api::Pod& pod) {
  int64_t sum = 0;
  if (node.image_sizes().empty()) return sum;
  AnyImage(pod, [&](std::string_view image) {
    std::string untagged;
    const std::string_view name = NameOnNodes(image, untagged);
    auto it = node.image_sizes().find(name);
    if (it != node.image_sizes().end()) {
      sum += ScaledImageScore(it->second, snapshot.NumNodesWithImage(name), snapshot.size());
    }
    return false;
  });
  return sum;
}

// Whether some node of the snapshot has one of the pod's images.
bool AnyNodeHasAnImage(const Snapshot& snapshot, const api::Pod& pod) {
  return AnyImage(pod, [&](std::string_view image) {
    std::string untagged;
    return snapshot.NumNodesWithImage(NameOnNodes(image, untagged)) > 0;
  });
}

// Maps the clamped sum linearly onto [0, MaxNodeScore] (upstream's calculatePriority), over the
// pod's images: since 1.37 its image volumes count as well as its containers.
int64_t CalculatePriority(int64_t sum, const api::Pod& pod) {
  int64_t images = 0;
  AnyImage(pod, [&](std::string_view) { return ++images, false; });
  const int64_t max_threshold = kMaxContainerThreshold * images;
  if (sum < kMinThreshold) {
    sum = kMinThreshold;
  } else if (sum > max_threshold) {
    sum = max_threshold;
  }
  return kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
}

}  // namespace

std::string NormalizedImageName(std::string_view image) {
  std::string untagged;
  return std::string(NameOnNodes(image, untagged));
}

Status ImageLocality::Score(const CycleState&, const api::Pod& pod, const NodeInfo& node,
                            int64_t* score) {
  *score = CalculatePriority(SumImageScores(handle_->snapshot(), node, pod), pod);
  return Status();
}

Status ImageLocality::ScoreNodes(const CycleState& state, const api::Pod& pod,
                                 std::span<NodeScore> scores) {
  if (AnyNodeHasAnImage(handle_->snapshot(), pod)) {
    return ScorePlugin::ScoreNodes(state, pod, scores);
  }
  const int64_t none = CalculatePriority(0, pod);
  for (NodeScore& s : scores) s.score = none;
  return Status();
}

Status ImageLocality::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  // As upstream: the containers' images only (image volumes are the volumes' part).
  std::set<std::string> names;
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *list) names.insert(NormalizedImageName(c.image));
  }
  out->push_back({helper::kImageNamesSigner, fmt::format("{::?}", names)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<ImageLocality>(handle);
}

}  // namespace ksched::plugins::image_locality
