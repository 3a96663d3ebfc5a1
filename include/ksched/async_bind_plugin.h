// AsyncBindPlugin: a Bind plugin that can also bind without holding a thread, as DefaultBinder
// does through ClusterWriter::BindAsync. A plugin implements both BindPlugin and this.
//
// When a profile has no PreBind plugins and its first Bind plugin is one, the binding cycle of a
// pod whose Permit did not wait starts on the scheduling thread and finishes where the answer
// arrives (the HTTP client's I/O thread), rather than on a binding thread that sleeps through the
// round trip (Framework::CanBindAsync).
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

}  // namespace ksched
