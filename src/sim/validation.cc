#include "src/sim/validation.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "src/sim/validation_internal.h"

namespace ksched::sim {
namespace validation {
namespace {

bool AlphaNum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool LowerAlphaNum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], and empty when `empty_ok`.
bool IsNamePart(std::string_view s, bool empty_ok) {
  if (s.empty()) return empty_ok;
  if (!AlphaNum(s.front()) || !AlphaNum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return AlphaNum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63 || !LowerAlphaNum(s.front()) || !LowerAlphaNum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return LowerAlphaNum(c) || c == '-'; });
}

// Dot-separated DNS labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t start = 0;;) {
    size_t dot = s.find('.', start);
    if (!IsDnsLabel(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

void Errors::Unsupported(const std::string& path, std::string_view value,
                         std::initializer_list<std::string_view> supported) {
  std::string s;
  for (std::string_view v : supported) s += fmt::format("{}\"{}\"", s.empty() ? "" : ", ", v);
  list.push_back(
      fmt::format("{}: Unsupported value: \"{}\": supported values: {}", path, value, s));
}

void Errors::QualifiedName(const std::string& path, std::string_view key) {
  const size_t slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    name = key.substr(slash + 1);
    std::string_view prefix = key.substr(0, slash);
    if (name.find('/') != std::string_view::npos) return Invalid(path, key, kLabelKeyError);
    if (prefix.empty()) {
      Invalid(path, key, "prefix part must be non-empty");
    } else if (!IsDnsSubdomain(prefix)) {
      Invalid(path, key, fmt::format("prefix part {}", kSubdomainError));
    }
  }
  if (name.empty()) Invalid(path, key, "name part must be non-empty");
  if (name.size() > 63) Invalid(path, key, "name part must be no more than 63 characters");
  if (!IsNamePart(name, false)) Invalid(path, key, kNamePartError);
}

void Errors::LabelValue(const std::string& path, std::string_view value) {
  if (value.size() > 63) Invalid(path, value, "must be no more than 63 characters");
  if (!IsNamePart(value, true)) Invalid(path, value, kLabelValueError);
}

void Errors::Labels(const std::string& path, const api::StringMap& labels) {
  for (const auto& [key, value] : labels) {
    QualifiedName(path, key);
    LabelValue(path, value);
  }
}

void Errors::NonNegative(const std::string& path, const api::ResourceList& list) {
  for (const auto& [name, q] : list) {
    if (q.Sign() < 0) {
      Invalid(fmt::format("{}[{}]", path, name), q.String(), "must be greater than or equal to 0");
    }
  }
}

namespace {

void ValidateMeta(const api::ObjectMeta& m, bool namespaced, bool dns_label_name, Errors* e) {
  if (m.name.empty()) {
    e->Required("metadata.name", "name or generateName is required");
  } else if (dns_label_name ? !IsDnsLabel(m.name) : !IsDnsSubdomain(m.name)) {
    e->Invalid("metadata.name", m.name, dns_label_name ? kDnsLabelError : kSubdomainError);
  }
  if (namespaced && !m.namespace_.empty() && !IsDnsLabel(m.namespace_)) {
    e->Invalid("metadata.namespace", m.namespace_, kDnsLabelError);
  }
  e->Labels("metadata.labels", m.labels);
}

// The values the set operators need, as upstream checks them for label and node selectors; false
// for another operator, which the caller checks.
bool CheckSetOperator(const std::string& op, const std::vector<std::string>& values,
                      const std::string& at, Errors* e) {
  if (op == "In" || op == "NotIn") {
    if (values.empty()) {
      e->Required(at + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    }
    return true;
  }
  if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) {
      e->Forbidden(at + ".values",
                   "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
    return true;
  }
  return false;
}

}  // namespace

void ValidateLabelSelector(const api::LabelSelector& s, const std::string& path, Errors* e) {
  e->Labels(path + ".matchLabels", s.match_labels);
  for (size_t i = 0; i < s.match_expressions.size(); ++i) {
    const api::LabelSelectorRequirement& r = s.match_expressions[i];
    const std::string at = fmt::format("{}.matchExpressions[{}]", path, i);
    if (!CheckSetOperator(r.op, r.values, at, e)) {
      e->Invalid(at + ".operator", r.op, "not a valid selector operator");
    }
    e->QualifiedName(at + ".key", r.key);
  }
}

namespace {

bool IsInteger(std::string_view s) {
  int64_t v;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

void ValidateNodeSelectorRequirement(const api::NodeSelectorRequirement& r, const std::string& at,
                                     bool field, Errors* e) {
  if (!CheckSetOperator(r.op, r.values, at, e)) {
    if (r.op != "Gt" && r.op != "Lt") {
      e->Invalid(at + ".operator", r.op, "not a valid selector operator");
    } else if (r.values.size() != 1) {
      e->Required(at + ".values", "must be specified single value when `operator` is 'Lt' or 'Gt'");
    } else if (!IsInteger(r.values[0])) {
      e->Invalid(at + ".values[0]", r.values[0], "must be an integer");
    }
  }
  if (field) {
    if (r.key != "metadata.name") e->Invalid(at + ".key", r.key, "not a valid field selector key");
  } else {
    e->QualifiedName(at + ".key", r.key);
  }
}

void ValidateNodeSelectorTerm(const api::NodeSelectorTerm& t, const std::string& path, Errors* e) {
  for (size_t i = 0; i < t.match_expressions.size(); ++i) {
    ValidateNodeSelectorRequirement(t.match_expressions[i],
                                    fmt::format("{}.matchExpressions[{}]", path, i), false, e);
  }
  for (size_t i = 0; i < t.match_fields.size(); ++i) {
    ValidateNodeSelectorRequirement(t.match_fields[i], fmt::format("{}.matchFields[{}]", path, i),
                                    true, e);
  }
}

}  // namespace

void ValidateNodeSelector(const api::NodeSelector& s, const std::string& path, Errors* e) {
  if (s.node_selector_terms.empty())
    e->Required(path + ".nodeSelectorTerms", "must have at least one node selector term");
  for (size_t i = 0; i < s.node_selector_terms.size(); ++i) {
    ValidateNodeSelectorTerm(s.node_selector_terms[i],
                             fmt::format("{}.nodeSelectorTerms[{}]", path, i), e);
  }
}

namespace {

void ValidateWeight(int32_t weight, const std::string& path, Errors* e) {
  if (weight < 1 || weight > 100) e->InvalidNumber(path, weight, "must be in the range 1-100");
}

void ValidatePodAffinityTerm(const api::PodAffinityTerm& t, const std::string& path, Errors* e) {
  if (t.label_selector) ValidateLabelSelector(*t.label_selector, path + ".labelSelector", e);
  if (t.namespace_selector) {
    ValidateLabelSelector(*t.namespace_selector, path + ".namespaceSelector", e);
  }
  for (const std::string& ns : t.namespaces) {
    if (!IsDnsLabel(ns)) e->Invalid(path + ".namespace", ns, kDnsLabelError);
  }
  if (t.topology_key.empty()) {
    e->Required(path + ".topologyKey", "can not be empty");
  } else {
    e->QualifiedName(path + ".topologyKey", t.topology_key);
  }
}

void ValidatePodAffinity(const api::PodAffinity& a, const std::string& path, Errors* e) {
  const auto& required = a.required_during_scheduling_ignored_during_execution;
  for (size_t i = 0; i < required.size(); ++i) {
    ValidatePodAffinityTerm(
        required[i], fmt::format("{}.requiredDuringSchedulingIgnoredDuringExecution[{}]", path, i),
        e);
  }
  const auto& preferred = a.preferred_during_scheduling_ignored_during_execution;
  for (size_t i = 0; i < preferred.size(); ++i) {
    const std::string at =
        fmt::format("{}.preferredDuringSchedulingIgnoredDuringExecution[{}]", path, i);
    ValidateWeight(preferred[i].weight, at + ".weight", e);
    ValidatePodAffinityTerm(preferred[i].pod_affinity_term, at + ".podAffinityTerm", e);
  }
}

void ValidateAffinity(const api::Affinity& a, Errors* e) {
  if (a.node_affinity) {
    const std::string path = "spec.affinity.nodeAffinity";
    const api::NodeAffinity& n = *a.node_affinity;
    if (n.required_during_scheduling_ignored_during_execution) {
      ValidateNodeSelector(*n.required_during_scheduling_ignored_during_execution,
                           path + ".requiredDuringSchedulingIgnoredDuringExecution", e);
    }
    const auto& preferred = n.preferred_during_scheduling_ignored_during_execution;
    for (size_t i = 0; i < preferred.size(); ++i) {
      const std::string at =
          fmt::format("{}.preferredDuringSchedulingIgnoredDuringExecution[{}]", path, i);
      ValidateWeight(preferred[i].weight, at + ".weight", e);
      ValidateNodeSelectorTerm(preferred[i].preference, at + ".preference", e);
    }
  }
  if (a.pod_affinity) ValidatePodAffinity(*a.pod_affinity, "spec.affinity.podAffinity", e);
  if (a.pod_anti_affinity) {
    ValidatePodAffinity(*a.pod_anti_affinity, "spec.affinity.podAntiAffinity", e);
  }
}

bool IsTaintEffect(std::string_view effect) {
  return effect == api::kTaintEffectNoSchedule || effect == api::kTaintEffectPreferNoSchedule ||
         effect == api::kTaintEffectNoExecute;
}

void ValidateTolerations(const std::vector<api::Toleration>& tolerations, Errors* e) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const api::Toleration& t = tolerations[i];
    const std::string at = fmt::format("spec.tolerations[{}]", i);
    if (!t.key.empty()) e->QualifiedName(at + ".key", t.key);
    if (t.key.empty() && t.op != "Exists") {
      e->Invalid(at + ".operator", t.op,
                 "operator must be Exists when `key` is empty, which means \"match all values "
                 "and all keys\"");
    }
    if (t.toleration_seconds && t.effect != api::kTaintEffectNoExecute) {
      e->Invalid(at + ".effect", t.effect,
                 "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    if (t.op.empty() || t.op == "Equal") {
      // Upstream names the operator for a bad value.
      if (!IsNamePart(t.value, true)) e->Invalid(at + ".operator", t.value, kLabelValueError);
    } else if (t.op == "Exists") {
      if (!t.value.empty()) {
        e->Invalid(at + ".operator", t.value, "value must be empty when `operator` is 'Exists'");
      }
    } else {
      e->Unsupported(at + ".operator", t.op, {"Equal", "Exists"});
    }
    if (!t.effect.empty() && !IsTaintEffect(t.effect)) {
      e->Unsupported(at + ".effect", t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    }
  }
}

void ValidateTopologySpread(const std::vector<api::TopologySpreadConstraint>& constraints,
                            Errors* e) {
  for (size_t i = 0; i < constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = constraints[i];
    const std::string at = fmt::format("spec.topologySpreadConstraints[{}]", i);
    if (c.max_skew <= 0) e->InvalidNumber(at + ".maxSkew", c.max_skew, "must be greater than zero");
    if (c.topology_key.empty()) {
      e->Required(at + ".topologyKey", "can not be empty");
    } else {
      e->QualifiedName(at + ".topologyKey", c.topology_key);
    }
    if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway") {
      e->Unsupported(at + ".whenUnsatisfiable", c.when_unsatisfiable,
                     {"DoNotSchedule", "ScheduleAnyway"});
    }
    if (c.min_domains) {
      if (*c.min_domains <= 0) {
        e->InvalidNumber(at + ".minDomains", *c.min_domains, "must be greater than zero");
      } else if (c.when_unsatisfiable != "DoNotSchedule") {
        e->InvalidNumber(at + ".minDomains", *c.min_domains,
                         fmt::format("can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                                     "not {}",
                                     c.when_unsatisfiable));
      }
    }
    for (auto [policy, name] : {std::pair{&c.node_affinity_policy, "nodeAffinityPolicy"},
                                std::pair{&c.node_taints_policy, "nodeTaintsPolicy"}}) {
      if (*policy && **policy != "Honor" && **policy != "Ignore") {
        e->Unsupported(fmt::format("{}.{}", at, name), **policy, {"Honor", "Ignore"});
      }
    }
    if (c.label_selector) ValidateLabelSelector(*c.label_selector, at + ".labelSelector", e);
  }
}

void ValidateResources(const api::ResourceRequirements& r, const std::string& path, Errors* e) {
  e->NonNegative(path + ".limits", r.limits);
  e->NonNegative(path + ".requests", r.requests);
  for (const auto& [name, request] : r.requests) {
    auto limit = r.limits.find(name);
    if (limit != r.limits.end() && request.NanoValue() > limit->second.NanoValue()) {
      e->Invalid(path + ".requests", request.String(),
                 fmt::format("must be less than or equal to {} limit of {}", name,
                             limit->second.String()));
    }
  }
}

// A name that must be given, unique among `seen`, and a DNS label, as upstream checks a
// container's and a pod's claim's.
void UniqueLabelName(const std::string& path, const std::string& name,
                     std::set<std::string_view>* seen, Errors* e) {
  if (name.empty()) {
    e->Required(path);
  } else if (!seen->insert(name).second) {
    e->Duplicate(path, name);
  } else if (!IsDnsLabel(name)) {
    e->Invalid(path, name, kDnsLabelError);
  }
}

void ValidateContainers(const std::vector<api::Container>& containers, const char* field,
                        std::set<std::string_view>* names, Errors* e) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const api::Container& c = containers[i];
    const std::string at = fmt::format("spec.{}[{}]", field, i);
    UniqueLabelName(at + ".name", c.name, names, e);
    if (c.image.empty()) e->Required(at + ".image");
    ValidateResources(c.resources, at + ".resources", e);
  }
}

void ValidateVolumes(const std::vector<api::Volume>& volumes, Errors* e) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < volumes.size(); ++i) {
    const api::Volume& v = volumes[i];
    const std::string at = fmt::format("spec.volumes[{}]", i);
    if (v.source == "persistentVolumeClaim" && v.claim_name.empty()) {
      e->Required(at + ".persistentVolumeClaim.claimName");
    }
    if (v.name.empty()) {
      e->Required(at + ".name");
    } else if (!IsDnsLabel(v.name)) {
      e->Invalid(at + ".name", v.name, kDnsLabelError);
    } else if (!names.insert(v.name).second) {
      e->Duplicate(at + ".name", v.name);
    }
  }
}

// Go's %v of a JSON-less struct, as field.Invalid prints a PodResourceClaim.
std::string GoValue(const api::PodResourceClaim& c) {
  auto quoted = [](const std::optional<std::string>& s) {
    return s ? fmt::format("\"{}\"", *s) : std::string("null");
  };
  return fmt::format(R"({{"Name":"{}","ResourceClaimName":{},"ResourceClaimTemplateName":{}}})",
                     c.name, quoted(c.resource_claim_name), quoted(c.resource_claim_template_name));
}

void ValidatePodResourceClaims(const std::vector<api::PodResourceClaim>& claims, Errors* e) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < claims.size(); ++i) {
    const api::PodResourceClaim& c = claims[i];
    const std::string at = fmt::format("spec.resourceClaims[{}]", i);
    UniqueLabelName(at + ".name", c.name, &names, e);
    if (c.resource_claim_name && c.resource_claim_template_name) {
      e->InvalidValue(at, GoValue(c),
                      "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                      "specified");
    }
    if (!c.resource_claim_name && !c.resource_claim_template_name) {
      e->InvalidValue(at, GoValue(c),
                      "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    }
    for (auto [name, field] :
         {std::pair{&c.resource_claim_name, "resourceClaimName"},
          std::pair{&c.resource_claim_template_name, "resourceClaimTemplateName"}}) {
      if (*name && !IsDnsSubdomain(**name)) {
        e->Invalid(fmt::format("{}.{}", at, field), **name, kSubdomainError);
      }
    }
  }
}

void ValidatePod(const api::Pod& pod, Errors* e) {
  const api::PodSpec& s = pod.spec;
  ValidateVolumes(s.volumes, e);  // In upstream's order.
  ValidatePodResourceClaims(s.resource_claims, e);
  if (s.containers.empty()) e->Required("spec.containers");
  std::set<std::string_view> names;
  ValidateContainers(s.containers, "containers", &names, e);
  ValidateContainers(s.init_containers, "initContainers", &names, e);
  if (s.resources) ValidateResources(*s.resources, "spec.resources", e);
  e->NonNegative("spec.overhead.limits", s.overhead);  // Upstream's path, as it writes it.
  e->Labels("spec.nodeSelector", s.node_selector);
  if (s.affinity) ValidateAffinity(*s.affinity, e);
  ValidateTolerations(s.tolerations, e);
  ValidateTopologySpread(s.topology_spread_constraints, e);
  if (!s.node_name.empty() && !IsDnsSubdomain(s.node_name)) {
    e->Invalid("spec.nodeName", s.node_name, kSubdomainError);
  }
}

void ValidateNode(const api::Node& node, Errors* e) {
  for (size_t i = 0; i < node.spec.taints.size(); ++i) {
    const api::Taint& t = node.spec.taints[i];
    const std::string at = fmt::format("metadata.taints[{}]", i);  // Upstream's path.
    e->QualifiedName(at + ".key", t.key);
    if (!t.value.empty()) e->LabelValue(at + ".value", t.value);
    if (t.effect.empty()) {
      e->Required(at + ".effect");
    } else if (!IsTaintEffect(t.effect)) {
      e->Unsupported(at + ".effect", t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    }
  }
  for (auto [list, path] : {std::pair{&node.status.capacity, "status.capacity"},
                            std::pair{&node.status.allocatable, "status.allocatable"}}) {
    for (const auto& [name, q] : *list) {
      if (q.Sign() < 0) {
        e->Invalid(fmt::format("{}.{}", path, name), q.String(),
                   "must be greater than or equal to 0");
      }
    }
  }
}

void ValidateAccessModes(const std::vector<std::string>& modes, Errors* e) {
  if (modes.empty()) e->Required("spec.accessModes", "at least 1 access mode is required");
  for (const std::string& m : modes) {
    if (m != "ReadOnlyMany" && m != "ReadWriteMany" && m != "ReadWriteOnce" &&
        m != "ReadWriteOncePod") {
      e->Unsupported("spec.accessModes", m,
                     {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"});
    }
  }
}

// A size that must be given and above zero: a claim's request, a volume's capacity.
void PositiveSize(const std::optional<api::Quantity>& size, const std::string& missing,
                  const std::string& path, Errors* e) {
  if (!size) {
    e->Required(missing);
  } else if (size->Sign() <= 0) {
    e->Invalid(path, size->String(), "must be greater than zero");
  }
}

// What a claim and a volume share: the class they name, and Filesystem or Block.
void ValidateClassAndMode(const std::string& class_name, const std::optional<std::string>& mode,
                          Errors* e) {
  if (!class_name.empty() && !IsDnsSubdomain(class_name)) {
    e->Invalid("spec.storageClassName", class_name, kSubdomainError);
  }
  if (mode && *mode != "Block" && *mode != "Filesystem") {
    e->Unsupported("spec.volumeMode", *mode, {"Block", "Filesystem"});
  }
}

void ValidateClaim(const api::PersistentVolumeClaim& c, Errors* e) {
  ValidateAccessModes(c.access_modes, e);
  PositiveSize(c.storage_request, "spec.resources[storage]", "spec.resources[storage]", e);
  if (c.selector) ValidateLabelSelector(*c.selector, "spec.selector", e);
  ValidateClassAndMode(c.storage_class_name.value_or(""), c.volume_mode, e);
}

void ValidateVolume(const api::PersistentVolume& v, Errors* e) {
  ValidateAccessModes(v.access_modes, e);
  if (v.source.kind.empty()) e->Required("spec", "must specify a volume type");
  PositiveSize(v.capacity, "spec.capacity", "spec.capacity[storage]", e);
  if (v.node_affinity) ValidateNodeSelector(*v.node_affinity, "spec.nodeAffinity.required", e);
  ValidateClassAndMode(v.storage_class_name, v.volume_mode, e);
}

void ValidateStorageClass(const api::StorageClass& c, Errors* e) {
  if (c.provisioner.empty()) {
    e->Required("provisioner");
  } else {
    // Upstream checks it in lower case.
    e->QualifiedName("provisioner", absl::AsciiStrToLower(c.provisioner));
  }
}

}  // namespace
}  // namespace validation

namespace validation {

// The API server's declarative checks of a PodGroup (scheduling.k8s.io/v1beta1), and the fields
// of the gates ksched cannot turn on.
// A PodGroup's spec.resourceClaims (DRAWorkloadResourceClaims), as kube-apiserver v1.37.2's
// declarative validation checks a list: its length (then no item is checked), the duplicates by
// name, then each item.
void ValidatePodGroupClaims(const std::vector<api::PodResourceClaim>& claims, Errors* e) {
  if (claims.size() > 4) return e->TooMany("spec.resourceClaims", claims.size(), 4);
  std::set<std::string_view> names;
  for (size_t i = 0; i < claims.size(); ++i) {
    const api::PodResourceClaim& c = claims[i];
    if (names.insert(c.name).second) continue;
    nlohmann::ordered_json item = {{"name", c.name}};
    if (c.resource_claim_name) item["resourceClaimName"] = *c.resource_claim_name;
    if (c.resource_claim_template_name) {
      item["resourceClaimTemplateName"] = *c.resource_claim_template_name;
    }
    e->DuplicateValue(fmt::format("spec.resourceClaims[{}]", i), item.dump());
  }
  for (size_t i = 0; i < claims.size(); ++i) {
    const api::PodResourceClaim& c = claims[i];
    const std::string at = fmt::format("spec.resourceClaims[{}]", i);
    if (c.name.empty()) {
      e->Required(at + ".name");
    } else if (!IsDnsLabel(c.name)) {
      e->Invalid(at + ".name", c.name, kDnsLabelError);
    }
    if (!c.resource_claim_name && !c.resource_claim_template_name) {
      e->Invalid(at, "", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    } else if (c.resource_claim_name && c.resource_claim_template_name) {
      e->Invalid(at, "{resourceClaimName, resourceClaimTemplateName}",
                 "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`");
    }
    for (auto [name, field] :
         {std::pair{&c.resource_claim_name, "resourceClaimName"},
          std::pair{&c.resource_claim_template_name, "resourceClaimTemplateName"}}) {
      if (*name && !IsDnsSubdomain(**name)) {
        e->Invalid(fmt::format("{}.{}", at, field), **name, kSubdomainError);
      }
    }
  }
}

void ValidatePodGroup(const api::PodGroup& group, Errors* e) {
  const bool gang = group.gang_min_count.has_value();
  if (!gang && !group.basic) {
    e->Invalid("spec.schedulingPolicy", "", "must specify one of: `basic`, `gang`");
  } else if (gang && group.basic) {
    e->Invalid("spec.schedulingPolicy", "{basic, gang}",
               "must specify exactly one of: `basic`, `gang`");
  }
  // minCount is required (+k8s:required): 0, as when it is left out, is missing.
  if (gang && *group.gang_min_count == 0) {
    e->Required("spec.schedulingPolicy.gang.minCount");
  } else if (gang && *group.gang_min_count < 1) {
    e->InvalidNumber("spec.schedulingPolicy.gang.minCount", *group.gang_min_count,
                     "must be greater than or equal to 1");
  }
  // The checks of spec.schedulingConstraints with its gate on; with it off, the API server drops
  // the field (simulate says so, DropGatedPodGroupFields).
  if (group.scheduling_constraints) {
    // Too many items, and the items go unchecked (kube-apiserver v1.37.2).
    const std::vector<std::string>& keys = group.scheduling_constraints->topology_keys;
    if (keys.size() > 1) e->TooMany("spec.schedulingConstraints.topology", keys.size(), 1);
    for (size_t i = 0; i < keys.size() && keys.size() <= 1; ++i) {
      const std::string path = fmt::format("spec.schedulingConstraints.topology[{}].key", i);
      if (keys[i].empty()) {
        e->Required(path);
      } else {
        e->QualifiedName(path, keys[i]);
      }
    }
  }
  ValidatePodGroupClaims(group.resource_claims, e);
  // spec.preemptionPolicy is the priority admission plugin's to refuse, which runs first
  // (simulate's ApplyPodGroupGates).
  static constexpr std::pair<std::string_view, std::string_view> kGates[] = {
      {"spec.parentCompositePodGroupName", "CompositePodGroup"}};
  for (const std::string& path : group.gated_fields) {
    for (const auto& [field, gate] : kGates) {
      if (path != field) continue;
      e->Forbidden(path, fmt::format("needs the {} feature gate, which ksched does not implement "
                                     "yet",
                                     gate));
    }
  }
}

}  // namespace validation

std::vector<std::string> ValidateObject(const api::Object& object) {
  using namespace validation;  // NOLINT(google-build-using-namespace): this file's own.
  Errors e;
  const bool label_name = std::holds_alternative<api::Namespace>(object) ||
                          std::holds_alternative<api::Service>(object);
  ValidateMeta(api::MetaOf(object), api::IsNamespaced(object), label_name, &e);
  if (const auto* pod = std::get_if<api::Pod>(&object)) ValidatePod(*pod, &e);
  if (const auto* node = std::get_if<api::Node>(&object)) ValidateNode(*node, &e);
  if (const auto* pc = std::get_if<api::PriorityClass>(&object)) {
    if (pc->value > 1000000000 && !pc->metadata.name.starts_with("system-")) {
      e.Forbidden("value", "maximum allowed value of a user defined priority is 1000000000");
    }
  }
  if (const auto* claim = std::get_if<api::PersistentVolumeClaim>(&object)) {
    ValidateClaim(*claim, &e);
  }
  if (const auto* pv = std::get_if<api::PersistentVolume>(&object)) ValidateVolume(*pv, &e);
  if (const auto* sc = std::get_if<api::StorageClass>(&object)) ValidateStorageClass(*sc, &e);
  ValidateDraObject(object, &e);
  if (const auto* group = std::get_if<api::PodGroup>(&object)) ValidatePodGroup(*group, &e);
  const std::optional<api::LabelSelector>* selector = nullptr;
  if (const auto* rs = std::get_if<api::ReplicaSet>(&object)) selector = &rs->selector;
  if (const auto* ss = std::get_if<api::StatefulSet>(&object)) selector = &ss->selector;
  if (const auto* pdb = std::get_if<api::PodDisruptionBudget>(&object)) selector = &pdb->selector;
  if (selector && *selector) ValidateLabelSelector(**selector, "spec.selector", &e);
  return std::move(e.list);
}

std::string InvalidObjectMessage(const api::Object& object,
                                 const std::vector<std::string>& errors) {
  std::string out =
      fmt::format("{} \"{}\" is invalid: ", api::KindOf(object), api::MetaOf(object).name);
  if (errors.size() == 1) return out + errors[0];
  for (const std::string& err : errors) out += "\n* " + err;
  return out;
}

}  // namespace ksched::sim
