#include "src/sim/manifests.h"

#include <map>
#include <optional>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/api/yaml.h"
#include "src/base/file.h"

namespace ksched::sim {
namespace {

// "document 2 (Pod default/web)" style prefix for an error inside one document.
std::string DocumentName(int index, std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  std::string_view kind, name, ns;
  if (!parser.parse(json.data(), json.size()).get(e)) {
    if (e["kind"].get(kind)) kind = {};
    if (e["metadata"]["name"].get(name)) name = {};
    if (e["metadata"]["namespace"].get(ns)) ns = {};
  }
  std::string what = fmt::format("document {}", index + 1);
  if (name.empty()) return what;
  return fmt::format("{} ({} {}{})", what, kind, ns.empty() ? "" : fmt::format("{}/", ns), name);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ManifestDocuments(std::string_view text,
                                                           const std::string& source) {
  if (api::LooksLikeJson(text)) return std::vector<std::string>{std::string(text)};
  absl::StatusOr<std::vector<std::string>> yaml = api::YamlToJson(text);
  if (!yaml.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", source, AsStd(yaml.status().message())));
  }
  return yaml;
}

absl::StatusOr<std::vector<api::Object>> ParseManifest(std::string_view text,
                                                       const std::string& source) {
  absl::StatusOr<std::vector<std::string>> parsed = ManifestDocuments(text, source);
  if (!parsed.ok()) return parsed.status();
  const std::vector<std::string>& docs = *parsed;
  std::vector<api::Object> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    absl::StatusOr<std::vector<api::Object>> objects = api::DecodeObjects(docs[i]);
    if (!objects.ok()) {
      std::string where =
          docs.size() > 1 || !api::LooksLikeJson(text)
              ? fmt::format("{}: {}", source, DocumentName(static_cast<int>(i), docs[i]))
              : source;
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", where, AsStd(objects.status().message())));
    }
    for (api::Object& o : *objects) out.push_back(std::move(o));
  }
  return out;
}

absl::StatusOr<std::string> ReadManifest(const std::string& path) { return ReadFile(path); }

absl::Status AdmitPods(std::vector<api::Object>& objects, const std::string& source) {
  for (api::Object& o : objects) {
    if (auto* pod = std::get_if<api::Pod>(&o)) {
      MergeMatchLabelKeys(pod);
      if (absl::Status st = AdmitPod(*pod); !st.ok()) {
        return absl::InvalidArgumentError(fmt::format("{}: {}", source, AsStd(st.message())));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<api::Object>> LoadManifests(const std::vector<std::string>& paths) {
  std::vector<api::Object> all;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadManifest(path);
    if (!text.ok()) return text.status();
    absl::StatusOr<std::vector<api::Object>> objects = ParseManifest(*text, path);
    if (!objects.ok()) return objects.status();
    if (absl::Status st = AdmitPods(*objects, path); !st.ok()) return st;
    for (api::Object& o : *objects) all.push_back(std::move(o));
  }
  if (absl::Status st = AdmitPriorities(&all); !st.ok()) return st;
  return all;
}

namespace {

// upstream's applyLabelKeysToLabelSelector.
void AddLabelRequirements(const std::vector<std::string>& keys, const char* op,
                          const api::StringMap& labels, std::optional<api::LabelSelector>* sel) {
  if (!sel->has_value()) return;
  for (const std::string& key : keys) {
    auto it = labels.find(key);
    if (it != labels.end()) (*sel)->match_expressions.push_back({key, op, {it->second}});
  }
}

void MergeIntoTerm(const api::StringMap& labels, api::PodAffinityTerm* t) {
  AddLabelRequirements(t->match_label_keys, "In", labels, &t->label_selector);
  AddLabelRequirements(t->mismatch_label_keys, "NotIn", labels, &t->label_selector);
}

}  // namespace

void MergeMatchLabelKeys(api::Pod* pod) {
  const api::StringMap& labels = pod->metadata.labels;
  if (pod->spec.affinity) {
    for (auto* a : {&pod->spec.affinity->pod_affinity, &pod->spec.affinity->pod_anti_affinity}) {
      if (!a->has_value()) continue;
      for (auto& w : (*a)->preferred_during_scheduling_ignored_during_execution) {
        MergeIntoTerm(labels, &w.pod_affinity_term);
      }
      for (auto& t : (*a)->required_during_scheduling_ignored_during_execution) {
        MergeIntoTerm(labels, &t);
      }
    }
  }
  for (api::TopologySpreadConstraint& c : pod->spec.topology_spread_constraints) {
    AddLabelRequirements(c.match_label_keys, "In", labels, &c.label_selector);
  }
}

bool NeedsEqualLimit(std::string_view resource) {
  const bool native = resource.find('/') == std::string_view::npos ||
                      resource.find("kubernetes.io/") != std::string_view::npos;
  return !native || resource.starts_with("hugepages-");
}

absl::Status AdmitPod(const api::Pod& pod) {
  for (auto [list, field] : {std::pair{&pod.spec.init_containers, "initContainers"},
                             std::pair{&pod.spec.containers, "containers"}}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const api::ResourceRequirements& r = (*list)[i].resources;
      const std::string path = fmt::format("spec.{}[{}].resources", field, i);
      for (const auto& [name, request] : r.requests) {
        if (!NeedsEqualLimit(name)) continue;
        auto limit = r.limits.find(name);
        if (limit == r.limits.end()) {
          return absl::InvalidArgumentError(fmt::format(
              "Pod \"{}\" is invalid: {}.limits: Required value: Limit must be set for non "
              "overcommitable resources",
              pod.metadata.name, path));
        }
        if (!(limit->second == request)) {
          return absl::InvalidArgumentError(fmt::format(
              "Pod \"{}\" is invalid: {}.requests: Invalid value: \"{}\": must be equal to {} "
              "limit of {}",
              pod.metadata.name, path, request.String(), name, limit->second.String()));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status AdmitPriorities(std::vector<api::Object>* objects) {
  std::map<std::string, api::PriorityClass, std::less<>> classes;
  for (const api::Object& o : *objects) {
    if (const auto* pc = std::get_if<api::PriorityClass>(&o)) classes[pc->metadata.name] = *pc;
  }
  for (auto [name, value] : {std::pair{"system-node-critical", 2000001000},
                             std::pair{"system-cluster-critical", 2000000000}}) {
    if (classes.contains(name)) continue;
    classes[name] = {.metadata = {.name = name}, .value = value};
    objects->push_back(classes[name]);
  }
  const api::PriorityClass* global_default = nullptr;
  for (const auto& [name, pc] : classes) {
    if (pc.global_default && (global_default == nullptr || pc.value < global_default->value)) {
      global_default = &pc;
    }
  }
  for (api::Object& o : *objects) {
    auto* pod = std::get_if<api::Pod>(&o);
    if (pod == nullptr || pod->spec.priority.has_value()) continue;
    const api::PriorityClass* pc = global_default;
    if (!pod->spec.priority_class_name.empty()) {
      auto it = classes.find(pod->spec.priority_class_name);
      if (it == classes.end()) {
        return absl::InvalidArgumentError(
            fmt::format("pods \"{}\" is forbidden: no PriorityClass with name {} was found",
                        pod->metadata.name, pod->spec.priority_class_name));
      }
      pc = &it->second;
    }
    pod->spec.priority = pc ? pc->value : 0;
    if (pc != nullptr) pod->spec.priority_class_name = pc->metadata.name;
    if (!pod->spec.preemption_policy) {
      pod->spec.preemption_policy =
          pc && pc->preemption_policy ? *pc->preemption_policy : "PreemptLowerPriority";
    }
  }
  return absl::OkStatus();
}

}  // namespace ksched::sim
