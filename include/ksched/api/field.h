// Decoding and validating a plugin's args (ksched/registry.h, ArgsDecoder) as upstream's do: field
// paths and field errors as apimachinery's field.Path and field.ErrorList print them, and strict
// JSON decoding that names the field. The configuration's decoder uses the same.
//
//   KSCHED_RETURN_IF_ERROR(CheckObject(args, path, {"label"}, /*type_meta=*/true));
//   KSCHED_RETURN_IF_ERROR(DecodeOptionalString(args, path, "label", &out.label));
//   ErrorList errs;
//   errs.Invalid(Child(Index("resources", 0), "weight"), "0", "must be 1");
//   return errs.ToStatus();  // "resources[0].weight: Invalid value: 0: must be 1"
//
// Thread safety: functions are reentrant; an ErrorList is not synchronized.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ksched/api/objects.h"
#include "nlohmann/json.hpp"

namespace ksched::api::field {

// "path.name", or "name" at the root.
std::string Child(std::string_view path, std::string_view name);
// "path[i]".
std::string Index(std::string_view path, size_t i);
// Go's %q of a string (JSON escaping, which agrees with Go for printable text).
std::string Quote(std::string_view s);

class ErrorList {
 public:
  void Invalid(std::string_view path, std::string_view bad_value, std::string_view detail);
  void Required(std::string_view path, std::string_view detail);
  void Duplicate(std::string_view path, std::string_view value);
  void NotSupported(std::string_view path, std::string_view value,
                    std::initializer_list<std::string_view> supported);
  void Forbidden(std::string_view path, std::string_view detail);
  // A message already in field.Error form.
  void Add(std::string error);

  bool empty() const { return errors_.empty(); }
  // OK when empty; one error as is; several as "[a, b]" (utilerrors.Aggregate).
  absl::Status ToStatus() const;

 private:
  std::vector<std::string> errors_;
};

// apimachinery's IsQualifiedName messages for `value` (empty when valid).
std::vector<std::string> QualifiedNameErrors(std::string_view value);
// ValidateLabelName: one Invalid error per message of QualifiedNameErrors.
void ValidateLabelName(std::string_view value, std::string_view path, ErrorList& errs);
// apimachinery's IsValidLabelValue: one Invalid error per problem of `value` (none when valid;
// the empty string is a valid label value).
void ValidateLabelValue(std::string_view value, std::string_view path, ErrorList& errs);

// --- Strict decoding. These stop at the first error. -------------------------------------------

// InvalidArgument unless `j` is an object whose keys are all in `known` (apiVersion and kind too
// when `type_meta`): "<path>: expected an object", "unknown field \"<path>.<key>\"".
absl::Status CheckObject(const nlohmann::json& j, std::string_view path,
                         std::initializer_list<std::string_view> known, bool type_meta = false);
// The member `key` of object `j`, or nullptr when absent or null.
const nlohmann::json* Member(const nlohmann::json& j, std::string_view key);
absl::StatusOr<std::string> DecodeString(const nlohmann::json& j, std::string_view path);
absl::StatusOr<bool> DecodeBool(const nlohmann::json& j, std::string_view path);
// An integer within [min, max].
absl::StatusOr<int64_t> DecodeInt(const nlohmann::json& j, std::string_view path, int64_t min,
                                  int64_t max);
absl::StatusOr<int32_t> DecodeInt32(const nlohmann::json& j, std::string_view path);
// The member `key` of object `j` into *out when it is present and not null; *out (the default)
// is left as it is otherwise. Errors name Child(path, key).
absl::Status DecodeOptionalString(const nlohmann::json& j, std::string_view path,
                                  std::string_view key, std::string* out);
absl::Status DecodeOptionalInt(const nlohmann::json& j, std::string_view path, std::string_view key,
                               int64_t min, int64_t max, int64_t* out);
absl::Status DecodeOptionalDuration(const nlohmann::json& j, std::string_view path,
                                    std::string_view key, absl::Duration* out);
// A metav1.Duration: Go's time.ParseDuration text ("<path>: time: invalid duration \"10\"").
absl::StatusOr<absl::Duration> DecodeDuration(const nlohmann::json& j, std::string_view path);
// Go's time.ParseDuration ("300ms", "-1.5h", "2h45m"); false for text Go refuses (Abseil's "inf"
// included).
bool ParseGoDuration(std::string_view text, absl::Duration* out);
// Go's time.Duration.String(), as kube-scheduler prints durations: "15s", "1m30s", "1h0m0s",
// "500ms", "0s".
std::string GoDuration(absl::Duration d);
// `t` as Kubernetes writes a metav1.Time: RFC 3339 in UTC, to the second ("2026-11-28T04:10:00Z").
std::string MetaTime(absl::Time t);
// A list of strings; empty when `j` is null.
absl::StatusOr<std::vector<std::string>> DecodeStrings(const nlohmann::json* j,
                                                       std::string_view path);
// A core/v1 NodeAffinity inside args (NodeAffinityArgs.addedAffinity), decoded as the API server's
// objects are; errors name the field below `path`.
absl::StatusOr<NodeAffinity> DecodeNodeAffinity(const nlohmann::json& j, std::string_view path);

}  // namespace ksched::api::field
