#include "src/plugins/volume_binding/args.h"

#include <limits>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"

namespace ksched::plugins::volume_binding {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt;
using api::field::DecodeInt32;
using api::field::ErrorList;
using api::field::Index;
using api::field::Member;

constexpr char kBindTimeout[] = "bindTimeoutSeconds";
constexpr char kShape[] = "shape";

// Decodes the shape [{utilization, score}] strictly and returns it as Go's json.Marshal prints
// the internal []UtilizationShapePoint in a field error: [{"Utilization":0,"Score":10}].
absl::StatusOr<std::string> DecodeShapeAsGo(const nlohmann::json& shape, std::string_view path) {
  if (!shape.is_array())
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", path));
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string point_path = Index(path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject(shape[i], point_path, {"utilization", "score"}));
    int32_t utilization = 0;
    int32_t score = 0;
    if (const nlohmann::json* u = Member(shape[i], "utilization")) {
      KSCHED_ASSIGN_OR_RETURN(utilization, DecodeInt32(*u, Child(point_path, "utilization")));
    }
    if (const nlohmann::json* s = Member(shape[i], "score")) {
      KSCHED_ASSIGN_OR_RETURN(score, DecodeInt32(*s, Child(point_path, "score")));
    }
    out +=
        fmt::format("{}{{\"Utilization\":{},\"Score\":{}}}", i == 0 ? "" : ",", utilization, score);
  }
  return "[" + out + "]";
}

}  // namespace

absl::StatusOr<VolumeBindingArgs> ParseArgs(const nlohmann::json& args, std::string_view path) {
  VolumeBindingArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kBindTimeout, kShape}, true));
  if (const nlohmann::json* j = Member(args, kBindTimeout)) {
    KSCHED_ASSIGN_OR_RETURN(
        out.bind_timeout_seconds,
        DecodeInt(*j, Child(path, kBindTimeout), std::numeric_limits<int64_t>::min(),
                  std::numeric_limits<int64_t>::max()));
  }
  std::string shape;  // Go's JSON of a given shape; empty when absent or null.
  if (const nlohmann::json* j = Member(args, kShape)) {
    KSCHED_ASSIGN_OR_RETURN(shape, DecodeShapeAsGo(*j, Child(path, kShape)));
  }
  // ValidateVolumeBindingArgsWithOptions, StorageCapacityScoring off.
  ErrorList errs;
  if (out.bind_timeout_seconds < 0) {
    errs.Invalid(Child(path, kBindTimeout), std::to_string(out.bind_timeout_seconds),
                 "invalid BindTimeoutSeconds, should not be a negative value");
  }
  if (!shape.empty()) {  // An empty list too: the gate-off check is `shape != nil`.
    errs.Invalid(Child(path, kShape), shape,
                 "unexpected field `shape`, remove it or turn on the feature gate "
                 "StorageCapacityScoring");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

nlohmann::json ArgsToJson(const VolumeBindingArgs& args) {
  return {{"apiVersion", kArgsApiVersion},
          {"kind", "VolumeBindingArgs"},
          {kBindTimeout, args.bind_timeout_seconds}};
}

}  // namespace ksched::plugins::volume_binding
