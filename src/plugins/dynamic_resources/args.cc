#include "src/plugins/dynamic_resources/args.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

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

// Go's time.ParseDuration and time.Duration.String(), as metav1.Duration reads and prints them
// (the SDK has no duration helpers yet; src/base/go_duration.h is ksched's own, out of a plugin's
// reach).
bool ParseGoDuration(std::string_view text, absl::Duration* out) {
  if (text == "inf" || text == "-inf" || text == "+inf") return false;
  return absl::ParseDuration(absl::string_view(text.data(), text.size()), out);
}

std::string GoDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "0s";
  const std::string sign = d < absl::ZeroDuration() ? "-" : "";
  d = absl::AbsDuration(d);
  if (d < absl::Seconds(1)) {
    const int64_t ns = absl::ToInt64Nanoseconds(d);
    if (ns < 1000) return fmt::format("{}{}ns", sign, ns);
    if (ns < 1000000) return fmt::format("{}{}µs", sign, absl::ToDoubleMicroseconds(d));
    return fmt::format("{}{}ms", sign, absl::ToDoubleMilliseconds(d));
  }
  const int64_t hours = absl::IDivDuration(d, absl::Hours(1), &d);
  const int64_t minutes = absl::IDivDuration(d, absl::Minutes(1), &d);
  std::string out = sign;
  if (hours > 0) out += fmt::format("{}h", hours);
  if (hours > 0 || minutes > 0) out += fmt::format("{}m", minutes);
  return out + fmt::format("{}s", absl::ToDoubleSeconds(d));
}

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
