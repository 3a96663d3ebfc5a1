// The args of InterPodAffinity (upstream's InterPodAffinityArgs): the weight of existing pods'
// required affinity in the score, and whether their preferred terms count at all. Decoded from
// pluginConfig JSON with the v1 defaults applied and then validated as validation_pluginargs.go
// does.
//
//   absl::StatusOr<InterPodAffinityArgs> args = ParseArgs(json,
//   "profiles[0].pluginConfig[0].args"); if (!args.ok()) return args.status();
//   // "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid
//   //  range [0, 100]"
//
// Errors are InvalidArgument naming the field below `path` (the args object's own path, "" for
// none), in upstream's field.Error form.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::plugins::inter_pod_affinity {

struct InterPodAffinityArgs {
  // The score weight, in [0, 100], of an existing pod's required affinity term that matches the
  // incoming pod (upstream scores those as preferred terms of this weight).
  int32_t hard_pod_affinity_weight = 1;
  // Whether to leave existing pods' preferred (anti-)affinity terms out of the score.
  bool ignore_preferred_terms_of_existing_pods = false;
};

// Decodes {hardPodAffinityWeight, ignorePreferredTermsOfExistingPods}. A null or empty document,
// or a null field, gives the defaults (1 and false). Unknown fields are errors (apiVersion and
// kind are allowed).
absl::StatusOr<InterPodAffinityArgs> ParseArgs(const nlohmann::json& args,
                                               std::string_view path = "");

// The args as a v1 document with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration.
nlohmann::json ArgsToJson(const InterPodAffinityArgs& args);

}  // namespace ksched::plugins::inter_pod_affinity
