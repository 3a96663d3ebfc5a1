#include "src/features/feature_gates.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ksched::features {

extern const char kFeatureGatesJson[];  // feature_gates.json, embedded by CMake.

namespace {

constexpr Version kMinimumEmulation{1, 31};  // Upstream's first release with emulation.

// Go's strings.TrimSpace, for ASCII.
std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Go's strings.Split: every piece, empty ones included.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep)) {
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  return out;
}

struct Table {
  std::string release;
  Version binary;
  std::map<std::string, std::vector<Spec>, std::less<>> gates;
  std::map<std::string, std::vector<std::string>, std::less<>> dependencies;
};

Stage StageOf(std::string_view s) {
  if (s == "ALPHA") return Stage::kAlpha;
  if (s == "BETA") return Stage::kBeta;
  if (s == "") return Stage::kGA;
  if (s == "DEPRECATED") return Stage::kDeprecated;
  return Stage::kPreAlpha;
}

const Table& TheTable() {
  static const Table* table = [] {
    auto* t = new Table;
    const nlohmann::json j = nlohmann::json::parse(kFeatureGatesJson);
    t->release = j.at("release").get<std::string>();
    t->binary = *ParseVersion(t->release);
    for (const auto& [name, specs] : j.at("gates").items()) {
      std::vector<Spec>& out = t->gates[name];
      for (const auto& s : specs) {
        Spec spec{.version = *ParseVersion(s.at("version").get<std::string>()),
                  .default_value = s.at("default").get<bool>(),
                  .lock_to_default = s.value("lockToDefault", false),
                  .stage = StageOf(s.at("preRelease").get<std::string>())};
        if (s.contains("minCompatibilityVersion")) {
          spec.min_compatibility =
              *ParseVersion(s.at("minCompatibilityVersion").get<std::string>());
        }
        out.push_back(spec);
      }
    }
    for (const auto& [name, deps] : j.at("dependencies").items()) {
      t->dependencies[name] = deps.get<std::vector<std::string>>();
    }
    return t;
  }();
  return *table;
}

Version Minus(Version v, int minors) { return {v.major, v.minor - minors}; }

// The min-compatibility version that goes with an emulated version: one minor before it, not
// below the floor (upstream's SetEmulationVersion).
Version MinCompatibilityFor(Version emulation) {
  return std::max(Minus(emulation, 1), FeatureGates::Floor());
}

// The spec of `specs` in force at the emulation and min-compatibility versions (upstream's
// featureSpecAtEmulationAndMinCompatVersion); none (or an unknown gate's): not introduced yet,
// PreAlpha.
const Spec& SpecAt(const std::vector<Spec>& specs, Version emulation, Version min_compat) {
  static const Spec kPreAlpha{.stage = Stage::kPreAlpha};
  for (auto it = specs.rbegin(); it != specs.rend(); ++it) {
    if (it->version > emulation) continue;
    if (it->min_compatibility && min_compat < *it->min_compatibility) continue;
    return *it;
  }
  return kPreAlpha;
}

// A line of --feature-gates' help.
std::string HelpLine(std::string_view name, const Spec& s) {
  return fmt::format("{}=true|false ({} - default={})", name, StageName(s.stage), s.default_value);
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(std::string_view s) {
  static const std::set<std::string_view> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static const std::set<std::string_view> kFalse = {"0", "f", "F", "FALSE", "false", "False"};
  if (kTrue.contains(s)) return true;
  if (kFalse.contains(s)) return false;
  return std::nullopt;
}

// utilerrors.NewAggregate's message: one error alone, several as "[a, b]", repeats once.
absl::Status Aggregate(const std::vector<std::string>& errors) {
  if (errors.empty()) return absl::OkStatus();
  std::vector<std::string> unique;
  for (const std::string& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return absl::InvalidArgumentError(unique[0]);
  return absl::InvalidArgumentError("[" + absl::StrJoin(unique, ", ") + "]");
}

// A version flag's values ("1.35", "kube=1.35"), as upstream's toVersionMap reads them: the
// kube component's version, if given.
absl::StatusOr<std::optional<Version>> KubeVersion(const std::vector<std::string>& flags) {
  std::map<std::string, Version> seen;
  std::optional<Version> out;
  for (const std::string& flag : flags) {
    for (std::string_view item : Split(flag, ',')) {
      std::string component = "kube";
      std::string_view value = item;
      if (size_t eq = item.find('='); eq != std::string_view::npos) {
        component = std::string(Trim(item.substr(0, eq)));
        value = Trim(item.substr(eq + 1));
      }
      int patch = 0;
      absl::StatusOr<Version> v = ParseVersion(value, &patch);
      if (!v.ok()) return v.status();
      if (patch != 0) {
        return absl::InvalidArgumentError(
            fmt::format("patch version not allowed, got: {}={}.{}", component, v->String(), patch));
      }
      if (auto it = seen.find(component); it != seen.end()) {
        return absl::InvalidArgumentError(fmt::format("duplicate version flag, {}={} and {}={}",
                                                      component, it->second.String(), component,
                                                      v->String()));
      }
      seen[component] = *v;
      if (component != "kube") {
        return absl::InvalidArgumentError(fmt::format("component not registered: {}", component));
      }
      out = *v;
    }
  }
  return out;
}

}  // namespace

std::string Warning::Message() const {
  return fmt::format("Warning: setting {} feature gate. It will be removed in a future release.",
                     ga ? "GA" : "deprecated");
}

std::string Version::String() const { return fmt::format("{}.{}", major, minor); }

absl::StatusOr<Version> ParseVersion(std::string_view s, int* patch) {
  const std::string original(s);
  s = Trim(s);
  if (s.starts_with('v')) s.remove_prefix(1);
  // The numeric components, dot-separated, from the start; anything after them is ignored, as
  // upstream's generic parser ignores it.
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) ||
                            (s[end] == '.' && end + 1 < s.size() &&
                             std::isdigit(static_cast<unsigned char>(s[end + 1])) && end > 0))) {
    ++end;
  }
  if (end == 0) {
    return absl::InvalidArgumentError(fmt::format("could not parse \"{}\" as version", original));
  }
  std::vector<std::string_view> parts = Split(s.substr(0, end), '.');
  if (parts.size() < 2) {
    return absl::InvalidArgumentError(fmt::format("illegal version string \"{}\"", original));
  }
  std::vector<int> numbers;
  for (std::string_view p : parts) {
    if (p.size() > 1 && p[0] == '0') {
      return absl::InvalidArgumentError(
          fmt::format("illegal zero-prefixed version component \"{}\" in \"{}\"", p, original));
    }
    if (p.size() > 9) {
      return absl::InvalidArgumentError(fmt::format("illegal version string \"{}\"", original));
    }
    numbers.push_back(std::stoi(std::string(p)));
  }
  if (patch != nullptr) *patch = numbers.size() > 2 ? numbers[2] : 0;
  return Version{numbers[0], numbers[1]};
}

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kPreAlpha:
      return "PRE-ALPHA";
    case Stage::kAlpha:
      return "ALPHA";
    case Stage::kBeta:
      return "BETA";
    case Stage::kGA:
      return "";
    case Stage::kDeprecated:
      return "DEPRECATED";
  }
  return "";
}

std::string_view FeatureGates::Release() { return TheTable().release; }
Version FeatureGates::BinaryVersion() { return TheTable().binary; }
Version FeatureGates::Floor() { return std::max(Minus(BinaryVersion(), 3), kMinimumEmulation); }

FeatureGates::FeatureGates()
    : emulation_(BinaryVersion()), min_compat_(MinCompatibilityFor(BinaryVersion())) {}

const Spec& FeatureGates::SpecOf(std::string_view gate) const {
  static const std::vector<Spec> kUnknown;
  const Table& t = TheTable();
  auto it = t.gates.find(gate);
  return SpecAt(it == t.gates.end() ? kUnknown : it->second, emulation_, min_compat_);
}

bool FeatureGates::Enabled(std::string_view gate) const {
  if (auto it = set_.find(gate); it != set_.end()) return it->second;
  return SpecOf(gate).default_value;
}

absl::StatusOr<FeatureGates> FeatureGates::FromFlags(const Flags& flags,
                                                     std::vector<Warning>* warnings) {
  const Table& t = TheTable();
  FeatureGates g;
  // The versions first: they decide every gate's spec.
  absl::StatusOr<std::optional<Version>> emulation = KubeVersion(flags.emulated_version);
  if (!emulation.ok()) return emulation.status();
  absl::StatusOr<std::optional<Version>> min_compat = KubeVersion(flags.min_compatibility_version);
  if (!min_compat.ok()) return min_compat.status();
  if (*emulation) {
    g.emulation_ = **emulation;
    g.min_compat_ = MinCompatibilityFor(g.emulation_);
  }
  if (*min_compat) g.min_compat_ = **min_compat;

  // --feature-gates: each occurrence's comma-separated items, "[component:]Name=value".
  std::map<std::string, std::vector<std::string>> by_component;
  for (const std::string& flag : flags.feature_gates) {
    for (std::string_view item : Split(flag, ',')) {
      if (item.empty()) continue;
      std::string component;
      std::string_view pair = Trim(item);
      if (size_t colon = item.find(':'); colon != std::string_view::npos) {
        component = std::string(Trim(item.substr(0, colon)));
        pair = Trim(item.substr(colon + 1));
      }
      by_component[component].emplace_back(pair);
    }
  }
  if (by_component.contains("") && by_component.contains("kube")) {
    return absl::InvalidArgumentError(
        "set kube feature gates with default empty prefix or kube: prefix consistently, do not "
        "mix use");
  }
  std::map<std::string, bool, std::less<>> values;
  for (const auto& [component, items] : by_component) {
    if (component != "" && component != "kube") {
      return absl::InvalidArgumentError(fmt::format("component not registered: {}", component));
    }
    for (const std::string& item : items) {
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      const std::string key(Trim(std::string_view(item).substr(0, eq)));
      if (eq == std::string::npos) {
        return absl::InvalidArgumentError(fmt::format("missing bool value for {}", key));
      }
      const std::string value(Trim(std::string_view(item).substr(eq + 1)));
      std::optional<bool> b = ParseBool(value);
      if (!b) {
        return absl::InvalidArgumentError(fmt::format(
            "invalid value of {}={}, err: strconv.ParseBool: parsing \"{}\": invalid syntax", key,
            value, value));
      }
      values[key] = *b;  // The last wins.
    }
  }
  std::vector<std::string> errors;
  std::optional<bool> all_alpha, all_beta;
  for (const auto& [name, value] : values) {
    if (!t.gates.contains(name)) {
      errors.push_back(fmt::format("unrecognized feature gate: {}", name));
      return Aggregate(errors);
    }
    const Spec& spec = g.SpecOf(name);
    if (spec.lock_to_default && spec.default_value != value) {
      errors.push_back(fmt::format("cannot set feature gate {} to {}, feature is locked to {}",
                                   name, value, spec.default_value));
      continue;
    }
    if (name == "AllAlpha" || name == "AllBeta") {
      (name == "AllAlpha" ? all_alpha : all_beta) = value;
      g.set_[name] = value;
      continue;
    }
    if (spec.stage == Stage::kPreAlpha) {
      errors.push_back(fmt::format(
          "cannot set feature gate {} to {}, feature is PreAlpha at emulated version {}, min "
          "compatibility version {}",
          name, value, g.emulation_.String(), g.min_compat_.String()));
      continue;
    }
    g.set_[name] = value;
    if (warnings != nullptr && (spec.stage == Stage::kDeprecated || spec.stage == Stage::kGA)) {
      warnings->push_back({.gate = name, .value = value, .ga = spec.stage == Stage::kGA});
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  // AllAlpha and AllBeta set every gate of their stage that is not set by name.
  for (const auto& [name, specs] : t.gates) {
    if (g.set_.contains(name)) continue;
    const Stage stage = SpecAt(specs, g.emulation_, g.min_compat_).stage;
    if (stage == Stage::kAlpha && all_alpha) g.set_[name] = *all_alpha;
    if (stage == Stage::kBeta && all_beta) g.set_[name] = *all_beta;
  }
  for (const auto& [name, deps] : t.dependencies) {
    if (!g.Enabled(name)) continue;
    std::vector<std::string> off;
    for (const std::string& d : deps) {
      if (!g.Enabled(d)) off.push_back(d);
    }
    if (!off.empty()) {
      errors.push_back(fmt::format("{} is enabled, but depends on features that are disabled: [{}]",
                                   name, absl::StrJoin(off, " ")));
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  // The versions' range (upstream's effectiveVersion.Validate).
  const Version floor = Floor();
  if (g.emulation_ > t.binary || g.emulation_ < floor) {
    errors.push_back(fmt::format("emulation version {} is not between [{}, {}.0]",
                                 g.emulation_.String(), floor.String(), t.binary.String()));
  }
  if (g.min_compat_ > g.emulation_ || g.min_compat_ < floor) {
    errors.push_back(fmt::format("minCompatibilityVersion version {} is not between [{}, {}]",
                                 g.min_compat_.String(), floor.String(), g.emulation_.String()));
  }
  if (!errors.empty()) return Aggregate(errors);
  return g;
}

absl::Status FeatureGates::CheckImplemented() const {
  // An emulated version is its gates' defaults (the scheduler reads nothing else of it): ksched
  // emulates it when each scheduler gate it does not honour keeps the binary's default there.
  const std::string release(Release());
  std::vector<std::string> errors;
  const FeatureGates defaults;
  for (const std::string& gate : SchedulerGates()) {
    const bool value = Enabled(gate);
    // GenericWorkload is done as 1.37 has it (PodGroups of scheduling.k8s.io/v1beta1); the
    // releases before served other versions of the API, and decided otherwise.
    const bool as_1_37_only = gate == "GenericWorkload" && value && emulation_ < Version{1, 37};
    if (!as_1_37_only &&
        (value == defaults.Enabled(gate) || Honoured(gate) || (!value && DecidedAsOff(gate)))) {
      continue;
    }
    const std::string setting = set_.contains(gate) || emulation_ == BinaryVersion()
                                    ? fmt::format("feature gate {}={}", gate, value)
                                    : fmt::format("--emulated-version={} sets feature gate {}={}",
                                                  emulation_.String(), gate, value);
    errors.push_back(fmt::format(
        "{}: ksched does not implement it yet, and decides as kube-scheduler {} does with {}={}",
        setting, release, gate, defaults.Enabled(gate)));
  }
  return Aggregate(errors);
}

std::vector<FeatureGates::Series> FeatureGates::MetricSeries() const {
  std::vector<Series> out;
  for (const auto& [name, specs] : TheTable().gates) {
    const Spec& spec = SpecAt(specs, emulation_, min_compat_);
    if (spec.stage == Stage::kPreAlpha) continue;
    out.push_back({name, std::string(StageName(spec.stage)), Enabled(name)});
  }
  return out;
}

std::vector<std::string> FeatureGates::KnownFeatures() {
  const Table& t = TheTable();
  const Version binary = t.binary;
  const Version min_compat = MinCompatibilityFor(binary);
  // GA, deprecated and not yet introduced gates are not listed.
  auto help = [](const std::string& name, const Spec& s) -> std::string {
    return s.stage == Stage::kAlpha || s.stage == Stage::kBeta ? HelpLine(name, s) : "";
  };
  std::vector<std::string> out;
  for (const auto& [name, specs] : t.gates) {
    std::string line;
    if (name == "AllAlpha" || name == "AllBeta") {
      line = HelpLine(name, specs[0]);
    } else {
      const Spec& now = SpecAt(specs, binary, min_compat);
      const Spec& later = SpecAt(specs, binary, binary);
      line = help(name, now);
      if (&later != &now && later.min_compatibility) {
        const std::string other = help(name, later);
        if (!other.empty()) {
          line +=
              fmt::format("{}{} if --min-compatibility-version>={}", line.empty() ? "" : ", or ",
                          other, later.min_compatibility->String());
        }
      }
    }
    if (!line.empty()) out.push_back("kube:" + line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool FeatureGates::Honoured(std::string_view gate) {
  // The scheduler gates ksched decides by at either value, as kube-scheduler does.
  static const std::set<std::string, std::less<>> kHonoured = {
      "DRAConsumableCapacity",
      "DRADeviceBindingConditions",
      "DRADeviceTaintRules",
      "DRADeviceTaints",
      "DRAExtendedResource",
      "DRAFractionalCapacityRange",
      "DRAPartitionableDevices",
      "DRAWorkloadResourceClaims",
      "GenericWorkload",
      "NodeDeclaredFeatures",
      "NominatedNodeNameForExpectation",
      "OpportunisticBatching",
      "PodGroupPreemptionPolicy",
      "StorageCapacityScoring",
      "TopologyAwareWorkloadScheduling",
      "VolumeLimitScaling",
  };
  return kHonoured.contains(gate);
}

bool FeatureGates::DecidedAsOff(std::string_view gate) {
  // What ksched does not implement yet of a gate that is on by default: it decides as
  // kube-scheduler does with the gate off, so off is honoured (docs/versions.md says what on
  // would change).
  static const std::set<std::string, std::less<>> kOff = {
      "InPlacePodLevelResourcesVerticalScaling",  // A pod's status resources are unread.
  };
  return kOff.contains(gate);
}

const std::vector<std::string>& FeatureGates::SchedulerGates() {
  // Every gate named in kube-scheduler v1.37.2's pkg/scheduler (non-test code): what the scheduler
  // decides by. FeatureGatesTest checks that the table knows each.
  static const std::vector<std::string> kGates = {
      "CompositePodGroup",
      "DRAAdminAccess",
      "DRAConsumableCapacity",
      "DRADerivedAttributes",
      "DRADeviceBindingConditions",
      "DRADeviceCompatibilityGroups",
      "DRADeviceTaintRules",
      "DRADeviceTaints",
      "DRAExtendedResource",
      "DRAFractionalCapacityRange",
      "DRAListTypeAttributes",
      "DRANodeAllocatableResources",
      "DRAOptionalNodeOperations",
      "DRAPartitionableDevices",
      "DRAPrioritizedList",
      "DRAResourceClaimDeviceStatus",
      "DRASchedulerFilterTimeout",
      "DRAWorkloadResourceClaims",
      "DynamicResourceAllocation",
      "GenericWorkload",
      "InPlacePodLevelResourcesVerticalScaling",
      "InPlacePodVerticalScaling",
      "InPlacePodVerticalScalingSchedulerPreemption",
      "InterPodAffinityHostnameFastPath",
      "MatchLabelKeysInPodTopologySpread",
      "NodeDeclaredFeatures",
      "NodeInclusionPolicyInPodTopologySpread",
      "NominatedNodeNameForExpectation",
      "OpportunisticBatching",
      "PodGroupPreemptionPolicy",
      "PodLevelResources",
      "SchedulerAsyncAPICalls",
      "SchedulerAsyncPreemption",
      "SchedulerPopFromBackoffQ",
      "SchedulerPreQueueingHints",
      "StorageCapacityScoring",
      "TaintTolerationComparisonOperators",
      "TopologyAwareWorkloadScheduling",
      "VolumeAttributesClass",
      "VolumeLimitScaling",
  };
  return kGates;
}

}  // namespace ksched::features
