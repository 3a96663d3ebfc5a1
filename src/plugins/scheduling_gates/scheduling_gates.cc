#include "src/plugins/scheduling_gates/scheduling_gates.h"

#include <string>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace ksched::plugins::scheduling_gates {

Status SchedulingGates::PreEnqueue(const api::Pod& pod) {
  if (pod.spec.scheduling_gates.empty()) return Status();
  std::vector<std::string> gates;
  for (const api::PodSchedulingGate& g : pod.spec.scheduling_gates) gates.push_back(g.name);
  return Status::UnschedulableAndUnresolvable(
      fmt::format("waiting for scheduling gates: [{}]", fmt::join(gates, " ")));
}

std::vector<ClusterEventWithHint> SchedulingGates::EventsToRegister() const {
  auto same_pod = [](const api::Pod& pod, const ClusterEventData& e) {
    if (e.new_pod == nullptr) return QueueingHint::kQueue;  // Unexpected data: retry, as upstream.
    return e.new_pod->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                       : QueueingHint::kQueueSkip;
  };
  return {{{EventResource::kPod, ActionType::kUpdatePodSchedulingGatesEliminated}, same_pod}};
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<SchedulingGates>();
}

}  // namespace ksched::plugins::scheduling_gates
