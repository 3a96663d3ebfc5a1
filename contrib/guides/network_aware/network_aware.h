// NetworkAware: keeps pods that ask for a fast network on nodes that have one, and prefers those
// nodes when scoring (the plugin of guide 003, "Building a Custom Kubernetes Scheduler").
//
// A pod annotated `my-network-preference: high-speed` fits only nodes labelled
// `network-topology=high-speed`, which score 100 for it; every other node, and every node for a
// pod without that annotation (or with another value), scores 10. Not in the default profile:
//
//   profiles:
//   - schedulerName: my-custom-scheduler
//     plugins: {multiPoint: {enabled: [{name: NetworkAware}]}}
//     pluginConfig:                       # optional; these are the defaults
//     - name: NetworkAware
//       args: {annotationKey: my-network-preference, annotationValue: high-speed,
//              nodeLabelKey: network-topology, nodeLabelValue: high-speed,
//              matchScore: 100, otherScore: 10}
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "contrib/guides/names.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "nlohmann/json.hpp"

namespace ksched::guides::network_aware {

// NetworkAwareArgs.
struct NetworkAwareArgs {
  // The pod annotation that asks for the network, and the value that does.
  std::string annotation_key = "my-network-preference";
  std::string annotation_value = "high-speed";
  // The node label that offers it.
  std::string node_label_key = "network-topology";
  std::string node_label_value = "high-speed";
  // Score of a labelled node for a pod that asks, and of every other (node, pod); in [0, 100].
  int64_t match_score = 100;
  int64_t other_score = 10;
};

class NetworkAware final : public FilterPlugin, public ScorePlugin, public EnqueueExtensions {
 public:
  explicit NetworkAware(NetworkAwareArgs args);

  std::string_view Name() const override { return names::kNetworkAware; }

  // UnschedulableAndUnresolvable "node(s) didn't have label <key>=<value>" when the pod asks for
  // the network and the node lacks the label; success otherwise.
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // match_score when the pod asks and the node has the label, else other_score. Not normalized.
  Status Score(const CycleState& state, const api::Pod& pod, const NodeInfo& node,
               int64_t* score) override;

  // Node/Add|UpdateNodeLabel: Queue when the node has the label and (for an update) did not
  // before. UnschedulablePod/UpdatePodOther: Queue when the rejected pod itself no longer asks.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  bool Asks(const api::Pod& pod) const;
  bool Offers(const api::Node& node) const;

  NetworkAwareArgs args_;
  std::string reason_;  // The Filter reason, built once.
};

// Decodes {annotationKey, annotationValue, nodeLabelKey, nodeLabelValue, matchScore, otherScore};
// a field left out (or null) keeps its default. InvalidArgument names the field below `path`,
// e.g. "matchScore: Invalid value: 101: not in valid range [0, 100]". Unknown fields are errors.
absl::StatusOr<NetworkAwareArgs> ParseNetworkAwareArgs(const nlohmann::json& args,
                                                       std::string_view path = "");
// The args as a v1 document, every default filled in.
nlohmann::json NetworkAwareArgsToJson(const NetworkAwareArgs& args);

absl::StatusOr<std::unique_ptr<Plugin>> New(const NetworkAwareArgs& args, Handle& handle);

}  // namespace ksched::guides::network_aware
