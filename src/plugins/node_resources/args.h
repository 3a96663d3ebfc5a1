// The args of NodeResourcesFit and NodeResourcesBalancedAllocation (upstream's
// NodeResourcesFitArgs and NodeResourcesBalancedAllocationArgs), decoded from pluginConfig JSON
// with the v1 defaults applied and then validated as validation_pluginargs.go does.
//
//   absl::StatusOr<FitArgs> args = ParseFitArgs(json);
//   if (!args.ok()) return args.status();
//   // "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in
//   //  valid range (0, 100]"
//
// Errors are InvalidArgument. Validation errors name the field path below `path` (the args
// object's own path, "" for none), in upstream's field.Error form; several are joined as "[a, b]"
// (utilerrors.Aggregate).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "src/plugins/helper/shape_score.h"

namespace ksched::plugins::node_resources {

// A resource and its weight in the score.
struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

// {cpu: 1, memory: 1}: the default of both plugins.
std::vector<ResourceSpec> DefaultResources();

enum class ScoringStrategyType { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

// A point of the RequestedToCapacityRatio shape: utilization in [0, 100] → score in [0, 10].
using helper::UtilizationShapePoint;

struct ScoringStrategy {
  ScoringStrategyType type = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources = DefaultResources();
  std::vector<UtilizationShapePoint> shape;  // Only for kRequestedToCapacityRatio.
};

struct FitArgs {
  // Extended resources the Filter ignores, by exact name ("example.com/foo").
  std::vector<std::string> ignored_resources;
  // Extended resources the Filter ignores, by the part before '/' ("example.com").
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategy scoring_strategy;
};

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources = DefaultResources();
};

// Decodes {ignoredResources, ignoredResourceGroups, scoringStrategy: {type, resources,
// requestedToCapacityRatio: {shape}}}. A null or empty document gives the defaults: LeastAllocated
// over cpu and memory, weight 1. A missing or 0 weight becomes 1. Unknown fields are errors
// (apiVersion and kind are allowed).
absl::StatusOr<FitArgs> ParseFitArgs(const nlohmann::json& args, std::string_view path = "");

// Decodes {resources: [{name, weight}]}; defaults as ParseFitArgs. Every weight must be 1 and
// names must not repeat.
absl::StatusOr<BalancedAllocationArgs> ParseBalancedAllocationArgs(const nlohmann::json& args,
                                                                   std::string_view path = "");

// The args as v1 documents with every default filled in, apiVersion and kind included, as
// kube-scheduler prints its effective configuration.
nlohmann::json FitArgsToJson(const FitArgs& args);
nlohmann::json BalancedAllocationArgsToJson(const BalancedAllocationArgs& args);

}  // namespace ksched::plugins::node_resources
