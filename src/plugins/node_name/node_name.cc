#include "src/plugins/node_name/node_name.h"

#include "fmt/format.h"
#include "src/plugins/helper/signers.h"

namespace ksched::plugins::node_name {

Status NodeName::PreFilter(CycleState&, const api::Pod& pod, const std::vector<const NodeInfo*>&,
                           PreFilterResult* result) {
  if (!pod.spec.node_name.empty()) result->node_names.emplace({pod.spec.node_name});
  return Status();
}

Status NodeName::Filter(const CycleState&, const api::Pod& pod, const NodeInfo& node) {
  if (node.node() == nullptr) return Status::Error("node not found");
  const std::string& wanted = pod.spec.node_name;
  if (wanted.empty() || wanted == node.node()->metadata.name) return Status();
  return Status::UnschedulableAndUnresolvable(kErrReason);
}

std::vector<ClusterEventWithHint> NodeName::EventsToRegister() const {
  return {{{EventResource::kNode, ActionType::kAdd}, nullptr}};
}

Status NodeName::SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const {
  out->push_back({helper::kNodeNameSigner, fmt::format("{:?}", pod.spec.node_name)});
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle&) {
  return std::make_unique<NodeName>();
}

}  // namespace ksched::plugins::node_name
