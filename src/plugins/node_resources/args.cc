#include "src/plugins/node_resources/args.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "src/base/status_macros.h"

namespace ksched::plugins::node_resources {
namespace {

// MaxCustomPriorityScore: the top of the RequestedToCapacityRatio shape's score scale.
constexpr int32_t kMaxCustomPriorityScore = 10;

constexpr std::string_view kLeastAllocated = "LeastAllocated";
constexpr std::string_view kMostAllocated = "MostAllocated";
constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

// --- Field paths and errors, as apimachinery's field.Path and field.ErrorList. ----------------

std::string Child(std::string_view path, std::string_view name) {
  return path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
}

std::string Index(std::string_view path, size_t i) { return fmt::format("{}[{}]", path, i); }

// Go's %q of a string (JSON escaping, which agrees with Go for printable text).
std::string Quote(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

class ErrorList {
 public:
  void Invalid(std::string_view path, std::string_view bad_value, std::string_view detail) {
    Add(fmt::format("{}: Invalid value: {}: {}", path, bad_value, detail));
  }
  void Required(std::string_view path, std::string_view detail) {
    Add(fmt::format("{}: Required value: {}", path, detail));
  }
  void Duplicate(std::string_view path, std::string_view value) {
    Add(fmt::format("{}: Duplicate value: {}", path, Quote(value)));
  }
  void NotSupported(std::string_view path, std::string_view value,
                    std::initializer_list<std::string_view> supported) {
    std::string list;
    for (std::string_view s : supported) list += (list.empty() ? "" : ", ") + Quote(s);
    Add(fmt::format("{}: Unsupported value: {}: supported values: {}", path, Quote(value), list));
  }

  // OK when empty; one error as is; several as "[a, b]" (utilerrors.Aggregate).
  absl::Status ToStatus() const {
    if (errors_.empty()) return absl::OkStatus();
    if (errors_.size() == 1) return absl::InvalidArgumentError(errors_[0]);
    std::string joined;
    for (const std::string& e : errors_) joined += (joined.empty() ? "" : ", ") + e;
    return absl::InvalidArgumentError(fmt::format("[{}]", joined));
  }

 private:
  void Add(std::string error) {  // ToAggregate drops repeated messages.
    if (std::find(errors_.begin(), errors_.end(), error) == errors_.end()) {
      errors_.push_back(std::move(error));
    }
  }
  std::vector<std::string> errors_;
};

// --- Qualified names (apimachinery's IsQualifiedName, for ValidateLabelName). ------------------

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

// --- JSON decoding. Decoding errors stop at the first one. --------------------------------------

absl::Status CheckObject(const nlohmann::json& j, std::string_view path,
                         std::initializer_list<std::string_view> known) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected an object", path.empty() ? "args" : path));
  }
  for (const auto& [key, value] : j.items()) {
    bool ok = std::find(known.begin(), known.end(), key) != known.end();
    if (!ok && path.empty() && (key == "apiVersion" || key == "kind")) ok = true;
    if (!ok) {
      return absl::InvalidArgumentError(fmt::format("unknown field {}", Quote(Child(path, key))));
    }
  }
  return absl::OkStatus();
}

// The member `key` of object `j`, or nullptr when absent or null.
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

// Decodes [{name, weight}], applying the v1 defaults: an empty list becomes {cpu, memory}, a
// missing or 0 weight becomes 1.
absl::StatusOr<std::vector<ResourceSpec>> DecodeResources(const nlohmann::json* j,
                                                          std::string_view path) {
  std::vector<ResourceSpec> out;
  if (j != nullptr && !j->is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", path));
  }
  for (size_t i = 0; j != nullptr && i < j->size(); ++i) {
    const std::string item_path = Index(path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject((*j)[i], item_path, {"name", "weight"}));
    ResourceSpec spec{.weight = 0};
    if (const nlohmann::json* name = Member((*j)[i], "name")) {
      KSCHED_ASSIGN_OR_RETURN(spec.name, DecodeString(*name, Child(item_path, "name")));
    }
    if (const nlohmann::json* weight = Member((*j)[i], "weight")) {
      KSCHED_ASSIGN_OR_RETURN(spec.weight, DecodeInt(*weight, Child(item_path, "weight"),
                                                     std::numeric_limits<int64_t>::min(),
                                                     std::numeric_limits<int64_t>::max()));
    }
    if (spec.weight == 0) spec.weight = 1;
    out.push_back(std::move(spec));
  }
  if (out.empty()) out = DefaultResources();
  return out;
}

absl::StatusOr<std::vector<UtilizationShapePoint>> DecodeShape(const nlohmann::json& j,
                                                               std::string_view path) {
  KSCHED_RETURN_IF_ERROR(CheckObject(j, path, {"shape"}));
  std::vector<UtilizationShapePoint> out;
  const nlohmann::json* shape = Member(j, "shape");
  const std::string shape_path = Child(path, "shape");
  if (shape != nullptr && !shape->is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a list", shape_path));
  }
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (size_t i = 0; shape != nullptr && i < shape->size(); ++i) {
    const std::string p = Index(shape_path, i);
    KSCHED_RETURN_IF_ERROR(CheckObject((*shape)[i], p, {"utilization", "score"}));
    UtilizationShapePoint point;
    if (const nlohmann::json* u = Member((*shape)[i], "utilization")) {
      KSCHED_ASSIGN_OR_RETURN(int64_t v, DecodeInt(*u, Child(p, "utilization"), kMin, kMax));
      point.utilization = static_cast<int32_t>(v);
    }
    if (const nlohmann::json* s = Member((*shape)[i], "score")) {
      KSCHED_ASSIGN_OR_RETURN(int64_t v, DecodeInt(*s, Child(p, "score"), kMin, kMax));
      point.score = static_cast<int32_t>(v);
    }
    out.push_back(point);
  }
  return out;
}

// --- Validation (validation_pluginargs.go). -----------------------------------------------------

void ValidateFitResources(const std::vector<ResourceSpec>& resources, std::string_view path,
                          ErrorList& errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.Invalid(Child(Index(path, i), "weight"), std::to_string(r.weight),
                   fmt::format("resource weight of {} not in valid range (0, 100]", r.name));
    }
  }
}

// `path` is upstream's "scoringStrategy.shape", which skips "requestedToCapacityRatio".
void ValidateFunctionShape(const std::vector<UtilizationShapePoint>& shape, std::string_view path,
                           ErrorList& errs) {
  if (shape.empty()) {
    errs.Required(path, "at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.Invalid(Child(Index(path, i), "utilization"), std::to_string(shape[i].utilization),
                   "values must be sorted in increasing order");
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errs.Invalid(Child(Index(path, i), "utilization"), std::to_string(shape[i].utilization),
                   "not in valid range [0, 100]");
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errs.Invalid(Child(Index(path, i), "score"), std::to_string(shape[i].score),
                   fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore));
    }
  }
}

void ValidateIgnored(const FitArgs& args, ErrorList& errs) {
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    ValidateLabelName(args.ignored_resources[i], Index("ignoredResources", i), errs);
  }
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    const std::string path = Index("ignoredResourceGroups", i);
    if (group.find('/') != std::string::npos) {
      errs.Invalid(path, Quote(group), "resource group name can't contain '/'");
    }
    ValidateLabelName(group, path, errs);
  }
}

// Decodes and validates scoringStrategy; `j` is null when the field is absent.
absl::Status DecodeScoringStrategy(const nlohmann::json* j, ScoringStrategy& out, ErrorList& errs) {
  if (j == nullptr) return absl::OkStatus();  // The v1 default: LeastAllocated, cpu and memory.
  const std::string path = "scoringStrategy";
  KSCHED_RETURN_IF_ERROR(CheckObject(*j, path, {"type", "resources", "requestedToCapacityRatio"}));
  std::string type;  // Absent: "", which is not supported (v1 only defaults a missing strategy).
  if (const nlohmann::json* t = Member(*j, "type")) {
    KSCHED_ASSIGN_OR_RETURN(type, DecodeString(*t, Child(path, "type")));
  }
  KSCHED_ASSIGN_OR_RETURN(out.resources,
                          DecodeResources(Member(*j, "resources"), Child(path, "resources")));
  const nlohmann::json* ratio = Member(*j, "requestedToCapacityRatio");
  if (ratio != nullptr) {
    KSCHED_ASSIGN_OR_RETURN(out.shape,
                            DecodeShape(*ratio, Child(path, "requestedToCapacityRatio")));
  }

  if (type == kLeastAllocated) {
    out.type = ScoringStrategyType::kLeastAllocated;
  } else if (type == kMostAllocated) {
    out.type = ScoringStrategyType::kMostAllocated;
  } else if (type == kRequestedToCapacityRatio) {
    out.type = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errs.NotSupported(Child(path, "type"), type,
                      {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio});
  }
  ValidateFitResources(out.resources, Child(path, "resources"), errs);
  // Upstream validates a given shape whatever the type, and dereferences a missing one for
  // RequestedToCapacityRatio; here a missing shape is the same error as an empty one.
  if (ratio != nullptr || out.type == ScoringStrategyType::kRequestedToCapacityRatio) {
    ValidateFunctionShape(out.shape, Child(path, "shape"), errs);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

absl::StatusOr<FitArgs> ParseFitArgs(const nlohmann::json& args) {
  FitArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(
      CheckObject(args, "", {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"}));
  KSCHED_ASSIGN_OR_RETURN(out.ignored_resources,
                          DecodeStrings(Member(args, "ignoredResources"), "ignoredResources"));
  KSCHED_ASSIGN_OR_RETURN(
      out.ignored_resource_groups,
      DecodeStrings(Member(args, "ignoredResourceGroups"), "ignoredResourceGroups"));
  ErrorList errs;
  ValidateIgnored(out, errs);
  KSCHED_RETURN_IF_ERROR(
      DecodeScoringStrategy(Member(args, "scoringStrategy"), out.scoring_strategy, errs));
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

absl::StatusOr<BalancedAllocationArgs> ParseBalancedAllocationArgs(const nlohmann::json& args) {
  BalancedAllocationArgs out;
  if (args.is_null()) return out;
  KSCHED_RETURN_IF_ERROR(CheckObject(args, "", {"resources"}));
  KSCHED_ASSIGN_OR_RETURN(out.resources, DecodeResources(Member(args, "resources"), "resources"));
  ErrorList errs;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < out.resources.size(); ++i) {
    const ResourceSpec& r = out.resources[i];
    const std::string path = Index("resources", i);
    if (!seen.insert(r.name).second) errs.Duplicate(Child(path, "name"), r.name);
    if (r.weight != 1) errs.Invalid(Child(path, "weight"), std::to_string(r.weight), "must be 1");
  }
  KSCHED_RETURN_IF_ERROR(errs.ToStatus());
  return out;
}

}  // namespace ksched::plugins::node_resources
