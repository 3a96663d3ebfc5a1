// The API server's validation of the resource.k8s.io kinds ksched reads, in upstream's messages
// (pkg/apis/resource/validation): what a claim asks for, what a class selects and what a slice
// publishes.
#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/cel.h"
#include "ksched/node_info.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/sim/validation_internal.h"

namespace ksched::sim::validation {
namespace {

constexpr char kRequestRefError[] =
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'";
constexpr char kCIdentifierError[] =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')";

// ValidateCSIDriverName, which DRA's driver names share.
void DriverName(const std::string& path, const std::string& name, Errors* e) {
  if (name.empty()) return e->Required(path);
  if (name.size() > 63) e->TooLong(path, 63);
  if (!IsDnsSubdomain(absl::AsciiStrToLower(name))) e->Invalid(path, name, kSubdomainError);
}

void DnsLabel(const std::string& path, const std::string& name, Errors* e) {
  if (!IsDnsLabel(name)) e->Invalid(path, name, kDnsLabelError);
}

bool IsCIdentifier(std::string_view id) {
  auto alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  if (id.empty() || !alpha(id.front())) return false;
  return std::all_of(id.begin(), id.end(), [&](char c) {
    return alpha(c) || std::isdigit(static_cast<unsigned char>(c));
  });
}

void CIdentifier(const std::string& path, std::string_view id, Errors* e) {
  if (id.size() > 32) e->TooLong(path, 32);
  if (!IsCIdentifier(id)) e->Invalid(path, id, kCIdentifierError);
}

// An attribute's or a capacity's name: an identifier, or a driver's domain and an identifier.
void QualifiedAttributeName(const std::string& path, std::string_view name, Errors* e) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return CIdentifier(path, name, e);
  std::string_view domain = name.substr(0, slash);
  std::string_view id = name.substr(slash + 1);
  if (domain.empty()) {
    e->Invalid(path, "", "the domain must not be empty");
  } else {
    DriverName(path, std::string(domain), e);
  }
  if (id.empty()) {
    e->Invalid(path, "", "the name must not be empty");
  } else {
    CIdentifier(path, id, e);
  }
}

void TaintEffect(const std::string& path, const std::string& effect, Errors* e) {
  if (effect != "NoExecute" && effect != "NoSchedule" && effect != "None") {
    e->Unsupported(path, effect, {"NoExecute", "NoSchedule", "None"});
  }
}

void Taint(const std::string& at, const api::DeviceTaint& t, Errors* e) {
  e->QualifiedName(at + ".key", t.key);
  if (!t.value.empty()) e->LabelValue(at + ".value", t.value);
  if (t.effect.empty()) {
    e->Required(at + ".effect");
  } else {
    TaintEffect(at + ".effect", t.effect, e);
  }
}

void TaintRule(const api::DeviceTaintRule& r, Errors* e) {
  if (r.device_selector && r.device_selector->driver) {
    DriverName("spec.deviceSelector.driver", *r.device_selector->driver, e);
  }
  Taint("spec.taint", r.taint, e);
}

// A selector's CEL, compiled by upstream's own compiler, which gives upstream's message. Where the
// library cannot be opened the expression is left for the scheduler, which keeps a pod that needs
// it pending and names the library.
void Selectors(const std::string& path, const std::vector<std::string>& selectors, Errors* e) {
  for (size_t i = 0; i < selectors.size(); ++i) {
    const std::string at = fmt::format("{}[{}].cel", path, i);
    if (selectors[i].empty()) {
      e->Required(at);
      continue;
    }
    auto compiled = cel::Selector::Compile(selectors[i]);
    if (!compiled.ok() && absl::IsInvalidArgument(compiled.status())) {
      e->Invalid(at + ".expression", selectors[i], AsStd(compiled.status().message()));
    }
  }
}

void SubRequest(const std::string& at, const api::DeviceSubRequest& r, Errors* e) {
  if (r.device_class_name.empty()) {
    e->Required(at + ".deviceClassName");
  } else if (!IsDnsSubdomain(r.device_class_name)) {
    e->Invalid(at + ".deviceClassName", r.device_class_name, kSubdomainError);
  }
  Selectors(at + ".selectors", r.selectors, e);
  if (r.allocation_mode == "All") {
    if (r.count != 0) {
      e->InvalidNumber(at + ".count", r.count,
                       "must not be specified when allocationMode is 'All'");
    }
  } else if (r.allocation_mode == "ExactCount") {
    if (r.count <= 0) e->InvalidNumber(at + ".count", r.count, "must be greater than zero");
  } else {
    e->Unsupported(at + ".allocationMode", r.allocation_mode, {"All", "ExactCount"});
  }
  for (size_t i = 0; i < r.tolerations.size(); ++i) {
    const api::DeviceToleration& t = r.tolerations[i];
    const std::string tat = fmt::format("{}.tolerations[{}]", at, i);
    if (!t.key.empty()) e->QualifiedName(tat + ".key", t.key);
    if (t.op == "Exists") {
      if (!t.value.empty())
        e->Invalid(tat + ".value", t.value, "must be empty for operator `Exists`");
    } else if (t.op == "Equal") {
      e->LabelValue(tat + ".value", t.value);
    } else {
      e->Unsupported(tat + ".operator", t.op, {"Equal", "Exists"});
    }
    if (!t.effect.empty()) TaintEffect(tat + ".effect", t.effect, e);
  }
}

// "<request>" or "<request>/<subrequest>", naming one of the claim's.
void RequestRef(const std::string& at, const std::string& ref,
                const std::vector<api::DeviceRequest>& requests, Errors* e) {
  const size_t slash = ref.find('/');
  const std::string name = ref.substr(0, slash);
  const std::string sub = slash == std::string::npos ? "" : ref.substr(slash + 1);
  if (sub.find('/') != std::string::npos) return e->Invalid(at, ref, kRequestRefError);
  DnsLabel(at, name, e);
  if (slash != std::string::npos) DnsLabel(at, sub, e);
  const bool found = std::any_of(requests.begin(), requests.end(), [&](const auto& r) {
    if (r.name != name) return false;
    if (slash == std::string::npos) return true;
    return std::any_of(r.first_available.begin(), r.first_available.end(),
                       [&](const auto& s) { return s.name == sub; });
  });
  if (!found) e->Invalid(at, ref, kRequestRefError);
}

void Config(const std::string& at, const api::DeviceConfiguration& c, Errors* e) {
  if (c.driver.empty() && c.parameters.empty()) return e->Required(at + ".opaque");
  DriverName(at + ".opaque.driver", c.driver, e);
  if (c.parameters.empty() || c.parameters == "null") {
    e->Required(at + ".opaque.parameters");
  } else if (c.parameters.front() != '{') {
    e->Invalid(at + ".opaque.parameters", "<value omitted>", "must be a valid JSON object");
  }
}

void ClaimSpec(const std::string& path, const api::ResourceClaimSpec& spec, Errors* e) {
  const std::string devices = path + ".devices";
  std::set<std::string_view> names;
  for (size_t i = 0; i < spec.requests.size(); ++i) {
    const api::DeviceRequest& r = spec.requests[i];
    const std::string at = fmt::format("{}.requests[{}]", devices, i);
    DnsLabel(at + ".name", r.name, e);
    if (!r.exactly && r.first_available.empty()) {
      e->Required(at, "exactly one of `exactly` or `firstAvailable` is required");
    } else if (r.exactly && !r.first_available.empty()) {
      e->InvalidValue(at, "null",
                      "exactly one of `exactly` or `firstAvailable` is required, but multiple "
                      "fields are set");
    } else if (r.exactly) {
      SubRequest(at + ".exactly", *r.exactly, e);
    } else {
      std::set<std::string_view> subs;
      for (size_t j = 0; j < r.first_available.size(); ++j) {
        const api::DeviceSubRequest& s = r.first_available[j];
        const std::string sat = fmt::format("{}.firstAvailable[{}]", at, j);
        DnsLabel(sat + ".name", s.name, e);
        SubRequest(sat, s, e);
        if (!subs.insert(s.name).second) e->Duplicate(sat, s.name);
      }
    }
    if (!names.insert(r.name).second) e->Duplicate(at, r.name);
  }
  for (size_t i = 0; i < spec.constraints.size(); ++i) {
    const api::DeviceConstraint& c = spec.constraints[i];
    const std::string at = fmt::format("{}.constraints[{}]", devices, i);
    for (size_t j = 0; j < c.requests.size(); ++j) {
      RequestRef(fmt::format("{}.requests[{}]", at, j), c.requests[j], spec.requests, e);
    }
    auto fully_qualified = [&](const std::string& field, const std::string& name) {
      QualifiedAttributeName(at + "." + field, name, e);
      if (name.find('/') == std::string::npos) {
        e->Invalid(at + "." + field, name,
                   "a fully qualified name must be a domain and a name separated by a slash");
      }
    };
    if (c.match_attribute) {  // The API server takes both, and checks matchAttribute then.
      fully_qualified("matchAttribute", *c.match_attribute);
    } else if (c.distinct_attribute) {
      fully_qualified("distinctAttribute", *c.distinct_attribute);
    } else {
      e->Required(at,
                  "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but "
                  "multiple fields are set");  // Upstream's words, though none is set.
    }
  }
  for (size_t i = 0; i < spec.config.size(); ++i) {
    const api::DeviceConfiguration& c = spec.config[i];
    const std::string at = fmt::format("{}.config[{}]", devices, i);
    for (size_t j = 0; j < c.requests.size(); ++j) {
      RequestRef(fmt::format("{}.requests[{}]", at, j), c.requests[j], spec.requests, e);
    }
    Config(at, c, e);
  }
}

void DeviceClass(const api::DeviceClass& c, Errors* e) {
  Selectors("spec.selectors", c.selectors, e);
  for (size_t i = 0; i < c.config.size(); ++i)
    Config(fmt::format("spec.config[{}]", i), c.config[i], e);
  if (c.extended_resource_name && !IsExtendedResourceName(*c.extended_resource_name)) {
    e->Invalid("spec.extendedResourceName", *c.extended_resource_name,
               "must be a valid extended resource name");
  }
}

// Where a slice's devices are, or with perDeviceNodeSelection a device: exactly one form is set.
// Upstream words the slice's and the device's errors differently.
struct NodeSelectionWords {
  std::string_view empty_name;  // nodeName: ""
  std::string_view none;        // No form is set.
  std::string_view many;        // Several are.
};
constexpr NodeSelectionWords kSliceWords{
    "must be either unset or set to a non-empty string",
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
    "required, but multiple fields are set"};
constexpr char kDeviceNodeSelection[] =
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
constexpr NodeSelectionWords kDeviceWords{"must not be empty", kDeviceNodeSelection,
                                          kDeviceNodeSelection};

void NodeSelection(const std::string& at, const std::optional<std::string>& node_name,
                   const std::optional<api::NodeSelector>& selector, bool all_nodes,
                   bool per_device, const NodeSelectionWords& words, Errors* e) {
  std::vector<std::string_view> set;
  if (node_name && node_name->empty()) {
    e->Invalid(at + ".nodeName", "", words.empty_name);
  } else if (node_name) {
    set.push_back("`nodeName`");
    if (!IsDnsSubdomain(*node_name)) e->Invalid(at + ".nodeName", *node_name, kSubdomainError);
  }
  if (selector) {
    set.push_back("`nodeSelector`");
    ValidateNodeSelector(*selector, at + ".nodeSelector", e);
  }
  if (all_nodes) set.push_back("`allNodes`");
  if (per_device) set.push_back("`perDeviceNodeSelection`");
  if (set.empty()) {
    e->Required(at, words.none);
  } else if (set.size() > 1) {
    e->Invalid(at, fmt::format("{{{}}}", fmt::join(set, ", ")), words.many);
  }
}

// The JSON Go's %v gives upstream's internal NodeSelectorTerms, which have no JSON tags.
std::string GoValue(const std::vector<api::NodeSelectorTerm>& terms) {
  auto requirements = [](const std::vector<api::NodeSelectorRequirement>& list) {
    if (list.empty()) return std::string("null");
    std::vector<std::string> out;
    for (const api::NodeSelectorRequirement& r : list) {
      nlohmann::json j = {{"Key", r.key}, {"Operator", r.op}, {"Values", nullptr}};
      if (!r.values.empty()) j["Values"] = r.values;
      out.push_back(j.dump());
    }
    return fmt::format("[{}]", fmt::join(out, ","));
  };
  std::vector<std::string> out;
  for (const api::NodeSelectorTerm& t : terms) {
    out.push_back(fmt::format(R"({{"MatchExpressions":{},"MatchFields":{}}})",
                              requirements(t.match_expressions), requirements(t.match_fields)));
  }
  return fmt::format("[{}]", fmt::join(out, ","));
}

// semver.org 2.0.0, as upstream's semverRe.
bool IsSemver(const std::string& v) {
  static const std::regex kSemver(
      R"(^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*))"
      R"((?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?)"
      R"((?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$)");
  return std::regex_match(v, kSemver);
}

// counters: {<name>: {value}}, of a counter set or of a device's consumption: names are DNS
// labels, at most 32 of them; any quantity is valid.
void Counters(const std::string& path, const std::map<std::string, api::Quantity>& counters,
              Errors* e) {
  if (counters.empty()) return e->Required(path);
  if (counters.size() > 32) return e->TooMany(path, counters.size(), 32);
  for (const auto& [name, value] : counters) DnsLabel(path, name, e);
}

// A counter set's or a consumption's name: required, a DNS label.
void CounterSetName(const std::string& path, const std::string& name, Errors* e) {
  if (name.empty()) return e->Required(path);
  DnsLabel(path, name, e);
}

// A list item as upstream prints a duplicate: its JSON, fields in the API's order, counters by
// name, an empty map left out.
nlohmann::ordered_json CountersJson(const std::map<std::string, api::Quantity>& counters) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : counters) out[name] = {{"value", value.String()}};
  return out;
}

// Partitionable devices: what a device consumes of the pool's counter sets. As the API server
// checks a list since 1.37: its length, then duplicates, then each item.
void ConsumesCounters(const std::string& at, const api::Device& d, Errors* e) {
  const std::vector<api::DeviceCounterConsumption>& list = d.consumes_counters;
  const std::string path = at + ".consumesCounters";
  if (list.size() > 2) return e->TooMany(path, list.size(), 2);
  std::set<std::string_view> sets;
  for (size_t j = 0; j < list.size(); ++j) {
    if (sets.insert(list[j].counter_set).second) continue;
    nlohmann::ordered_json item = {{"counterSet", list[j].counter_set}};
    if (!list[j].counters.empty()) item["counters"] = CountersJson(list[j].counters);
    e->DuplicateValue(fmt::format("{}[{}]", path, j), item.dump());
  }
  for (size_t j = 0; j < list.size(); ++j) {
    const std::string item = fmt::format("{}[{}]", path, j);
    CounterSetName(item + ".counterSet", list[j].counter_set, e);
    Counters(item + ".counters", list[j].counters, e);
  }
}

// A device's (or an allocation result's) binding conditions and failure conditions (upstream's
// validateDeviceBindingParameters): at most 4 of each, qualified names, no duplicates, no overlap,
// and one kind only with the other.
void BindingParameters(const std::string& at, const std::vector<std::string>& conditions,
                       const std::vector<std::string>& failures, Errors* e) {
  const std::string cpath = at + ".bindingConditions", fpath = at + ".bindingFailureConditions";
  constexpr size_t kMax = 4;  // BindingConditionsMaxSize, BindingFailureConditionsMaxSize.
  for (const auto& [path, list] : {std::pair{&cpath, &conditions}, std::pair{&fpath, &failures}}) {
    if (list->size() > kMax) {
      e->TooMany(*path, list->size(), kMax);
      continue;
    }
    for (size_t i = 0; i < list->size(); ++i) {
      e->QualifiedName(fmt::format("{}[{}]", *path, i), (*list)[i]);
    }
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i]).second) {
      e->Duplicate(fmt::format("{}[{}]", cpath, i), conditions[i]);
    }
  }
  const std::set<std::string_view> binding(conditions.begin(), conditions.end());
  seen.clear();
  for (size_t i = 0; i < failures.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", fpath, i);
    if (!seen.insert(failures[i]).second) e->Duplicate(path, failures[i]);
    if (binding.contains(failures[i])) {
      e->Invalid(path, failures[i],
                 "bindingFailureConditions must not overlap with bindingConditions");
    }
  }
  if (conditions.empty() && !failures.empty()) {
    e->InvalidValue(cpath, "null",
                    "bindingConditions are required to use bindingFailureConditions");
  }
  if (failures.empty() && !conditions.empty()) {
    e->InvalidValue(fpath, "null",
                    "bindingFailureConditions are required to use bindingConditions");
  }
}

// Consumable capacity: a capacity's requestPolicy, on a device that allows multiple allocations
// (`value`, the capacity's). Checked as the API server checks it without
// DRAFractionalCapacityRange: a range's steps in whole units.
void RequestPolicy(const std::string& at, const api::Quantity& value,
                   const api::CapacityRequestPolicy& policy, Errors* e) {
  if (!policy.valid_values.empty() && policy.valid_range) {
    return e->Forbidden(at,
                        "exactly one policy can be specified, cannot specify \"validValues\" "
                        "and \"validRange\" at the same time");
  }
  if (!policy.valid_values.empty()) {
    if (!policy.default_value) {
      return e->Required(at + ".default", "required when validValues is defined");
    }
    const std::vector<api::Quantity>& values = policy.valid_values;
    const std::string path = at + ".validValues";
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      if (values[i] > values[i + 1]) {
        e->Invalid(fmt::format("{}[{}]", path, i + 1), values[i + 1].String(),
                   "values must be sorted in ascending order");
      }
    }
    if (values.size() > 10) {
      e->TooMany(path, values.size(), 10);
    } else {
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] > value) {
          e->Invalid(fmt::format("{}[{}]", path, i), values[i].String(),
                     "option is larger than capacity value: " + value.String());
        }
      }
    }
    if (std::find(values.begin(), values.end(), *policy.default_value) == values.end()) {
      e->Invalid(path, policy.default_value->String(),
                 "default value is not valid according to the requestPolicy");
    }
    return;
  }
  if (!policy.valid_range) return;
  if (!policy.default_value) {
    return e->Required(at + ".default", "required when validRange is defined");
  }
  const api::CapacityRequestRange& range = *policy.valid_range;
  const api::Quantity& def = *policy.default_value;
  const std::string path = at + ".validRange";
  if (!range.min) return e->Required(path + ".min", "required when validRange is defined");
  const api::Quantity& min = *range.min;
  if (min > value) {
    e->Invalid(path + ".min", min.String(), "min is larger than capacity value: " + value.String());
  }
  if (def < min) {
    e->Invalid(path + ".default", def.String(), "default is less than min: " + min.String());
  }
  if (range.max) {
    if (min > *range.max) {
      e->Invalid(path + ".max", min.String(), "min is larger than max: " + range.max->String());
    }
    if (*range.max > value) {
      e->Invalid(path + ".max", range.max->String(),
                 "max is larger than capacity value: " + value.String());
    }
    if (def > *range.max) {
      e->Invalid(path + ".default", def.String(),
                 "default is more than max: " + range.max->String());
    }
  }
  if (!range.step) return;
  const api::Quantity& step = *range.step;
  if (step.Sign() <= 0)
    return e->Invalid(path + ".step", step.String(), "must be greater than zero");
  api::Quantity one_step = min;
  one_step += step;
  if (one_step > value) {
    e->Invalid(path + ".step", step.String(),
               fmt::format("one step {} is larger than capacity value: {}", one_step.String(),
                           value.String()));
  }
  bool unsafe = false;  // Beyond what whole units can hold.
  for (const auto& [q, name] :
       {std::pair{&policy.default_value, "default"}, std::pair{&range.min, "min"},
        std::pair{&range.max, "max"}, std::pair{&range.step, "step"}}) {
    if (!q->has_value()) continue;
    if ((*q)->Sign() < 0) {
      e->Invalid(path + "." + name, (*q)->String(), "must be greater than or equal to 0");
      unsafe = true;
    } else if ((*q)->NanoValue() > __int128{INT64_MAX} * 1'000'000'000) {
      e->Invalid(path + "." + name, (*q)->String(), "must not be larger than 9223372036854775807");
      unsafe = true;
    }
  }
  if (unsafe) return;
  for (const std::optional<api::Quantity>* of : {&policy.default_value, &range.max}) {
    if (of->has_value() && ((*of)->Value() - min.Value()) % step.Value() != 0) {
      e->Invalid(path + ".step", (*of)->String(),
                 fmt::format("value is not a multiple of a given step ({}) from ({})",
                             step.String(), min.String()));
    }
  }
}

// Partitionable devices: the slice's counter sets, checked as ConsumesCounters.
void SharedCounters(const api::ResourceSlice& s, Errors* e) {
  const std::vector<api::CounterSet>& list = s.shared_counters;
  if (list.size() > 8) return e->TooMany("spec.sharedCounters", list.size(), 8);
  std::set<std::string_view> sets;
  for (size_t i = 0; i < list.size(); ++i) {
    if (sets.insert(list[i].name).second) continue;
    nlohmann::ordered_json item = {{"name", list[i].name}};
    if (!list[i].counters.empty()) item["counters"] = CountersJson(list[i].counters);
    e->DuplicateValue(fmt::format("spec.sharedCounters[{}]", i), item.dump());
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("spec.sharedCounters[{}]", i);
    CounterSetName(at + ".name", list[i].name, e);
    Counters(at + ".counters", list[i].counters, e);
  }
}

void Slice(const api::ResourceSlice& s, Errors* e) {
  DriverName("spec.driver", s.driver, e);
  if (s.pool.empty()) {
    e->Required("spec.pool.name");
  } else {
    for (size_t start = 0;;) {  // Parts separated by '/', each a DNS subdomain.
      const size_t slash = s.pool.find('/', start);
      const std::string part = s.pool.substr(start, slash - start);
      if (!IsDnsSubdomain(part)) e->Invalid("spec.pool.name", part, kSubdomainError);
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
  }
  if (s.pool_slice_count <= 0) {
    e->InvalidNumber("spec.pool.resourceSliceCount", s.pool_slice_count,
                     "must be greater than zero");
  }
  if (s.pool_generation < 0) {
    e->InvalidNumber("spec.pool.generation", s.pool_generation,
                     "must be greater than or equal to zero");
  }
  NodeSelection("spec", s.node_name, s.node_selector, s.all_nodes, s.per_device_node_selection,
                kSliceWords, e);
  if (s.node_selector && s.node_selector->node_selector_terms.size() != 1) {
    e->InvalidValue("spec.nodeSelector.nodeSelectorTerms",
                    GoValue(s.node_selector->node_selector_terms),
                    "must have exactly one node selector term");
  }
  if (!s.shared_counters.empty() && !s.devices.empty()) {
    e->Invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed");
  }
  // 64 devices where one is tainted or consumes counters, else 128; beyond, no device is checked.
  const bool advanced = std::any_of(s.devices.begin(), s.devices.end(), [](const auto& d) {
    return !d.taints.empty() || !d.consumes_counters.empty();
  });
  const size_t max_devices = advanced ? 64 : 128;
  if (s.devices.size() > max_devices) e->TooMany("spec.devices", s.devices.size(), max_devices);
  std::set<std::string_view> names;
  for (size_t i = 0; i < s.devices.size() && s.devices.size() <= max_devices; ++i) {
    const api::Device& d = s.devices[i];
    const std::string at = fmt::format("spec.devices[{}]", i);
    DnsLabel(at + ".name", d.name, e);
    for (const auto& [name, attribute] : d.attributes) {
      QualifiedAttributeName(at + ".attributes", name, e);
      const int values = attribute.int_value.has_value() + attribute.bool_value.has_value() +
                         attribute.string_value.has_value() + attribute.version_value.has_value();
      if (values != 1) {
        e->Invalid(fmt::format("{}.attributes[{}]", at, name), "",
                   "exactly one value must be specified");
      }
      if (attribute.version_value && !IsSemver(*attribute.version_value)) {
        e->Invalid(fmt::format("{}.attributes[{}].version", at, name), *attribute.version_value,
                   "must be a string compatible with semver.org spec 2.0.0");
      }
    }
    for (const auto& [name, quantity] : d.capacity) {
      QualifiedAttributeName(at + ".capacity", name, e);
      auto policy = d.request_policies.find(name);
      if (policy == d.request_policies.end()) continue;
      const std::string path = fmt::format("{}.capacity[{}].requestPolicy", at, name);
      if (!d.allow_multiple_allocations.value_or(false)) {
        e->Forbidden(path, "allowMultipleAllocations must be true");
      } else {
        RequestPolicy(path, quantity, policy->second, e);
      }
    }
    for (size_t j = 0; j < d.taints.size(); ++j) {
      Taint(fmt::format("{}.taints[{}]", at, j), d.taints[j], e);
    }
    ConsumesCounters(at, d, e);
    BindingParameters(at, d.binding_conditions, d.binding_failure_conditions, e);
    if (s.per_device_node_selection) {
      NodeSelection(at, d.node_name, d.node_selector, d.all_nodes.value_or(false), false,
                    kDeviceWords, e);
    } else if (d.node_name || d.node_selector || d.all_nodes) {
      e->InvalidValue(at, "null",
                      "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                      "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    }
    if (!names.insert(d.name).second) e->Duplicate(at, d.name);
  }
  SharedCounters(s, e);
}

}  // namespace

void ValidateDraObject(const api::Object& object, Errors* e) {
  if (const auto* claim = std::get_if<api::ResourceClaim>(&object))
    ClaimSpec("spec", claim->spec, e);
  if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&object)) {
    ClaimSpec("spec.spec", t->spec, e);
  }
  if (const auto* c = std::get_if<api::DeviceClass>(&object)) DeviceClass(*c, e);
  if (const auto* s = std::get_if<api::ResourceSlice>(&object)) Slice(*s, e);
  if (const auto* r = std::get_if<api::DeviceTaintRule>(&object)) TaintRule(*r, e);
}

}  // namespace ksched::sim::validation
