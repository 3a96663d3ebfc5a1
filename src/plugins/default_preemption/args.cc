#include "src/plugins/default_preemption/args.h"

#include <string>

#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::default_preemption {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt32;
using api::field::ErrorList;
using api::field::Member;

constexpr char kPercentage[] = "minCandidateNodesPercentage";
constexpr char kAbsolute[] = "minCandidateNodesAbsolute";

// ValidateDefaultPreemptionArgs.
absl::Status Validate(const DefaultPreemptionArgs& args, std::string_view path) {
  const std::string percentage_path = Child(path, kPercentage);
  const std::string absolute_path = Child(path, kAbsolute);
  const int32_t percentage = args.min_candidate_nodes_percentage;
  const int32_t absolute = args.min_candidate_nodes_absolute;
  ErrorList errs;
  if (percentage < 0 || percentage > 100) {
    errs.Invalid(percentage_path, std::to_string(percentage), "not in valid range [0, 100]");
  }
  if (absolute < 0) {
    errs.Invalid(absolute_path, std::to_string(absolute), "not in valid range [0, inf)");
  }
  if (percentage == 0 && absolute == 0) {
    errs.Invalid(percentage_path, "0",
                 "cannot be zero at the same time as " + std::string(kAbsolute));
    errs.Invalid(absolute_path, "0",
                 "cannot be zero at the same time as " + std::string(kPercentage));
  }
  return errs.ToStatus();
}

}  // namespace

absl::StatusOr<DefaultPreemptionArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  DefaultPreemptionArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kPercentage, kAbsolute}, true));
  if (const nlohmann::json* j = Member(args, kPercentage)) {
    KSCHED_ASSIGN_OR_RETURN(out.min_candidate_nodes_percentage,
                            DecodeInt32(*j, Child(path, kPercentage)));
  }
  if (const nlohmann::json* j = Member(args, kAbsolute)) {
    KSCHED_ASSIGN_OR_RETURN(out.min_candidate_nodes_absolute,
                            DecodeInt32(*j, Child(path, kAbsolute)));
  }
  KSCHED_RETURN_IF_ERROR(Validate(out, path));
  return out;
}

nlohmann::json ArgsToJson(const DefaultPreemptionArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "DefaultPreemptionArgs"},
          {kPercentage, args.min_candidate_nodes_percentage},
          {kAbsolute, args.min_candidate_nodes_absolute}};
}

}  // namespace ksched::plugins::default_preemption
