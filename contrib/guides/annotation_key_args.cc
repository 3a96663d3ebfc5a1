#include "contrib/guides/annotation_key_args.h"

#include "ksched/api/field.h"
#include "ksched/status_macros.h"

namespace ksched::guides {

absl::Status DecodeAnnotationKeyArgs(const nlohmann::json& args, std::string_view path,
                                     std::string* key) {
  if (args.is_null()) return absl::OkStatus();
  KSCHED_RETURN_IF_ERROR(api::field::CheckObject(args, path, {kAnnotationKeyField}, true));
  KSCHED_RETURN_IF_ERROR(api::field::DecodeOptionalString(args, path, kAnnotationKeyField, key));
  api::field::ErrorList errs;
  api::field::ValidateLabelName(*key, api::field::Child(path, kAnnotationKeyField), errs);
  return errs.ToStatus();
}

}  // namespace ksched::guides
