#include "src/plugins/inter_pod_affinity/args.h"

#include <string>

#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::inter_pod_affinity {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeBool;
using api::field::DecodeInt32;
using api::field::ErrorList;
using api::field::Member;

constexpr char kWeight[] = "hardPodAffinityWeight";
constexpr char kIgnorePreferred[] = "ignorePreferredTermsOfExistingPods";

}  // namespace

absl::StatusOr<InterPodAffinityArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  InterPodAffinityArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kWeight, kIgnorePreferred}, true));
  if (const nlohmann::json* j = Member(args, kWeight)) {
    KSCHED_ASSIGN_OR_RETURN(out.hard_pod_affinity_weight, DecodeInt32(*j, Child(path, kWeight)));
  }
  if (const nlohmann::json* j = Member(args, kIgnorePreferred)) {
    KSCHED_ASSIGN_OR_RETURN(out.ignore_preferred_terms_of_existing_pods,
                            DecodeBool(*j, Child(path, kIgnorePreferred)));
  }
  // ValidateInterPodAffinityArgs.
  ErrorList errs;
  if (out.hard_pod_affinity_weight < 0 || out.hard_pod_affinity_weight > 100) {
    errs.Invalid(Child(path, kWeight), std::to_string(out.hard_pod_affinity_weight),
                 "not in valid range [0, 100]");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json ArgsToJson(const InterPodAffinityArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "InterPodAffinityArgs"},
          {kWeight, args.hard_pod_affinity_weight},
          {kIgnorePreferred, args.ignore_preferred_terms_of_existing_pods}};
}

}  // namespace ksched::plugins::inter_pod_affinity
