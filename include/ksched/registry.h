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

class Registry {
 public:
  // Fails with AlreadyExists "a plugin named <name> already exists" on a duplicate name.
  absl::Status Register(std::string name, PluginFactory factory);
  // nullptr if unknown.
  const PluginFactory* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  // Adds every plugin of `other`; fails on the first duplicate.
  absl::Status Merge(const Registry& other);

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace ksched
