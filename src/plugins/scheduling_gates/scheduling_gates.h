// SchedulingGates: holds pods with spec.schedulingGates out of the active queue (upstream's
// plugins/schedulinggates). Once the last gate is removed the pod is queued again.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::scheduling_gates {

class SchedulingGates final : public PreEnqueuePlugin, public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kSchedulingGates; }

  // Success when the pod has no gates; otherwise UnschedulableAndUnresolvable
  // "waiting for scheduling gates: [a b]" (the gate names in spec order, as Go's %v).
  Status PreEnqueue(const api::Pod& pod) override;

  // Pod/UpdatePodSchedulingGatesEliminated: Queue only when the update is for the gated pod.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::scheduling_gates
