#include "src/plugins/pod_topology_spread/args.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::pod_topology_spread {
namespace {

using api::LabelSelector;
using api::LabelSelectorRequirement;
using api::TopologySpreadConstraint;
using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt32;
using api::field::DecodeString;
using api::field::DecodeStrings;
using api::field::ErrorList;
using api::field::Index;
using api::field::Member;
using api::field::Quote;
using api::field::ValidateLabelName;

constexpr char kDefaultConstraints[] = "defaultConstraints";
constexpr char kDefaultingType[] = "defaultingType";
constexpr std::string_view kSystem = "System";
constexpr std::string_view kList = "List";
constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// An optional string field of `j` (a pointer in the core API: "" is kept).
absl::StatusOr<std::optional<std::string>> DecodeOptionalString(const nlohmann::json& j,
                                                                std::string_view key,
                                                                std::string_view path) {
  const nlohmann::json* member = Member(j, key);
  if (member == nullptr) return std::nullopt;
  KSCHED_ASSIGN_OR_RETURN(std::string s, DecodeString(*member, Child(path, key)));
  return s;
}

// A string field of `j`; "" when absent or null.
absl::StatusOr<std::string> DecodeStringMember(const nlohmann::json& j, std::string_view key,
                                               std::string_view path) {
  KSCHED_ASSIGN_OR_RETURN(std::optional<std::string> s, DecodeOptionalString(j, key, path));
  return s.value_or("");
}

// A metav1.LabelSelector, strictly: {matchLabels: {k: v}, matchExpressions: [{key, operator,
// values}]}. Its contents are not validated: a default constraint may not have one at all.
absl::StatusOr<LabelSelector> DecodeLabelSelector(const nlohmann::json& j, std::string_view path) {
  KSCHED_RETURN_IF_ERROR(CheckObject(j, path, {"matchLabels", "matchExpressions"}));
  LabelSelector out;
  if (const nlohmann::json* labels = Member(j, "matchLabels")) {
    const std::string labels_path = Child(path, "matchLabels");
    if (!labels->is_object()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected an object", labels_path));
    }
    for (const auto& [key, value] : labels->items()) {
      KSCHED_ASSIGN_OR_RETURN(out.match_labels[key], DecodeString(value, Child(labels_path, key)));
    }
  }
  const std::string exprs_path = Child(path, "matchExpressions");
  const nlohmann::json* exprs = Member(j, "matchExpressions");
  if (exprs != nullptr && !exprs->is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", exprs_path));
  }
  for (size_t i = 0; exprs != nullptr && i < exprs->size(); ++i) {
    const nlohmann::json& e = (*exprs)[i];
    const std::string p = Index(exprs_path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject(e, p, {"key", "operator", "values"}));
    LabelSelectorRequirement& r = out.match_expressions.emplace_back();
    KSCHED_ASSIGN_OR_RETURN(r.key, DecodeStringMember(e, "key", p));
    KSCHED_ASSIGN_OR_RETURN(r.op, DecodeStringMember(e, "operator", p));
    KSCHED_ASSIGN_OR_RETURN(r.values, DecodeStrings(Member(e, "values"), Child(p, "values")));
  }
  return out;
}

// A core/v1 TopologySpreadConstraint, strictly.
absl::StatusOr<TopologySpreadConstraint> DecodeConstraint(const nlohmann::json& j,
                                                          std::string_view path) {
  KSCHED_RETURN_IF_ERROR(
      CheckObject(j, path,
                  {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
                   "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"}));
  TopologySpreadConstraint c;
  if (const nlohmann::json* v = Member(j, "maxSkew")) {
    KSCHED_ASSIGN_OR_RETURN(c.max_skew, DecodeInt32(*v, Child(path, "maxSkew")));
  }
  KSCHED_ASSIGN_OR_RETURN(c.topology_key, DecodeStringMember(j, "topologyKey", path));
  KSCHED_ASSIGN_OR_RETURN(c.when_unsatisfiable, DecodeStringMember(j, "whenUnsatisfiable", path));
  if (const nlohmann::json* v = Member(j, "labelSelector")) {
    KSCHED_ASSIGN_OR_RETURN(c.label_selector,
                            DecodeLabelSelector(*v, Child(path, "labelSelector")));
  }
  if (const nlohmann::json* v = Member(j, "minDomains")) {
    KSCHED_ASSIGN_OR_RETURN(c.min_domains, DecodeInt32(*v, Child(path, "minDomains")));
  }
  KSCHED_ASSIGN_OR_RETURN(c.node_affinity_policy,
                          DecodeOptionalString(j, "nodeAffinityPolicy", path));
  KSCHED_ASSIGN_OR_RETURN(c.node_taints_policy, DecodeOptionalString(j, "nodeTaintsPolicy", path));
  KSCHED_ASSIGN_OR_RETURN(c.match_label_keys, DecodeStrings(Member(j, "matchLabelKeys"),
                                                            Child(path, "matchLabelKeys")));
  return c;
}

// The checks of ValidatePodTopologySpreadArgs on defaultConstraints[i], in its order.
void ValidateConstraint(const std::vector<TopologySpreadConstraint>& constraints, size_t i,
                        std::string_view list_path, ErrorList& errs) {
  const TopologySpreadConstraint& c = constraints[i];
  const std::string path = Index(list_path, i);
  if (c.max_skew <= 0) {
    errs.Invalid(Child(path, "maxSkew"), std::to_string(c.max_skew), "not in valid range (0, inf)");
  }
  if (c.topology_key.empty()) {
    errs.Required(Child(path, "topologyKey"), "can not be empty");
  } else {
    ValidateLabelName(c.topology_key, Child(path, "topologyKey"), errs);
  }
  if (c.when_unsatisfiable.empty()) {
    errs.Required(Child(path, "whenUnsatisfiable"), "can not be empty");
  } else if (c.when_unsatisfiable != kDoNotSchedule && c.when_unsatisfiable != kScheduleAnyway) {
    errs.NotSupported(Child(path, "whenUnsatisfiable"), c.when_unsatisfiable,
                      {kDoNotSchedule, kScheduleAnyway});
  }
  if (c.label_selector) {
    errs.Forbidden(Child(path, "labelSelector"),
                   "constraint must not define a selector, as they deduced for each pod");
  }
  for (size_t k = 0; k < i; ++k) {
    if (constraints[k].topology_key == c.topology_key &&
        constraints[k].when_unsatisfiable == c.when_unsatisfiable) {
      errs.Duplicate(path, fmt::format("{{{}, {}}}", c.topology_key, c.when_unsatisfiable));
      break;
    }
  }
}

}  // namespace

absl::StatusOr<PodTopologySpreadArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  PodTopologySpreadArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kDefaultConstraints, kDefaultingType}, true));
  const std::string list_path = Child(path, kDefaultConstraints);
  if (const nlohmann::json* list = Member(args, kDefaultConstraints)) {
    if (!list->is_array()) {
      return absl::InvalidArgumentError(fmt::format("{}: expected a list", list_path));
    }
    for (size_t i = 0; i < list->size(); ++i) {
      KSCHED_ASSIGN_OR_RETURN(TopologySpreadConstraint c,
                              DecodeConstraint((*list)[i], Index(list_path, i)));
      out.default_constraints.push_back(std::move(c));
    }
  }
  std::string type;  // "" is defaulted to System.
  if (const nlohmann::json* j = Member(args, kDefaultingType)) {
    KSCHED_ASSIGN_OR_RETURN(type, DecodeString(*j, Child(path, kDefaultingType)));
  }

  ErrorList errs;
  const std::string type_path = Child(path, kDefaultingType);
  if (type.empty() || type == kSystem) {
    out.defaulting_type = DefaultingType::kSystem;
    if (!out.default_constraints.empty()) {
      errs.Invalid(type_path, Quote(kSystem), "when .defaultConstraints are not empty");
    }
  } else if (type == kList) {
    out.defaulting_type = DefaultingType::kList;
  } else {
    errs.NotSupported(type_path, type, {kSystem, kList});
  }
  for (size_t i = 0; i < out.default_constraints.size(); ++i) {
    ValidateConstraint(out.default_constraints, i, list_path, errs);
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json ArgsToJson(const PodTopologySpreadArgs& args) {
  nlohmann::json out = {
      {"apiVersion", kArgsApiVersion},
      {"kind", "PodTopologySpreadArgs"},
      {kDefaultingType, args.defaulting_type == DefaultingType::kList ? kList : kSystem}};
  if (args.default_constraints.empty()) return out;
  nlohmann::json list = nlohmann::json::array();
  for (const TopologySpreadConstraint& c : args.default_constraints) {
    // A valid constraint has no labelSelector; the other optional fields print when set.
    nlohmann::json item = {{"maxSkew", c.max_skew},
                           {"topologyKey", c.topology_key},
                           {"whenUnsatisfiable", c.when_unsatisfiable}};
    if (c.min_domains) item["minDomains"] = *c.min_domains;
    if (c.node_affinity_policy) item["nodeAffinityPolicy"] = *c.node_affinity_policy;
    if (c.node_taints_policy) item["nodeTaintsPolicy"] = *c.node_taints_policy;
    if (!c.match_label_keys.empty()) item["matchLabelKeys"] = c.match_label_keys;
    list.push_back(std::move(item));
  }
  out[kDefaultConstraints] = std::move(list);
  return out;
}

}  // namespace ksched::plugins::pod_topology_spread
