// NodeName: a pod with spec.nodeName set fits only that node (upstream's plugins/nodename).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::node_name {

inline constexpr char kErrReason[] = "node(s) didn't match the requested node name";

class NodeName final : public PreFilterPlugin,
                       public FilterPlugin,
                       public EnqueueExtensions,
                       public SignPlugin {
 public:
  std::string_view Name() const override { return names::kNodeName; }

  // Signs spec.nodeName.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Since 1.37: a pod with spec.nodeName set is evaluated on that node alone, so that the others
  // are not preemption's candidates.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // UnschedulableAndUnresolvable kErrReason when spec.nodeName is set and names another node.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Node/Add, always Queue.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::node_name
