// AsyncBindPlugin: a Bind plugin that can also bind without holding a thread, as DefaultBinder
// does through ClusterWriter::BindAsync. A plugin implements both BindPlugin and this.
// AsyncPreBindPlugin: the same for a PreBind plugin (DynamicResources, through
// ClusterWriter::ReserveResourceClaimAsync); it implements both PreBindPlugin and this.
//
// When a profile's first Bind plugin is an AsyncBindPlugin, and every PreBind plugin with work
// for the pod (PreBindPreFlight did not skip) is an AsyncPreBindPlugin, the binding cycle of a
// pod whose Permit did not wait starts on the scheduling thread and goes on where each answer
// arrives (the HTTP client's I/O thread), rather than on a binding thread that sleeps through
// the round trips (Framework::CanBindAsync).
#pragma once

#include <functional>
#include <string_view>

#include "ksched/api/objects.h"
#include "ksched/cycle_state.h"
#include "ksched/status.h"

namespace ksched {

class AsyncBindPlugin {
 public:
  // Binds as the plugin's Bind does, and gives `done` its status (never Skip). `done` runs on
  // another thread or before BindAsync returns, and must not block.
  virtual void BindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                         std::function<void(Status)> done) = 0;

 protected:
  ~AsyncBindPlugin() = default;
};

class AsyncPreBindPlugin {
 public:
  // Does what the plugin's PreBind does, and gives `done` its status. `done` runs on another
  // thread or before PreBindAsync returns, and must not block; nor may what PreBindAsync runs on
  // the thread an answer arrives on.
  virtual void PreBindAsync(CycleState& state, const api::Pod& pod, std::string_view node,
                            std::function<void(Status)> done) = 0;

 protected:
  ~AsyncPreBindPlugin() = default;
};

}  // namespace ksched
