// What the API server's validation of several kinds shares, for validation.cc (core and storage
// kinds) and validation_dra.cc (resource.k8s.io): upstream's messages, the name checks, and a list
// of field errors in upstream's forms.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "src/api/decode.h"

namespace ksched::sim::validation {

// Upstream's messages (k8s.io/apimachinery/pkg/util/validation), word for word.
inline constexpr char kNamePartError[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
inline constexpr char kLabelKeyError[] =
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";
inline constexpr char kLabelValueError[] =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value', "
    " or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
inline constexpr char kSubdomainError[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
inline constexpr char kDnsLabelError[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], and empty when `empty_ok`.
bool IsNamePart(std::string_view s, bool empty_ok);
// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
bool IsDnsLabel(std::string_view s);
// Dot-separated DNS labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view s);

// Field errors in upstream's forms.
struct Errors {
  std::vector<std::string> list;

  void Invalid(const std::string& path, std::string_view value, std::string_view why) {
    list.push_back(fmt::format("{}: Invalid value: \"{}\": {}", path, value, why));
  }
  // A value that upstream prints as Go does, unquoted: a number, a struct.
  void InvalidValue(const std::string& path, std::string_view value, std::string_view why) {
    list.push_back(fmt::format("{}: Invalid value: {}: {}", path, value, why));
  }
  void InvalidNumber(const std::string& path, int64_t value, std::string_view why) {
    InvalidValue(path, std::to_string(value), why);
  }
  void Required(const std::string& path, std::string_view why = "") {
    list.push_back(why.empty() ? fmt::format("{}: Required value", path)
                               : fmt::format("{}: Required value: {}", path, why));
  }
  void Forbidden(const std::string& path, std::string_view why) {
    list.push_back(fmt::format("{}: Forbidden: {}", path, why));
  }
  void Unsupported(const std::string& path, std::string_view value,
                   std::initializer_list<std::string_view> supported);
  void TooLong(const std::string& path, size_t max_bytes) {
    list.push_back(fmt::format("{}: Too long: may not be more than {} bytes", path, max_bytes));
  }
  void TooMany(const std::string& path, size_t actual, size_t max) {
    list.push_back(fmt::format("{}: Too many: {}: must have at most {} item{}", path, actual, max,
                               max == 1 ? "" : "s"));
  }
  void Duplicate(const std::string& path, std::string_view value) {
    list.push_back(fmt::format("{}: Duplicate value: \"{}\"", path, value));
  }
  // A duplicate that upstream prints as JSON, unquoted: a whole list item.
  void DuplicateValue(const std::string& path, std::string_view json) {
    list.push_back(fmt::format("{}: Duplicate value: {}", path, json));
  }

  // IsQualifiedName: [prefix/]name, the prefix a DNS subdomain, the name at most 63 characters.
  void QualifiedName(const std::string& path, std::string_view key);
  void LabelValue(const std::string& path, std::string_view value);
  void Labels(const std::string& path, const api::StringMap& labels);
  // Each quantity of `list` at least 0.
  void NonNegative(const std::string& path, const api::ResourceList& list);
};

void ValidateLabelSelector(const api::LabelSelector& s, const std::string& path, Errors* e);
void ValidateNodeSelector(const api::NodeSelector& s, const std::string& path, Errors* e);

// The resource.k8s.io kinds' own checks: ResourceClaim, ResourceClaimTemplate, DeviceClass and
// ResourceSlice (validation_dra.cc); nothing for another kind.
void ValidateDraObject(const api::Object& object, Errors* e);

}  // namespace ksched::sim::validation
