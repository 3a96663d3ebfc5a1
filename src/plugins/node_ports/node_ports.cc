#include "src/plugins/node_ports/node_ports.h"

#include <algorithm>

#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_ports {

namespace {

struct PreFilterState : StateData {
  std::vector<api::ContainerPort> ports;
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};
inline constexpr StateKey<PreFilterState> kPreFilterStateKey{"PreFilterNodePorts",
                                                             StateScope::kSchedulingCycle};

// Whether none of `wanted` conflicts with `in_use` (upstream's fitsPorts).
bool FitsPorts(const std::vector<api::ContainerPort>& wanted, const HostPortInfo& in_use) {
  return std::none_of(wanted.begin(), wanted.end(), [&](const api::ContainerPort& p) {
    return in_use.CheckConflict(p.host_ip, p.protocol, p.host_port);
  });
}

QueueingHint AfterPodDeleted(const api::Pod& pod, const ClusterEventData& e) {
  const api::Pod* deleted = e.old_pod;
  if (deleted == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry.
  // An unassigned pod held no ports.
  if (deleted->spec.node_name.empty() && deleted->status.nominated_node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  std::vector<api::ContainerPort> freed = HostPortsOf(*deleted);
  if (freed.empty()) return QueueingHint::kQueueSkip;
  HostPortInfo freed_ports;
  for (const api::ContainerPort& p : freed) freed_ports.Add(p.host_ip, p.protocol, p.host_port);
  return FitsPorts(HostPortsOf(pod), freed_ports) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

}  // namespace

Status NodePorts::PreFilter(CycleState& state, const api::Pod& pod,
                            const std::vector<const NodeInfo*>&, PreFilterResult*) {
  std::vector<api::ContainerPort> ports = HostPortsOf(pod);
  if (ports.empty()) return Status::Skip();
  auto s = std::make_unique<PreFilterState>();
  s->ports = std::move(ports);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status();
}

Status NodePorts::Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) {
  const PreFilterState* s = state.Read(kPreFilterStateKey);
  const bool fits = s != nullptr ? FitsPorts(s->ports, node.used_ports())
                                 : FitsPorts(HostPortsOf(pod), node.used_ports());
  return fits ? Status() : Status::Unschedulable(kErrReason);
}

std::vector<ClusterEventWithHint> NodePorts::EventsToRegister() const {
  return {
      {{EventResource::kPod, ActionType::kDelete}, AfterPodDeleted},
      {{EventResource::kNode, ActionType::kAdd}, nullptr},
  };
}

Status NodePorts::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kHostPortsSigner, helper::SignHostPorts(pod)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<NodePorts>();
}

}  // namespace ksched::plugins::node_ports
