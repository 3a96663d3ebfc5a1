#include "src/config/load.h"

#include <algorithm>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/base/file.h"
#include "src/config/internal.h"

namespace ksched::config {
namespace {

absl::StatusOr<Configuration> Complete(Configuration cfg, const Registry& registry) {
  internal::SetDefaults(cfg);
  api::field::ErrorList errs;
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    KSCHED_RETURN_IF_ERROR(
        internal::CompleteArgs(cfg.profiles[i], api::field::Index("profiles", i), registry, errs));
  }
  internal::Validate(cfg, errs);
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  KSCHED_RETURN_IF_ERROR(internal::CheckPluginsExist(cfg, registry));
  for (Profile& p : cfg.profiles) {  // Upstream's effective configuration lists args by name.
    std::stable_sort(p.plugin_config.begin(), p.plugin_config.end(),
                     [](const PluginConfig& a, const PluginConfig& b) { return a.name < b.name; });
  }
  return cfg;
}

}  // namespace

absl::StatusOr<Configuration> DecodeConfiguration(std::string_view text, const Registry& registry) {
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(text);
  if (!docs.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("the config is not valid YAML: {}", AsStd(docs.status().message())));
  }
  if (docs->size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("the config must hold one document, found {}", docs->size()));
  }
  nlohmann::json doc = nlohmann::json::parse((*docs)[0], nullptr, false);
  if (doc.is_discarded()) return absl::InvalidArgumentError("the config is not valid JSON");
  absl::StatusOr<Configuration> cfg = internal::DecodeDocument(doc, text);
  if (!cfg.ok()) {
    // apimachinery's strict decoding names unknown fields under this prefix.
    const std::string_view msg = AsStd(cfg.status().message());
    if (msg.starts_with("unknown field ")) {
      return absl::InvalidArgumentError(fmt::format("strict decoding error: {}", msg));
    }
    return cfg.status();
  }
  return Complete(*std::move(cfg), registry);
}

absl::StatusOr<Configuration> LoadConfigFile(const std::string& path, const Registry& registry) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  absl::StatusOr<Configuration> cfg = DecodeConfiguration(*text, registry);
  if (!cfg.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, AsStd(cfg.status().message())));
  }
  return cfg;
}

absl::StatusOr<Configuration> DefaultEffectiveConfiguration(const Registry& registry) {
  Configuration cfg;
  return Complete(std::move(cfg), registry);
}

absl::StatusOr<Configuration> LoadConfigOrDefaults(const std::string& path,
                                                   const Registry& registry) {
  return path.empty() ? DefaultEffectiveConfiguration(registry) : LoadConfigFile(path, registry);
}

}  // namespace ksched::config
