#include "src/plugins/dynamic_resources/args.h"

#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"
#include "src/base/go_duration.h"

namespace ksched::plugins::dynamic_resources {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeString;
using api::field::ErrorList;
using api::field::Member;
using api::field::Quote;

constexpr char kFilterTimeout[] = "filterTimeout";
constexpr char kBindingTimeout[] = "bindingTimeout";

absl::Status DecodeDuration(const nlohmann::json& args, const char* key, std::string_view path,
                            absl::Duration* out) {
  const nlohmann::json* j = Member(args, key);
  if (j == nullptr) return absl::OkStatus();
  KSCHED_ASSIGN_OR_RETURN(std::string text, DecodeString(*j, Child(path, key)));
  if (!ParseGoDuration(text, out)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: time: invalid duration {}", Child(path, key), Quote(text)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DynamicResourcesArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  DynamicResourcesArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kFilterTimeout, kBindingTimeout}, true));
  KSCHED_RETURN_IF_ERROR(DecodeDuration(args, kFilterTimeout, path, &out.filter_timeout));
  KSCHED_RETURN_IF_ERROR(DecodeDuration(args, kBindingTimeout, path, &out.binding_timeout));
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
