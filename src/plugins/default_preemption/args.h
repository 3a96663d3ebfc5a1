// The args of DefaultPreemption (upstream's DefaultPreemptionArgs): how many nodes a preemption
// looks at for candidates, decoded from pluginConfig JSON with the v1 defaults applied and then
// validated as validation_pluginargs.go does. The plugin itself arrives later; the config layer
// decodes its args through the Registry already.
//
//   absl::StatusOr<DefaultPreemptionArgs> args = ParseArgs(json,
//   "profiles[0].pluginConfig[0].args"); if (!args.ok()) return args.status();
//   // "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in
//   //  valid range [0, 100]"
//
// Errors are InvalidArgument. They name the field below `path` (the args object's own path, ""
// for none), in upstream's field.Error form; several are joined as "[a, b]".
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::default_preemption {

struct DefaultPreemptionArgs {
  // The share of all nodes, in [0, 100], to find preemption candidates on.
  int32_t min_candidate_nodes_percentage = 10;
  // The least number of nodes to find candidates on, whatever the percentage; at least 0. Both
  // must not be 0.
  int32_t min_candidate_nodes_absolute = 100;
};

// Decodes {minCandidateNodesPercentage, minCandidateNodesAbsolute}. A null or empty document, or
// a null field, gives the defaults (10 and 100). Unknown fields are errors (apiVersion and kind
// are allowed).
absl::StatusOr<DefaultPreemptionArgs> ParseArgs(const nlohmann::json& args,
                                                std::string_view path = "");

// The args as a v1 document with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration.
nlohmann::json ArgsToJson(const DefaultPreemptionArgs& args);

}  // namespace ksched::plugins::default_preemption
