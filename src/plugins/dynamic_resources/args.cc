#include "src/plugins/dynamic_resources/args.h"

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeOptionalDuration;
using api::field::ErrorList;
using api::field::GoDuration;
using api::field::Quote;

constexpr char kFilterTimeout[] = "filterTimeout";
constexpr char kBindingTimeout[] = "bindingTimeout";

}  // namespace

absl::StatusOr<DynamicResourcesArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  DynamicResourcesArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kFilterTimeout, kBindingTimeout}, true));
  KSCHED_RETURN_IF_ERROR(DecodeOptionalDuration(args, path, kFilterTimeout, &out.filter_timeout));
  KSCHED_RETURN_IF_ERROR(DecodeOptionalDuration(args, path, kBindingTimeout, &out.binding_timeout));
  // ValidateDynamicResourcesArgs with the gates on.
  ErrorList errs;
  if (out.filter_timeout < absl::ZeroDuration()) {
    errs.Invalid(Child(path, kFilterTimeout), Quote(GoDuration(out.filter_timeout)),
                 "must be zero or positive");
  }
  if (out.binding_timeout < absl::Seconds(1)) {
    errs.Invalid(Child(path, kBindingTimeout), Quote(GoDuration(out.binding_timeout)),
                 "must be at least 1 second");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json ArgsToJson(const DynamicResourcesArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "DynamicResourcesArgs"},
          {kBindingTimeout, GoDuration(args.binding_timeout)},
          {kFilterTimeout, GoDuration(args.filter_timeout)}};
}

}  // namespace ksched::plugins::dynamic_resources
