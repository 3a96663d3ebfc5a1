// What the parts of config loading share: decode.cc reads the document strictly, defaults.cc
// applies upstream's v1 defaults and completes the plugins' args, validation.cc checks the result
// as upstream's validation.go does, encode.cc writes it back. load.cc strings them together.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "nlohmann/json.hpp"
#include "src/config/config.h"

namespace ksched::config::internal {

// The extension points of Plugins, with their v1 field names, in upstream's order.
struct PointField {
  std::string_view name;
  PluginSet Plugins::*set;
  std::string_view go_type;  // The interface's name in upstream's "does not exist" error.
};
inline constexpr PointField kPoints[] = {
    {"preEnqueue", &Plugins::pre_enqueue, "PreEnqueuePlugin"},
    {"queueSort", &Plugins::queue_sort, "QueueSortPlugin"},
    {"preFilter", &Plugins::pre_filter, "PreFilterPlugin"},
    {"filter", &Plugins::filter, "FilterPlugin"},
    {"postFilter", &Plugins::post_filter, "PostFilterPlugin"},
    {"preScore", &Plugins::pre_score, "PreScorePlugin"},
    {"score", &Plugins::score, "ScorePlugin"},
    {"reserve", &Plugins::reserve, "ReservePlugin"},
    {"permit", &Plugins::permit, "PermitPlugin"},
    {"preBind", &Plugins::pre_bind, "PreBindPlugin"},
    {"bind", &Plugins::bind, "BindPlugin"},
    {"postBind", &Plugins::post_bind, "PostBindPlugin"},
    // Upstream reports an unknown multiPoint plugin at the first point it expands to.
    {"multiPoint", &Plugins::multi_point, "PreFilterPlugin"},
    {"placementGenerate", &Plugins::placement_generate, "PlacementGeneratePlugin"},
    {"placementScore", &Plugins::placement_score, "PlacementScorePlugin"},
    {"podGroupPostFilter", &Plugins::pod_group_post_filter, "PodGroupPostFilterPlugin"},
};

// Decodes a KubeSchedulerConfiguration document strictly: an unknown field is an error. `text` is
// the file's content, which upstream quotes when the kind is missing.
absl::StatusOr<Configuration> DecodeDocument(const nlohmann::json& doc, std::string_view text);

// A Go duration string ("15s") as absl's; zero if it does not parse (decoding checked it).
absl::Duration ParsedDuration(const std::string& go);

// The enabled plugins of a merged profile, each once, multiPoint first, as upstream collects the
// plugins whose args it defaults.
std::vector<std::string> EnabledPlugins(const Profile& p);

// Upstream's v1 defaults, the default plugins merged into every profile.
void SetDefaults(Configuration& cfg);

// gets one with its defaults, after the written ones. Decoding errors (a wrong kind, an unknown
// field) return at once, as upstream's decoder fails before validation; validation errors go to
// `errs`.
absl::Status CompleteArgs(Profile& p, std::string_view path, const Registry& registry,
                          api::field::ErrorList& errs);

// validation.go's checks, into `errs`.
void Validate(const Configuration& cfg, api::field::ErrorList& errs);

// Every enabled plugin must exist; upstream finds this when it builds the profiles, after
// validation, and reports the first.
absl::Status CheckPluginsExist(const Configuration& cfg, const Registry& registry);

}  // namespace ksched::config::internal
