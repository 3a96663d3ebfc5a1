#include "ksched/api/field.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "simdjson.h"
#include "src/api/decode.h"

namespace ksched::api::field {
namespace {

std::string RegexError(std::string_view msg, std::string_view re,
                       std::initializer_list<std::string_view> examples) {
  std::string out = fmt::format("{} (e.g. ", msg);
  bool first = true;
  for (std::string_view e : examples) {
    out += fmt::format("{}'{}', ", first ? "" : " or ", e);
    first = false;
  }
  return out + fmt::format("regex used for validation is '{}')", re);
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
bool MatchesDNS1123Subdomain(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

}  // namespace

std::string Child(std::string_view path, std::string_view name) {
  return path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
}

std::string Index(std::string_view path, size_t i) { return fmt::format("{}[{}]", path, i); }

std::string Quote(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

// --- Qualified names (apimachinery's IsQualifiedName, for ValidateLabelName). ------------------

std::vector<std::string> QualifiedNameErrors(std::string_view value) {
  const std::string name_regex_error =
      RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"});
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      return {
          fmt::format("a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. "
                      "'example.com/MyName')",
                      name_regex_error)};
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.push_back("prefix part must be no more than 253 characters");
      if (!MatchesDNS1123Subdomain(prefix)) {
        errs.push_back(
            "prefix part " +
            RegexError("a lowercase RFC 1123 subdomain must consist of lower case "
                       "alphanumeric characters, '-' or '.', and must start and end "
                       "with an alphanumeric character",
                       "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                       {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  }
  if (!MatchesQualifiedName(name)) errs.push_back("name part " + name_regex_error);
  return errs;
}

void ValidateLabelName(std::string_view value, std::string_view path, ErrorList& errs) {
  for (const std::string& msg : QualifiedNameErrors(value)) errs.Invalid(path, Quote(value), msg);
}

void ValidateLabelValue(std::string_view value, std::string_view path, ErrorList& errs) {
  if (value.size() > 63) {
    errs.Invalid(path, Quote(value), "must be no more than 63 characters");
  }
  if (!value.empty() && !MatchesQualifiedName(value)) {
    errs.Invalid(path, Quote(value),
                 RegexError("a valid label must be an empty string or consist of alphanumeric "
                            "characters, '-', '_' or '.', and must start and end with an "
                            "alphanumeric character",
                            "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
                            {"MyValue", "my_value", "12345"}));
  }
}

absl::Status CheckObject(const nlohmann::json& j, std::string_view path,
                         std::initializer_list<std::string_view> known, bool type_meta) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected an object", path.empty() ? "args" : path));
  }
  for (const auto& [key, value] : j.items()) {
    bool ok = std::find(known.begin(), known.end(), key) != known.end();
    if (!ok && type_meta && (key == "apiVersion" || key == "kind")) ok = true;
    if (!ok) {
      return absl::InvalidArgumentError(fmt::format("unknown field {}", Quote(Child(path, key))));
    }
  }
  return absl::OkStatus();
}

const nlohmann::json* Member(const nlohmann::json& j, std::string_view key) {
  auto it = j.find(std::string(key));
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

absl::StatusOr<std::string> DecodeString(const nlohmann::json& j, std::string_view path) {
  if (!j.is_string()) return absl::InvalidArgumentError(fmt::format("{}: expected a string", path));
  return j.get<std::string>();
}

absl::StatusOr<int64_t> DecodeInt(const nlohmann::json& j, std::string_view path, int64_t min,
                                  int64_t max) {
  if (!j.is_number_integer()) {  // Unsigned numbers are integers too.
    return absl::InvalidArgumentError(
        fmt::format("{}: expected an integer, got {}", path, j.dump()));
  }
  const bool in_range = j.is_number_unsigned() ? j.get<uint64_t>() <= static_cast<uint64_t>(max)
                                               : j.get<int64_t>() >= min && j.get<int64_t>() <= max;
  if (!in_range) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} is out of range [{}, {}]", path, j.dump(), min, max));
  }
  return j.get<int64_t>();
}

absl::Status DecodeOptionalString(const nlohmann::json& j, std::string_view path,
                                  std::string_view key, std::string* out) {
  const nlohmann::json* member = Member(j, key);
  if (member == nullptr) return absl::OkStatus();
  KSCHED_ASSIGN_OR_RETURN(*out, DecodeString(*member, Child(path, key)));
  return absl::OkStatus();
}

absl::Status DecodeOptionalDuration(const nlohmann::json& j, std::string_view path,
                                    std::string_view key, absl::Duration* out) {
  const nlohmann::json* member = Member(j, key);
  if (member == nullptr) return absl::OkStatus();
  KSCHED_ASSIGN_OR_RETURN(*out, DecodeDuration(*member, Child(path, key)));
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> DecodeDuration(const nlohmann::json& j, std::string_view path) {
  KSCHED_ASSIGN_OR_RETURN(std::string text, DecodeString(j, path));
  absl::Duration d;
  if (!ParseGoDuration(text, &d)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: time: invalid duration {}", path, Quote(text)));
  }
  return d;
}

bool ParseGoDuration(std::string_view text, absl::Duration* out) {
  if (text == "inf" || text == "-inf" || text == "+inf") return false;
  return absl::ParseDuration(absl::string_view(text.data(), text.size()), out);
}

std::string MetaTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string GoDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "0s";
  std::string sign = d < absl::ZeroDuration() ? "-" : "";
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

absl::Status DecodeOptionalInt(const nlohmann::json& j, std::string_view path, std::string_view key,
                               int64_t min, int64_t max, int64_t* out) {
  const nlohmann::json* member = Member(j, key);
  if (member == nullptr) return absl::OkStatus();
  KSCHED_ASSIGN_OR_RETURN(*out, DecodeInt(*member, Child(path, key), min, max));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DecodeStrings(const nlohmann::json* j,
                                                       std::string_view path) {
  std::vector<std::string> out;
  if (j == nullptr) return out;
  if (!j->is_array()) return absl::InvalidArgumentError(fmt::format("{}: expected a list", path));
  for (size_t i = 0; i < j->size(); ++i) {
    KSCHED_ASSIGN_OR_RETURN(std::string s, DecodeString((*j)[i], Index(path, i)));
    out.push_back(std::move(s));
  }
  return out;
}

void ErrorList::Invalid(std::string_view path, std::string_view bad_value,
                        std::string_view detail) {
  Add(fmt::format("{}: Invalid value: {}: {}", path, bad_value, detail));
}

void ErrorList::Required(std::string_view path, std::string_view detail) {
  Add(detail.empty() ? fmt::format("{}: Required value", path)
                     : fmt::format("{}: Required value: {}", path, detail));
}

void ErrorList::Duplicate(std::string_view path, std::string_view value) {
  Add(fmt::format("{}: Duplicate value: {}", path, Quote(value)));
}

void ErrorList::NotSupported(std::string_view path, std::string_view value,
                             std::initializer_list<std::string_view> supported) {
  std::string list;
  for (std::string_view s : supported) list += (list.empty() ? "" : ", ") + Quote(s);
  Add(fmt::format("{}: Unsupported value: {}: supported values: {}", path, Quote(value), list));
}

void ErrorList::Forbidden(std::string_view path, std::string_view detail) {
  Add(fmt::format("{}: Forbidden: {}", path, detail));
}

void ErrorList::Add(std::string error) {  // ToAggregate drops repeated messages.
  if (std::find(errors_.begin(), errors_.end(), error) == errors_.end()) {
    errors_.push_back(std::move(error));
  }
}

absl::Status ErrorList::ToStatus() const {
  if (errors_.empty()) return absl::OkStatus();
  if (errors_.size() == 1) return absl::InvalidArgumentError(errors_[0]);
  std::string joined;
  for (const std::string& e : errors_) joined += (joined.empty() ? "" : ", ") + e;
  return absl::InvalidArgumentError(fmt::format("[{}]", joined));
}

absl::StatusOr<bool> DecodeBool(const nlohmann::json& j, std::string_view path) {
  if (!j.is_boolean()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected a boolean, got {}", path, j.dump()));
  }
  return j.get<bool>();
}

absl::StatusOr<int32_t> DecodeInt32(const nlohmann::json& j, std::string_view path) {
  KSCHED_ASSIGN_OR_RETURN(int64_t v, DecodeInt(j, path, std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max()));
  return static_cast<int32_t>(v);
}

absl::StatusOr<NodeAffinity> DecodeNodeAffinity(const nlohmann::json& j, std::string_view path) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected object, got {}", path, j.type_name()));
  }
  // Through the API objects' own decoder, so that args read a v1 object as the API does.
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root); err) {
    return absl::InvalidArgumentError(
        fmt::format("{}: invalid JSON: {}", path, simdjson::error_message(err)));
  }
  NodeAffinity out;
  if (absl::Status st = api::DecodeNodeAffinity(root, &out); !st.ok()) {
    // Errors inside an object always name a field below it.
    return absl::InvalidArgumentError(fmt::format("{}.{}", path, AsStd(st.message())));
  }
  return out;
}

}  // namespace ksched::api::field
