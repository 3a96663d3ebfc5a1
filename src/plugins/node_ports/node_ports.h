// NodePorts: keeps a pod off nodes where one of its host ports is taken (upstream's
// plugins/nodeports). Unlike most filters its rejection is Unschedulable: preempting the pod
// that holds the port frees it.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::node_ports {

inline constexpr char kErrReason[] = "node(s) didn't have free ports for the requested pod ports";

class NodePorts final : public PreFilterPlugin,
                        public FilterPlugin,
                        public EnqueueExtensions,
                        public SignPlugin {
 public:
  std::string_view Name() const override { return names::kNodePorts; }

  // Signs the host ports.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  // Skip when the pod asks for no host ports; otherwise stores them in `state` for Filter.
  // Leaves `result` at all nodes.
  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;

  // Unschedulable kErrReason when a wanted host port conflicts with one in use on the node.
  // Computes the ports itself when PreFilter did not run.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Pod/Delete: Queue only when the deleted pod was assigned (or nominated) and held a host
  // port the rejected pod wants. Node/Add: always Queue.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::node_ports
