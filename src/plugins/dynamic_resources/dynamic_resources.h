// DynamicResources for pods without resource claims (upstream's plugins/dynamicresources), so
// that such pods are scored and reported as kube-scheduler does it: in 1.36 the plugin is in the
// default profile (DynamicResourceAllocation is GA), weight 2, and for a pod without claims it
//   - skips Filter (PreFilter returns Skip),
//   - scores every node 0,
//   - answers PostFilter with "no new claims to deallocate", the first part of the PostFilter
//     message of every unschedulable pod ("... Insufficient cpu. no new claims to deallocate");
//     but when a PreFilter plugin before it rejected the pod (its PreFilter did not run), with
//     upstream's error "not found", which ends the PostFilter point before DefaultPreemption:
//     "0/3 nodes are available: persistentvolumeclaim "data" not found. not found".
// Pods with claims (spec.resourceClaims) never reach it: ksched rejects them before PreFilter as
// not supported yet (src/scheduler/unsupported.cc).
//
// Thread safety: stateless.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::dynamic_resources {

class DynamicResources final : public PreFilterPlugin,
                               public PostFilterPlugin,
                               public ScorePlugin,
                               public ScoreExtensions,
                               public EnqueueExtensions {
 public:
  std::string_view Name() const override { return names::kDynamicResources; }

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status PostFilter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                    PostFilterResult* result) override;
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;
  // None: the plugin rejects no pod without claims.
  std::vector<ClusterEventWithHint> EventsToRegister() const override { return {}; }
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::dynamic_resources
