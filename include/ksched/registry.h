// Registry: plugin name → PluginSpec (the plugin's factory and its args decoder), as
// kube-scheduler's runtime.Registry. Each plugin registers one spec; the in-tree plugins' are
// listed in src/plugins/registry.cc, out-of-tree plugins add theirs compiled in (ksched/app.h) or
// from shared libraries (ksched/plugin_library.h).
//
//   // Typed args, decoded and validated once when the configuration is loaded
//   // (ksched/api/field.h has the helpers that name the field in errors):
//   registry.Register(MakePluginSpec("TeamAware", ParseTeamAwareArgs, TeamAwareArgsToJson,
//                                    NewTeamAware));
//   // Args as written, a JsonArgs:
//   registry.Register("TeamAware",
//       [](const PluginArgs& args, Handle& h) -> absl::StatusOr<std::unique_ptr<Plugin>> {
//         const auto& doc = static_cast<const JsonArgs&>(args).doc();
//         return std::make_unique<TeamAware>(doc.value("label", "team"));
//       });
//
// Thread safety: fill a Registry before the scheduler starts; it is read-only after that.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "nlohmann/json.hpp"

namespace ksched {

// Builds a plugin from its args: the ArgsDecoder's result, or JsonArgs (as written; an empty
// object when absent) for a plugin without one. An error stops the start-up with the message.
using PluginFactory =
    std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const PluginArgs& args, Handle&)>;

// The apiVersion of args documents, as of KubeSchedulerConfiguration itself.
inline constexpr char kArgsApiVersion[] = "kubescheduler.config.k8s.io/v1";

// Decodes a plugin's args (pluginConfig[].args) when the configuration is loaded: fills in every
// default and validates, so that a bad config stops the start before anything runs. Returns the
// typed args, which the factory receives and `ksched config print` shows (PluginArgs::ToJson), or
// InvalidArgument naming the field below `path` (for example
// "profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: ...").
// Optional: a plugin without one gets its args as written.
using ArgsDecoder = std::function<absl::StatusOr<std::shared_ptr<const PluginArgs>>(
    const nlohmann::json& args, std::string_view path)>;

// The ArgsDecoder of args type T: `parse` decodes, defaults and validates; `encode` writes the
// result back as a v1 document.
template <typename T>
ArgsDecoder MakeArgsDecoder(absl::StatusOr<T> (*parse)(const nlohmann::json&, std::string_view),
                            nlohmann::json (*encode)(const T&)) {
  return
      [parse, encode](const nlohmann::json& args,
                      std::string_view path) -> absl::StatusOr<std::shared_ptr<const PluginArgs>> {
        absl::StatusOr<T> parsed = parse(args, path);
        if (!parsed.ok()) return parsed.status();
        return std::make_shared<const TypedArgs<T>>(*std::move(parsed), encode);
      };
}

// The PluginFactory of a plugin with args type T: `make` gets them typed. Args of another type
// (from a decoder of another type) are an InvalidArgument error.
template <typename T>
PluginFactory TypedFactory(
    std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const T& args, Handle&)> make) {
  return [make = std::move(make)](const PluginArgs& args,
                                  Handle& handle) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    const T* typed = ArgsAs<T>(args);
    if (typed == nullptr) {
      return absl::InvalidArgumentError("the plugin's args are not of the type its factory takes");
    }
    return make(*typed, handle);
  };
}

// Everything ksched needs of a plugin, registered in one piece.
struct PluginSpec {
  std::string name;
  PluginFactory factory;
  // Optional: without one, the factory gets the args as written (JsonArgs).
  ArgsDecoder args;
};

// The spec of a plugin with args type T: `parse` decodes, defaults and validates them, `encode`
// writes them back as a v1 document, and `make` builds the plugin from them.
template <typename T>
PluginSpec MakePluginSpec(
    std::string name, absl::StatusOr<T> (*parse)(const nlohmann::json&, std::string_view),
    nlohmann::json (*encode)(const T&),
    std::type_identity_t<std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const T&, Handle&)>>
        make) {
  return {.name = std::move(name),
          .factory = TypedFactory<T>(std::move(make)),
          .args = MakeArgsDecoder(parse, encode)};
}

class Registry {
 public:
  // Fails with AlreadyExists "a plugin named <name> already exists" on a duplicate name.
  absl::Status Register(PluginSpec spec);
  // A plugin whose args reach its factory as written.
  absl::Status Register(std::string name, PluginFactory factory);
  // nullptr if unknown.
  const PluginSpec* Find(std::string_view name) const;
  // The args decoder of `name`; nullptr if it is unknown or has none.
  const ArgsDecoder* FindArgs(std::string_view name) const;
  std::vector<std::string> Names() const;
  // Adds every plugin of `other`; fails on the first duplicate.
  absl::Status Merge(const Registry& other);

 private:
  std::map<std::string, PluginSpec, std::less<>> plugins_;
};

}  // namespace ksched
