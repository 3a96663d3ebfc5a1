// ImageLocality: favours nodes that already hold the pod's container images (upstream's
// plugins/imagelocality/image_locality.go).
//
// For every init and regular container whose image (with ":latest" added when it has no tag) the
// node reports, the image's size is scaled by the share of nodes that report it, so that images
// present everywhere do not pull every pod to the same node. The sum is clamped to
// [23MB, 1000MB * containers] and mapped linearly onto [0, 100].
//
// Thread safety: Score only reads the cycle's snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::image_locality {

class ImageLocality final : public ScorePlugin, public SignPlugin {
 public:
  // `handle` must outlive the plugin; Score reads handle.snapshot().
  explicit ImageLocality(const Handle& handle) : handle_(&handle) {}

  std::string_view Name() const override { return names::kImageLocality; }

  // Signs the normalized image names.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  // Score for each node; when no node of the snapshot has any of the pod's images, every node's
  // score is the same and no node is read.
  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override;

 private:
  const Handle* handle_;
};

// The name a container runtime reports for `image`: ":latest" is added when the part after the
// last '/' has no ':' tag ("gcr.io:5000/root" → "gcr.io:5000/root:latest").
std::string NormalizedImageName(std::string_view image);

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::image_locality
