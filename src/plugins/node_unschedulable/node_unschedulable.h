// NodeUnschedulable: keeps pods off nodes with spec.unschedulable (cordoned nodes) unless they
// tolerate the node.kubernetes.io/unschedulable:NoSchedule taint (upstream's
// plugins/nodeunschedulable).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::node_unschedulable {

inline constexpr char kErrReasonUnschedulable[] = "node(s) were unschedulable";

class NodeUnschedulable final : public PreFilterPlugin,
                                public FilterPlugin,
                                public EnqueueExtensions,
                                public SignPlugin {
 public:
  std::string_view Name() const override { return names::kNodeUnschedulable; }

  // Signs the tolerations.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Since 1.37 a PreFilter that lets every pod through (upstream skips pods whose resize is
  // deferred, with the alpha InPlacePodVerticalScalingSchedulerPreemption).
  Status PreFilter(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    return Status();
  }

  // UnschedulableAndUnresolvable kErrReasonUnschedulable when the node is unschedulable and the
  // pod does not tolerate node.kubernetes.io/unschedulable:NoSchedule.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Node/Add|UpdateNodeTaint: Queue when a node was added schedulable or became schedulable.
  // Pod/UpdatePodToleration: Queue when the rejected pod now tolerates the unschedulable taint.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::node_unschedulable
