// The args of PodTopologySpread (upstream's PodTopologySpreadArgs): the spread constraints the
// plugin applies to pods that define none. Decoded from pluginConfig JSON with the v1 defaults
// applied and then validated as validation_pluginargs.go does; the plugin
// (pod_topology_spread.h) gets them typed.
//
//   absl::StatusOr<PodTopologySpreadArgs> args = ParseArgs(json::parse(R"({
//       "defaultingType": "List",
//       "defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
//                               "whenUnsatisfiable": "ScheduleAnyway"}]})"));
//   if (!args.ok()) return args.status();
//   // "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"
//
// Errors are InvalidArgument. They name the field below `path` (the args object's own path, ""
// for none), in upstream's field.Error form; several are joined as "[a, b]".
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/api/objects.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::pod_topology_spread {

// Where the constraints of a pod without its own come from.
enum class DefaultingType {
  kSystem,  // The built-in ones: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
  kList,    // PodTopologySpreadArgs.default_constraints (none when empty).
};

struct PodTopologySpreadArgs {
  // Without a labelSelector: the plugin takes it from the pod's services and controllers.
  std::vector<api::TopologySpreadConstraint> default_constraints;
  DefaultingType defaulting_type = DefaultingType::kSystem;
};

// Decodes {defaultConstraints: [TopologySpreadConstraint], defaultingType}. A null or empty
// document, or a null field, gives the defaults: System, no list. The constraints take the
// fields of the core API's TopologySpreadConstraint (maxSkew, topologyKey, whenUnsatisfiable,
// labelSelector, minDomains, nodeAffinityPolicy, nodeTaintsPolicy, matchLabelKeys); a
// labelSelector is decoded only to be refused. Unknown fields are errors (apiVersion and kind
// are allowed at the top).
absl::StatusOr<PodTopologySpreadArgs> ParseArgs(const nlohmann::json& args,
                                                std::string_view path = "");

// The args as a v1 document with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration: defaultingType always, defaultConstraints
// when there are any.
nlohmann::json ArgsToJson(const PodTopologySpreadArgs& args);

}  // namespace ksched::plugins::pod_topology_spread
