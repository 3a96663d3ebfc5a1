// GangScheduling: all or nothing for the pods of a PodGroup with a gang policy (upstream's
// plugins/gangscheduling, the GenericWorkload gate). PreEnqueue holds a gang's pods until their
// PodGroup exists and at least minCount of its pods are known; Permit holds each placed pod until
// minCount of them are placed, for at most 5 minutes, then lets them all bind; PlacementFeasible
// tells the pod group cycle whether minCount can still be met.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::gang_scheduling {

// How long a placed pod of a gang waits at Permit for the rest (upstream's
// permitTimeoutDuration).
inline constexpr absl::Duration kPermitTimeout = absl::Minutes(5);

class GangScheduling final : public PreEnqueuePlugin,
                             public PermitPlugin,
                             public PlacementFeasiblePlugin,
                             public EnqueueExtensions {
 public:
  explicit GangScheduling(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kGangScheduling; }

  // Success for a pod of no group, or of a basic group; UnschedulableAndUnresolvable
  //   waiting for pods's pod group "train" to appear in scheduling queue
  //   waiting for minCount pods from a gang to appear in scheduling queue
  // (upstream's words) while its PodGroup is missing or fewer than minCount of its pods are known.
  Status PreEnqueue(const api::Pod& pod) override;
  // Wait ("waiting for minCount pods from a gang to be scheduled", 5 minutes) while fewer than
  // minCount of the gang are placed, activating its pending pods; once minCount are, allows the
  // gang's pods waiting here.
  Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                absl::Duration* timeout) override;
  // The free PlacementFeasible below, with the group's minCount.
  Status PlacementFeasible(const api::PodGroup& group, int scheduled, int remaining) override;
  // A pod of its group added (pending or bound), its PodGroup added, or its gang's minCount
  // lowered.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  Handle& handle_;
};

// Whether a gang of `min_count` (1 for a basic group) can still be placed, given how many of its
// pods are placed and how many are left to try (upstream's PlacementFeasible): Unschedulable
//   minCount (3) cannot be satisfied: 1 scheduled, 1 remaining
// when it cannot, Wait "minCount (3) is not yet satisfied: ..." while it is not yet met, else
// Success.
Status PlacementFeasible(int min_count, int scheduled, int remaining);

// The pod group's minCount: its gang's, or 1 for a basic group.
int MinCount(const api::PodGroup& group);

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::gang_scheduling
