// TopologyPlacementGenerator: the placements of a pod group with a topology constraint, one per
// domain of its key (upstream's plugins/topologyaware, the TopologyAwareWorkloadScheduling gate).
//
//   spec.schedulingConstraints.topology: [{key: topology.kubernetes.io/rack}]
//   → one placement per rack, named by the rack, with the nodes of the parent placement that
//     carry that rack label; only the rack of the group's pods already placed, if any are.
//
// A group without the constraint is tried on the parent placement as it is.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::topology_aware {

class TopologyPlacementGenerator final : public PlacementGeneratePlugin {
 public:
  explicit TopologyPlacementGenerator(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kTopologyPlacementGenerator; }

  // The domains' placements, in the order the parent's nodes first show them; nodes without the
  // label are in none. An Error when the group's placed pods are not in one domain:
  //   cannot determine domain for already scheduled pods: more than 1 domain found for pod
  //   group: rack-1, rack-2
  Status GeneratePlacements(const api::PodGroup& group, const Placement& parent,
                            std::vector<Placement>* placements) override;

 private:
  Handle& handle_;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::topology_aware
