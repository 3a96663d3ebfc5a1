#include "src/plugins/volume_binding/args.h"

#include <limits>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "ksched/api/field.h"
#include "ksched/registry.h"
#include "ksched/status_macros.h"
#include "src/plugins/helper/shape_score.h"

namespace ksched::plugins::volume_binding {
namespace {

using api::field::CheckObject;
using api::field::Child;
using api::field::DecodeInt;
using api::field::ErrorList;
using api::field::Member;

constexpr char kBindTimeout[] = "bindTimeoutSeconds";
constexpr char kShape[] = "shape";

}  // namespace

absl::StatusOr<VolumeBindingArgs> ParseArgs(const nlohmann::json& args, std::string_view path,
                                            bool storage_capacity_scoring) {
  VolumeBindingArgs out;
  const nlohmann::json* shape = nullptr;
  if (!args.is_null()) {
    KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {kBindTimeout, kShape}, true));
    if (const nlohmann::json* j = Member(args, kBindTimeout)) {
      KSCHED_ASSIGN_OR_RETURN(
          out.bind_timeout_seconds,
          DecodeInt(*j, Child(path, kBindTimeout), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()));
    }
    shape = Member(args, kShape);
    if (shape != nullptr) {
      KSCHED_ASSIGN_OR_RETURN(out.shape, helper::DecodeShape(*shape, Child(path, kShape)));
    }
  }
  // SetDefaults_VolumeBindingArgs: with the gate on, an empty or absent shape is the default.
  if (storage_capacity_scoring && out.shape.empty()) out.shape = DefaultShape();
  // ValidateVolumeBindingArgsWithOptions.
  ErrorList errs;
  if (out.bind_timeout_seconds < 0) {
    errs.Invalid(Child(path, kBindTimeout), std::to_string(out.bind_timeout_seconds),
                 "invalid BindTimeoutSeconds, should not be a negative value");
  }
  if (storage_capacity_scoring) {
    helper::ValidateFunctionShape(out.shape, Child(path, kShape), errs);
  } else if (shape != nullptr) {  // An empty list too: the gate-off check is `shape != nil`.
    errs.Invalid(Child(path, kShape), helper::ShapeAsGo(out.shape),
                 "unexpected field `shape`, remove it or turn on the feature gate "
                 "StorageCapacityScoring");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

ArgsDecoder MakeDecoder(bool storage_capacity_scoring) {
  return [storage_capacity_scoring](
             const nlohmann::json& args,
             std::string_view path) -> absl::StatusOr<std::shared_ptr<const PluginArgs>> {
    absl::StatusOr<VolumeBindingArgs> parsed = ParseArgs(args, path, storage_capacity_scoring);
    if (!parsed.ok()) return parsed.status();
    return std::make_shared<const TypedArgs<VolumeBindingArgs>>(*std::move(parsed), ArgsToJson);
  };
}

std::vector<helper::UtilizationShapePoint> DefaultShape() {
  return {{0, helper::kMaxCustomPriorityScore}, {100, 0}};
}

nlohmann::json ArgsToJson(const VolumeBindingArgs& args) {
  nlohmann::json out = {{"apiVersion", kArgsApiVersion},
                        {"kind", "VolumeBindingArgs"},
                        {kBindTimeout, args.bind_timeout_seconds}};
  if (!args.shape.empty()) out[kShape] = helper::ShapeToJson(args.shape);
  return out;
}

}  // namespace ksched::plugins::volume_binding
