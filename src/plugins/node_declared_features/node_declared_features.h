// NodeDeclaredFeatures: keeps a pod off nodes whose kubelet does not declare a feature the pod
// needs (upstream's plugins/nodedeclaredfeatures, with component-helpers' nodedeclaredfeatures
// registry, 1.36). The node declares its features in status.declaredFeatures; the pod's are
// inferred from its spec:
//
//   - RestartAllContainersOnContainerExits: a container or init container has a restartPolicyRules
//     entry with action RestartAllContainers;
//   - UserNamespacesHostNetworkSupport: hostNetwork with hostUsers: false.
//
// The other features of 1.36's registry are never needed to schedule a pod.
//
//   - PreFilter: Skip for a pod that needs no feature (and for every pod without the
//     NodeDeclaredFeatures gate, beta and on in 1.36).
//   - Filter: UnschedulableAndUnresolvable `node(s) didn't match Pod's required features` on a node
//     that does not declare them all (a node without declaredFeatures declares none).
//   - Node Add or a change of its declared features, and an update of the pod that changes what it
//     needs, may make the pod schedulable.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "ksched/registry.h"
#include "src/plugins/names.h"

namespace ksched::plugins::node_declared_features {

inline constexpr char kErrReasonUnsatisfiedRequirements[] =
    "node(s) didn't match Pod's required features";

// The features `pod` needs a node to declare, by name, sorted.
std::vector<std::string_view> RequiredFeatures(const api::Pod& pod);

class NodeDeclaredFeatures final : public PreFilterPlugin,
                                   public FilterPlugin,
                                   public EnqueueExtensions,
                                   public SignPlugin {
 public:
  explicit NodeDeclaredFeatures(bool enabled) : enabled_(enabled) {}
  std::string_view Name() const override { return names::kNodeDeclaredFeatures; }

  // Signs the features the pod needs.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;
  // Node Add|UpdateNodeDeclaredFeature (Queue unless the declared features are the same), Pod
  // Update (Queue when the pod's own update changes what it needs); none without the gate.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  const bool enabled_;
};

// The plugin's factory, with or without the NodeDeclaredFeatures gate.
PluginFactory MakeFactory(bool enabled);

}  // namespace ksched::plugins::node_declared_features
