#include "src/plugins/topology_aware/topology_placement.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"

namespace ksched::plugins::topology_aware {
namespace {

// The one domain of `key` the group's placed pods are in (nullopt: none is placed), or why there
// is none.
absl::StatusOr<std::optional<std::string>> PlacedDomain(const Snapshot& snapshot,
                                                        const PodGroupState& state,
                                                        const std::string& key) {
  std::optional<std::string> domain;
  for (const std::shared_ptr<const api::Pod>& pod : state.scheduled_pods) {
    const std::string& node_name = pod->spec.node_name;
    const std::string who = fmt::format("{}/{}", pod->metadata.namespace_, pod->metadata.name);
    const NodeInfo* node = snapshot.Get(node_name);
    if (node == nullptr || node->node() == nullptr) {
      return absl::NotFoundError(fmt::format(
          "getting node for pod {}: nodeinfo not found for node name \"{}\"", who, node_name));
    }
    auto label = node->node()->metadata.labels.find(key);
    if (label == node->node()->metadata.labels.end()) {
      return absl::NotFoundError(fmt::format("no topology domain found for pod {}", who));
    }
    if (domain && *domain != label->second) {
      return absl::FailedPreconditionError(
          fmt::format("more than 1 domain found for pod group: {}, {}", *domain, label->second));
    }
    domain = label->second;
  }
  return domain;
}

}  // namespace

Status TopologyPlacementGenerator::GeneratePlacements(const api::PodGroup& group,
                                                      const Placement& parent,
                                                      std::vector<Placement>* placements) {
  const auto& constraints = group.scheduling_constraints;
  if (!constraints || constraints->topology_keys.empty()) {
    placements->push_back(parent);
    return Status();
  }
  const std::string& key = constraints->topology_keys.front();
  const std::string& ns = group.metadata.namespace_;
  const std::string& name = group.metadata.name;
  std::optional<PodGroupState> state = handle_.pod_groups().GetPodGroupState(ns, name);
  if (!state) {
    return Status::Error(fmt::format("pod group state not found for pod group {}/{}", ns, name));
  }
  absl::StatusOr<std::optional<std::string>> required =
      PlacedDomain(handle_.snapshot(), *state, key);
  if (!required.ok()) {
    return Status::Error(fmt::format("cannot determine domain for already scheduled pods: {}",
                                     std::string(required.status().message())));
  }
  // Upstream gathers the domains in a Go map (a random order); here, the order first seen.
  absl::flat_hash_map<std::string, size_t> index;
  for (const NodeInfo* node : parent.nodes) {
    const api::StringMap& labels = node->node()->metadata.labels;
    auto label = labels.find(key);
    if (label == labels.end() || (*required && **required != label->second)) continue;
    auto [it, added] = index.try_emplace(label->second, placements->size());
    if (added) placements->push_back({.name = label->second, .nodes = {}});
    (*placements)[it->second].nodes.push_back(node);
  }
  return Status();
}

absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs&, Handle& handle) {
  return std::make_unique<TopologyPlacementGenerator>(handle);
}

}  // namespace ksched::plugins::topology_aware
