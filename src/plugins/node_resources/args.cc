#include "src/plugins/node_resources/args.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::node_resources {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt;
using api::field::DecodeString;
using api::field::DecodeStrings;
using api::field::ErrorList;
using api::field::Index;
using api::field::Member;
using api::field::Quote;
using api::field::ValidateLabelName;

constexpr std::string_view kLeastAllocated = "LeastAllocated";
constexpr std::string_view kMostAllocated = "MostAllocated";
constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

// Decodes [{name, weight}], applying the v1 defaults: an empty list becomes {cpu, memory}, a
// missing or 0 weight becomes 1.
absl::StatusOr<std::vector<ResourceSpec>> DecodeResources(const nlohmann::json* j,
                                                          std::string_view path) {
  std::vector<ResourceSpec> out;
  if (j != nullptr && !j->is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", path));
  }
  for (size_t i = 0; j != nullptr && i < j->size(); ++i) {
    const std::string item_path = Index(path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject((*j)[i], item_path, {"name", "weight"}));
    ResourceSpec spec{.weight = 0};
    if (const nlohmann::json* name = Member((*j)[i], "name")) {
      KSCHED_ASSIGN_OR_RETURN(spec.name, DecodeString(*name, Child(item_path, "name")));
    }
    if (const nlohmann::json* weight = Member((*j)[i], "weight")) {
      KSCHED_ASSIGN_OR_RETURN(spec.weight, DecodeInt(*weight, Child(item_path, "weight"),
                                                     std::numeric_limits<int64_t>::min(),
                                                     std::numeric_limits<int64_t>::max()));
    }
    if (spec.weight == 0) spec.weight = 1;
    out.push_back(std::move(spec));
  }
  if (out.empty()) out = DefaultResources();
  return out;
}

// requestedToCapacityRatio: {shape}.
absl::StatusOr<std::vector<UtilizationShapePoint>> DecodeRatio(const nlohmann::json& j,
                                                               std::string_view path) {
  KSCHED_RETURN_IF_ERROR(CheckObject(j, path, {"shape"}));
  const nlohmann::json* shape = Member(j, "shape");
  if (shape == nullptr) return std::vector<UtilizationShapePoint>();
  return helper::DecodeShape(*shape, Child(path, "shape"));
}

// --- Validation (validation_pluginargs.go). -----------------------------------------------------

void ValidateFitResources(const std::vector<ResourceSpec>& resources, std::string_view path,
                          ErrorList& errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.Invalid(Child(Index(path, i), "weight"), std::to_string(r.weight),
                   fmt::format("resource weight of {} not in valid range (0, 100]", r.name));
    }
  }
}

void ValidateIgnored(const FitArgs& args, std::string_view base, ErrorList& errs) {
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    ValidateLabelName(args.ignored_resources[i], Index(Child(base, "ignoredResources"), i), errs);
  }
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    const std::string path = Index(Child(base, "ignoredResourceGroups"), i);
    if (group.find('/') != std::string::npos) {
      errs.Invalid(path, Quote(group), "resource group name can't contain '/'");
    }
    ValidateLabelName(group, path, errs);
  }
}

// Decodes and validates scoringStrategy; `j` is null when the field is absent.
absl::Status DecodeScoringStrategy(const nlohmann::json* j, std::string_view base,
                                   ScoringStrategy& out, ErrorList& errs) {
  if (j == nullptr) return absl::OkStatus();  // The v1 default: LeastAllocated, cpu and memory.
  const std::string path = Child(base, "scoringStrategy");
  KSCHED_RETURN_IF_ERROR(CheckObject(*j, path, {"type", "resources", "requestedToCapacityRatio"}));
  std::string type;  // Absent: "", which is not supported (v1 only defaults a missing strategy).
  if (const nlohmann::json* t = Member(*j, "type")) {
    KSCHED_ASSIGN_OR_RETURN(type, DecodeString(*t, Child(path, "type")));
  }
  KSCHED_ASSIGN_OR_RETURN(out.resources,
                          DecodeResources(Member(*j, "resources"), Child(path, "resources")));
  const nlohmann::json* ratio = Member(*j, "requestedToCapacityRatio");
  if (ratio != nullptr) {
    KSCHED_ASSIGN_OR_RETURN(out.shape,
                            DecodeRatio(*ratio, Child(path, "requestedToCapacityRatio")));
  }

  if (type == kLeastAllocated) {
    out.type = ScoringStrategyType::kLeastAllocated;
  } else if (type == kMostAllocated) {
    out.type = ScoringStrategyType::kMostAllocated;
  } else if (type == kRequestedToCapacityRatio) {
    out.type = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errs.NotSupported(Child(path, "type"), type,
                      {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio});
  }
  ValidateFitResources(out.resources, Child(path, "resources"), errs);
  // Upstream validates a given shape whatever the type, and dereferences a missing one for
  // RequestedToCapacityRatio; here a missing shape is the same error as an empty one.
  if (ratio != nullptr || out.type == ScoringStrategyType::kRequestedToCapacityRatio) {
    // `path` is upstream's "scoringStrategy.shape", which skips "requestedToCapacityRatio".
    helper::ValidateFunctionShape(out.shape, Child(path, "shape"), errs);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

absl::StatusOr<FitArgs> ParseFitArgs(const nlohmann::json& args, std::string_view path) {
  FitArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(
      args, path, {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"}, true));
  KSCHED_ASSIGN_OR_RETURN(out.ignored_resources, DecodeStrings(Member(args, "ignoredResources"),
                                                               Child(path, "ignoredResources")));
  KSCHED_ASSIGN_OR_RETURN(
      out.ignored_resource_groups,
      DecodeStrings(Member(args, "ignoredResourceGroups"), Child(path, "ignoredResourceGroups")));
  ErrorList errs;
  ValidateIgnored(out, path, errs);
  KSCHED_RETURN_IF_ERROR(
      DecodeScoringStrategy(Member(args, "scoringStrategy"), path, out.scoring_strategy, errs));
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

absl::StatusOr<BalancedAllocationArgs> ParseBalancedAllocationArgs(const nlohmann::json& args,
                                                                   std::string_view path) {
  BalancedAllocationArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {"resources"}, true));
  const std::string resources_path = Child(path, "resources");
  KSCHED_ASSIGN_OR_RETURN(out.resources,
                          DecodeResources(Member(args, "resources"), resources_path));
  ErrorList errs;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < out.resources.size(); ++i) {
    const ResourceSpec& r = out.resources[i];
    const std::string item = Index(resources_path, i);
    if (!seen.insert(r.name).second) errs.Duplicate(Child(item, "name"), r.name);
    if (r.weight != 1) errs.Invalid(Child(item, "weight"), std::to_string(r.weight), "must be 1");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

namespace {

nlohmann::json ResourcesToJson(const std::vector<ResourceSpec>& resources) {
  nlohmann::json out = nlohmann::json::array();
  for (const ResourceSpec& r : resources) out.push_back({{"name", r.name}, {"weight", r.weight}});
  return out;
}

std::string_view TypeName(ScoringStrategyType type) {
  switch (type) {
    case ScoringStrategyType::kLeastAllocated:
      return kLeastAllocated;
    case ScoringStrategyType::kMostAllocated:
      return kMostAllocated;
    case ScoringStrategyType::kRequestedToCapacityRatio:
      return kRequestedToCapacityRatio;
  }
  return kLeastAllocated;
}

}  // namespace

nlohmann::json FitArgsToJson(const FitArgs& args) {
  nlohmann::json out = {{"apiVersion", kArgsApiVersion}, {"kind", "NodeResourcesFitArgs"}};
  if (!args.ignored_resources.empty()) out["ignoredResources"] = args.ignored_resources;
  if (!args.ignored_resource_groups.empty()) {
    out["ignoredResourceGroups"] = args.ignored_resource_groups;
  }
  const ScoringStrategy& st = args.scoring_strategy;
  nlohmann::json strategy = {{"type", TypeName(st.type)},
                             {"resources", ResourcesToJson(st.resources)}};
  if (!st.shape.empty()) {
    strategy["requestedToCapacityRatio"] = {{"shape", helper::ShapeToJson(st.shape)}};
  }
  out["scoringStrategy"] = std::move(strategy);
  return out;
}

nlohmann::json BalancedAllocationArgsToJson(const BalancedAllocationArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "NodeResourcesBalancedAllocationArgs"},
          {"resources", ResourcesToJson(args.resources)}};
}

}  // namespace ksched::plugins::node_resources
