// Args of the form {annotationKey: <qualified name>}, shared by the plugins whose only setting
// is the annotation they read (AnnotationGate, NodePrice).
//
//   AnnotationGateArgs out;  // out.annotation_key holds the default
//   KSCHED_RETURN_IF_ERROR(DecodeAnnotationKeyArgs(args, path, &out.annotation_key));
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace ksched::guides {

// Decodes {annotationKey} into *key, which keeps its value (the default) when `args` is null or
// the field is left out or null. InvalidArgument names the field below `path`: an unknown field,
// a key that is not a string, or one that is not a qualified name.
absl::Status DecodeAnnotationKeyArgs(const nlohmann::json& args, std::string_view path,
                                     std::string* key);

// "annotationKey", as the args documents spell it.
inline constexpr char kAnnotationKeyField[] = "annotationKey";

}  // namespace ksched::guides
