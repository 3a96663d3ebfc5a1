// TaintToleration: keeps pods off nodes whose NoSchedule/NoExecute taints they do not tolerate,
// and prefers nodes with fewer untolerated PreferNoSchedule taints (upstream's
// plugins/tainttoleration).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::taint_toleration {

// The v1.35+ text; the taint itself is not named.
inline constexpr char kErrReasonUntolerated[] = "node(s) had untolerated taint(s)";

class TaintToleration final : public PreFilterPlugin,
                              public FilterPlugin,
                              public PreScorePlugin,
                              public ScorePlugin,
                              public ScoreExtensions,
                              public EnqueueExtensions,
                              public SignPlugin {
 public:
  std::string_view Name() const override { return names::kTaintToleration; }

  // Signs the tolerations.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Since 1.37 a PreFilter that lets every pod through (upstream skips pods whose resize is
  // deferred, with the alpha InPlacePodVerticalScalingSchedulerPreemption).
  Status PreFilter(CycleState&, const api::Pod&, const std::vector<const NodeInfo*>&,
                   PreFilterResult*) override {
    return Status();
  }

  // UnschedulableAndUnresolvable kErrReasonUntolerated when the pod does not tolerate one of
  // the node's NoSchedule or NoExecute taints. PreferNoSchedule taints never reject.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Stores the pod's tolerations that can tolerate PreferNoSchedule (empty effect or
  // PreferNoSchedule) in `state` for Score.
  Status PreScore(CycleState& state, const api::Pod& pod,
                  const std::vector<const NodeInfo*>& feasible) override;

  // The number of the node's PreferNoSchedule taints the pod does not tolerate. Computes the
  // tolerations itself when PreScore did not run.
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;
  // Score over a run of nodes, reading the PreScore state once.
  Status ScoreNodes(const CycleState& state, const api::Pod& pod,
                    std::span<NodeScore> scores) override;

  // Reversed DefaultNormalizeScore: fewer untolerated taints score higher, none scores 100.
  Status NormalizeScore(const CycleState& state, const api::Pod& pod,
                        NodeScoreList& scores) override;

  // Node/Add|UpdateNodeTaint: Queue when the node was untolerated (or new) and is now tolerated.
  // Pod/UpdatePodToleration: Queue when the update is for the rejected pod.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::taint_toleration
