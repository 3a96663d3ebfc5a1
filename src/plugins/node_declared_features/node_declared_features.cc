#include "src/plugins/node_declared_features/node_declared_features.h"

#include <algorithm>
#include <string>

#include "fmt/ranges.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_declared_features {
namespace {

struct Required final : StateData {
  std::vector<std::string_view> features;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<Required>(*this); }
};
inline constexpr StateKey<Required> kStateKey{"PreFilterNodeDeclaredFeatures",
                                              StateScope::kSchedulingCycle};

bool RestartsAllContainers(const api::Pod& pod) {
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *list) {
      for (const api::ContainerRestartRule& rule : c.restart_policy_rules) {
        if (rule.action == "RestartAllContainers") return true;
      }
    }
  }
  return false;
}

bool BindsWithOptions(const api::Container& c) { return c.bind_mount_options; }

QueueingHint AfterNodeChange(const api::Pod&, const ClusterEventData& e) {
  if (e.old_node == nullptr || e.new_node == nullptr) return QueueingHint::kQueue;
  return e.old_node->status.declared_features == e.new_node->status.declared_features
             ? QueueingHint::kQueueSkip
             : QueueingHint::kQueue;
}

QueueingHint AfterPodUpdate(const api::Pod& pod, const ClusterEventData& e) {
  if (e.old_pod == nullptr || e.new_pod == nullptr) return QueueingHint::kQueue;
  if (e.new_pod->metadata.uid != pod.metadata.uid) return QueueingHint::kQueueSkip;
  return RequiredFeatures(*e.old_pod) == RequiredFeatures(*e.new_pod) ? QueueingHint::kQueueSkip
                                                                      : QueueingHint::kQueue;
}

}  // namespace

std::vector<std::string_view> RequiredFeatures(const api::Pod& pod) {
  // In the registry's order, which is by name.
  std::vector<std::string_view> out;
  if (RestartsAllContainers(pod)) out.push_back("RestartAllContainersOnContainerExits");
  if (pod.spec.host_network && pod.spec.host_users == false) {
    out.push_back("UserNamespacesHostNetworkSupport");
  }
  // Since 1.37.
  if (std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(), BindsWithOptions) ||
      std::any_of(pod.spec.init_containers.begin(), pod.spec.init_containers.end(),
                  BindsWithOptions)) {
    out.push_back("VolumeBindMountOptions");
  }
  return out;
}

Status NodeDeclaredFeatures::PreFilter(CycleState& state, const api::Pod& pod,
                                       const std::vector<const NodeInfo*>&, PreFilterResult*) {
  if (!enabled_) return Status::Skip();
  auto required = std::make_unique<Required>();
  required->features = RequiredFeatures(pod);
  if (required->features.empty()) return Status::Skip();
  state.Write(kStateKey, std::move(required));
  return Status();
}

Status NodeDeclaredFeatures::Filter(const CycleState& state, const api::Pod&,
                                    const NodeInfo& node) {
  if (!enabled_) return Status();
  const Required* required = state.Read(kStateKey);
  if (required == nullptr) {
    return Status::Error(
        "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
  }
  const std::vector<std::string>& declared = node.node()->status.declared_features;
  for (std::string_view feature : required->features) {
    if (std::find(declared.begin(), declared.end(), feature) == declared.end()) {
      return Status::UnschedulableAndUnresolvable(kErrReasonUnsatisfiedRequirements);
    }
  }
  return Status();
}

std::vector<ClusterEventWithHint> NodeDeclaredFeatures::EventsToRegister() const {
  if (!enabled_) return {};
  return {
      {{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeDeclaredFeature},
       AfterNodeChange},
      {{EventResource::kPod, ActionType::kUpdate}, AfterPodUpdate},
  };
}

PluginFactory MakeFactory(bool enabled) {
  return [enabled](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
    return std::make_unique<NodeDeclaredFeatures>(enabled);
  };
}

Status NodeDeclaredFeatures::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kFeaturesSigner,
                  enabled_ ? fmt::format("{}", fmt::join(RequiredFeatures(pod), ",")) : ""});
  return Status();
}

}  // namespace ksched::plugins::node_declared_features
