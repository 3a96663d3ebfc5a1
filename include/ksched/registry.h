// Registry: plugin name → factory, as kube-scheduler's runtime.Registry. The in-tree plugins are
// listed explicitly in src/plugins/registry.cc; out-of-tree plugins are added with
// Registry::Register (compiled in) or loaded from shared libraries.
//
//   absl::Status st = registry.Register("NetworkAware",
//       [](const nlohmann::json& args, Handle& h) -> absl::StatusOr<std::unique_ptr<Plugin>> {
//         return std::make_unique<NetworkAware>(args.value("label", "network"));
//       });
//
// Thread safety: fill a Registry before the scheduler starts; it is read-only after that.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"

namespace ksched {

// Builds a plugin from its args document (pluginConfig[].args; an empty object when absent).
// An error stops the start-up with the message.
using PluginFactory =
    std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const nlohmann::json& args, Handle&)>;

// Decodes a plugin's args (pluginConfig[].args) when the configuration is loaded: fills in every
// default and validates, so that a bad config stops the start before anything runs. Returns the
// complete args document, which is what `ksched config print` shows and the factory receives, or
// InvalidArgument naming the field below `path` (for example
// "profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: ...").
// Optional: a plugin without one gets its args as written.
// The apiVersion of args documents, as of KubeSchedulerConfiguration itself.
inline constexpr char kArgsApiVersion[] = "kubescheduler.config.k8s.io/v1";

using ArgsDecoder = std::function<absl::StatusOr<nlohmann::json>(const nlohmann::json& args,
                                                                 std::string_view path)>;

class Registry {
 public:
  // Fails with AlreadyExists "a plugin named <name> already exists" on a duplicate name.
  absl::Status Register(std::string name, PluginFactory factory);
  // nullptr if unknown.
  const PluginFactory* Find(std::string_view name) const;
  // Sets the args decoder of `name`, which need not have a factory yet: in-tree args types are
  // known before their plugins land. Fails with AlreadyExists on a second decoder for a name.
  absl::Status RegisterArgs(std::string name, ArgsDecoder decoder);
  // nullptr if `name` has no args decoder.
  const ArgsDecoder* FindArgs(std::string_view name) const;
  std::vector<std::string> Names() const;
  // Adds every plugin and args decoder of `other`; fails on the first duplicate.
  absl::Status Merge(const Registry& other);

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
  std::map<std::string, ArgsDecoder, std::less<>> args_;
};

}  // namespace ksched
