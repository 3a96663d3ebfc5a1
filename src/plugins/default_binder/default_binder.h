// DefaultBinder: binds the pod to its node through the cluster writer (upstream's
// plugins/defaultbinder), i.e. POST pods/<name>/binding. It can also bind without holding a
// thread (AsyncBindPlugin).
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "ksched/async_bind_plugin.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::default_binder {

class DefaultBinder final : public BindPlugin, public AsyncBindPlugin {
 public:
  // `handle` must outlive the plugin.
  explicit DefaultBinder(Handle& handle) : handle_(handle) {}
  DefaultBinder(const DefaultBinder&) = delete;
  DefaultBinder& operator=(const DefaultBinder&) = delete;

  std::string_view Name() const override { return names::kDefaultBinder; }

  // Success once the cluster accepted the binding; otherwise Error with the writer's message.
  // Blocks for the round trip. Thread-safe as the handle's writer is.
  Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) override;
  // The same through the writer's BindAsync: `done` runs where the writer's answer arrives.
  void BindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                 std::function<void(Status)> done) override;

 private:
  Handle& handle_;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::default_binder
