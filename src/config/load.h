// Reading a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file as kube-scheduler
// reads it: strict decoding (an unknown field is an error), upstream's v1 defaults, then
// upstream's validation, including every plugin's args through the Registry's ArgsDecoders.
//
//   absl::StatusOr<Configuration> cfg = LoadConfigFile("sched.yaml", registry);
//   if (!cfg.ok()) { print cfg.status().message(); exit 1; }
//   // e.g. "profiles[0].plugins.score.enabled[1].weight: Invalid value: 0: must be in range
//   //       [1, 100]"
//
// The Configuration that comes back is effective: the default plugins are merged into every
// profile, and pluginConfig holds complete args for every enabled plugin that has an args type.
// EncodeConfiguration turns it back into the v1 document (`ksched config print` prints it with
// api::JsonToYaml, /configz as JSON).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/registry.h"
#include "nlohmann/json.hpp"
#include "src/config/config.h"

namespace ksched::config {

inline constexpr const char* kApiVersion = kArgsApiVersion;
inline constexpr char kKind[] = "KubeSchedulerConfiguration";

// Decodes, defaults and validates the YAML or JSON text of a config file. `registry` names the
// plugins that exist and decodes their args. Errors are InvalidArgument with the message a user
// sees (without the file name).
absl::StatusOr<Configuration> DecodeConfiguration(std::string_view text, const Registry& registry);

// DecodeConfiguration on a file's content; errors are prefixed with the file's path.
absl::StatusOr<Configuration> LoadConfigFile(const std::string& path, const Registry& registry);

// The defaults with no file: one default-scheduler profile, completed as a file would be.
absl::StatusOr<Configuration> DefaultEffectiveConfiguration(const Registry& registry);

// The file's configuration (LoadConfigFile), or with no file ("") the defaults, as --config is
// read by every command.
absl::StatusOr<Configuration> LoadConfigOrDefaults(const std::string& path,
                                                   const Registry& registry);

// The configuration as a v1 document, every field present (Go's omitempty fields left out).
nlohmann::json EncodeConfiguration(const Configuration& cfg);

}  // namespace ksched::config
