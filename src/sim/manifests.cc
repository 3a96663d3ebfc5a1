#include "src/sim/manifests.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "ksched/status_macros.h"
#include "ksched/strings.h"
#include "nlohmann/json.hpp"
#include "src/api/api_fields.h"
#include "src/api/kinds.h"
#include "src/api/yaml.h"
#include "src/base/file.h"
#include "src/sim/validation.h"

namespace ksched::sim {
namespace {

// "document 2 (Pod default/web)": where an error inside one document is.
std::string DocumentName(int index, simdjson::dom::element e) {
  std::string what = fmt::format("document {}", index + 1);
  std::string_view name;
  if (e["metadata"]["name"].get(name) || name.empty()) return what;
  return fmt::format("{} ({})", what, api::DescribeObject(e));
}

// Whether a document is a list of objects: `kind: List`, or PodList and the like.
bool IsList(simdjson::dom::element doc, std::string_view kind) {
  simdjson::dom::array items;
  return kind.ends_with("List") && !doc["items"].get(items);
}

// Strict decoding's error for the unknown fields `found` (OK when there are none); with kWarn,
// OK, and each is added to `unknown` for a warning.
absl::Status UnknownFieldsError(const std::vector<std::string>& found, FieldValidation fields,
                                std::vector<std::string>* unknown) {
  if (found.empty()) return absl::OkStatus();
  std::string message = "strict decoding error: ";
  for (size_t i = 0; i < found.size(); ++i) {
    message += fmt::format("{}unknown field \"{}\"", i ? ", " : "", found[i]);
    unknown->push_back(fmt::format("unknown field \"{}\"", found[i]));
  }
  if (fields == FieldValidation::kWarn) return absl::OkStatus();
  unknown->clear();
  return absl::InvalidArgumentError(message);
}

// What kubectl and the API server check of one object before decoding it: its kind and apiVersion,
// and its fields (as `fields` says). `kind` and `version` are the list's for the items of a typed
// list, which may leave theirs out. Unknown fields go to `unknown` under kWarn.
absl::Status CheckTypeAndFields(simdjson::dom::element object, std::string_view kind,
                                std::string_view version, FieldValidation fields,
                                std::vector<std::string>* unknown) {
  std::string_view own;
  if (!object["kind"].get(own)) kind = own;
  if (!object["apiVersion"].get(own)) version = own;
  if (kind.empty()) return absl::InvalidArgumentError("error validating data: kind not set");
  if (version.empty())
    return absl::InvalidArgumentError("error validating data: apiVersion not set");
  if (kind == "Deployment") {
    return absl::InvalidArgumentError(
        "kind: unknown kind \"Deployment\": give it with --add FILE, which adds its replicas' "
        "pods");
  }
  if (kind == "KubeSchedulerConfiguration") {
    return absl::InvalidArgumentError(
        "kind: unknown kind \"KubeSchedulerConfiguration\": give it with --config FILE");
  }
  const std::string_view served = api::ServedApiVersion(kind);
  if (served.empty()) return absl::OkStatus();  // The decoder names an unknown kind.
  if (version != served) {
    return absl::InvalidArgumentError(
        fmt::format("no matches for kind \"{}\" in version \"{}\"", kind, version));
  }
  if (fields == FieldValidation::kIgnore) return absl::OkStatus();
  return UnknownFieldsError(api::UnknownFields(object, kind), fields, unknown);
}

// The name the API server makes from metadata.generateName: it and five characters of its
// alphabet, here derived from `seed` (the object's place), so that a run is repeatable.
std::string GeneratedName(std::string_view prefix, std::string_view seed) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 14695981039346656037ull;  // FNV-1a.
  for (char c : seed) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::string name(prefix);
  for (int i = 0; i < 5; ++i, h /= 27) name += kAlphabet[h % 27];
  return name;
}

// The document with a name for each object that has only metadata.generateName.
std::string NameGenerated(const std::string& doc, const std::string& seed) {
  if (doc.find("generateName") == std::string::npos) return doc;
  nlohmann::json j = nlohmann::json::parse(doc, nullptr, false);
  if (!j.is_object()) return doc;
  auto name = [&](nlohmann::json& o, const std::string& place) {
    if (!o.is_object() || !o.contains("metadata") || !o["metadata"].is_object()) return;
    nlohmann::json& m = o["metadata"];
    if (m.contains("name") || !m.contains("generateName") || !m["generateName"].is_string()) return;
    m["name"] = GeneratedName(m["generateName"].get<std::string>(), place);
  };
  name(j, seed);
  if (j.contains("items") && j["items"].is_array()) {
    for (size_t i = 0; i < j["items"].size(); ++i) {
      name(j["items"][i], fmt::format("{}/{}", seed, i));
    }
  }
  return j.dump();
}

// An object of a document, with its place in it: "items[2] (Pod default/web)" in a list, "" for
// the document itself.
using Placed = std::pair<std::string, simdjson::dom::element>;

std::vector<Placed> ObjectsOf(simdjson::dom::element doc, std::string_view kind,
                              std::string_view item_kind) {
  if (!IsList(doc, kind)) return {{"", doc}};
  std::vector<Placed> out;
  for (simdjson::dom::element item : doc["items"].get_array()) {
    out.emplace_back(
        fmt::format("items[{}] ({})", out.size(), api::DescribeObject(item, item_kind)), item);
  }
  return out;
}

// The objects of a manifest text, and where each is: "pods.yaml: document 2 (Pod default/web)".
struct Parsed {
  std::vector<api::Object> objects;
  std::vector<std::string> where;
  std::vector<CustomManifestObject> custom;  // With the custom kinds Parse was given.
  std::vector<std::string> custom_where;
};

// The custom resource of this kind and apiVersion among `kinds`, or nullptr.
const CustomResource* CustomKindOf(const std::vector<CustomResource>& kinds, std::string_view kind,
                                   std::string_view version) {
  for (const CustomResource& r : kinds) {
    if (!r.kind.empty() && r.kind == kind && r.ApiVersion() == version) return &r;
  }
  return nullptr;
}

// An object of a custom resource, as the API server creates it: a namespaced one in "default"
// when it names none, its creation time the simulation's start, checked by the resource's schema
// checks.
absl::StatusOr<CustomManifestObject> DecodeCustom(simdjson::dom::element e, const CustomResource& r,
                                                  FieldValidation fields,
                                                  std::vector<std::string>* unknown) {
  auto obj = std::make_shared<CustomObject>();
  KSCHED_RETURN_IF_ERROR(api::DecodeCustomObject(e, obj.get()));
  // The API server drops a field the schema lacks, unless strict validation refuses it.
  if (!r.schema.is_null()) {
    std::vector<std::string> found = api::UnknownCustomFields(e, r.schema, &obj->object);
    if (fields != FieldValidation::kIgnore) {
      KSCHED_RETURN_IF_ERROR(UnknownFieldsError(found, fields, unknown));
    }
  }
  api::ObjectMeta& m = obj->metadata;
  if (m.name.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
        r.kind));
  }
  if (r.namespaced && m.namespace_.empty()) m.namespace_ = "default";
  if (!r.namespaced) m.namespace_.clear();
  if (m.uid.empty()) m.uid = api::KeyOf(m);
  if (m.creation_timestamp.empty()) m.creation_timestamp = "2026-01-01T00:00:00Z";
  obj->object["metadata"]["name"] = m.name;
  if (r.namespaced) obj->object["metadata"]["namespace"] = m.namespace_;
  obj->object["metadata"]["uid"] = m.uid;
  obj->object["metadata"]["creationTimestamp"] = m.creation_timestamp;
  if (r.validate) {
    if (absl::Status st = r.validate(obj->object); !st.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{} \"{}\" is invalid: {}", r.kind, m.name, AsStd(st.message())));
    }
  }
  return CustomManifestObject{r.resource, std::move(obj)};
}

absl::StatusOr<Parsed> Parse(std::string_view text, const std::string& source,
                             FieldValidation fields, std::vector<std::string>* warnings,
                             const std::vector<CustomResource>& custom_kinds = {}) {
  absl::StatusOr<std::vector<std::string>> docs = ManifestDocuments(text, source);
  if (!docs.ok()) return docs.status();
  const bool one_json = docs->size() == 1 && (*docs)[0] == text;
  Parsed out;
  simdjson::dom::parser parser;
  for (size_t i = 0; i < docs->size(); ++i) {
    const std::string doc = NameGenerated((*docs)[i], fmt::format("{}/{}", source, i));
    simdjson::dom::element e;
    if (auto error = parser.parse(doc).get(e)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", source, simdjson::error_message(error)));
    }
    const std::string where =
        one_json ? source : fmt::format("{}: {}", source, DocumentName(static_cast<int>(i), e));
    auto fail = [&](const std::string& at, std::string_view why) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", at, why));
    };
    std::string_view kind, version, item_kind, item_version;
    if (e["kind"].get(kind)) kind = {};
    if (e["apiVersion"].get(version)) version = {};
    if (IsList(e, kind)) {
      if (version.empty()) return fail(where, "error validating data: apiVersion not set");
      if (kind != "List") {  // PodList and the like: items may leave their kind out.
        item_kind = kind.substr(0, kind.size() - 4);
        item_version = version;
      }
    }
    const std::vector<Placed> objects = ObjectsOf(e, kind, item_kind);
    // What kubectl and the API server check of each object, and of each decoded one.
    auto check = [&](const std::string& at, simdjson::dom::element object) -> absl::Status {
      std::vector<std::string> unknown;
      absl::Status st = CheckTypeAndFields(object, item_kind, item_version, fields, &unknown);
      if (!st.ok()) return fail(at, AsStd(st.message()));
      for (const std::string& u : unknown) {
        if (warnings != nullptr) warnings->push_back(fmt::format("{}: {}", at, u));
      }
      return absl::OkStatus();
    };
    auto keep = [&](const std::string& at, api::Object& o) -> absl::Status {
      std::vector<std::string> errors = ValidateObject(o);
      if (!errors.empty()) return fail(at, InvalidObjectMessage(o, errors));
      out.objects.push_back(std::move(o));
      out.where.push_back(at);
      return absl::OkStatus();
    };
    // Objects of custom resources, alone or among the items of a List: each item on its own.
    auto custom_of = [&](simdjson::dom::element object) -> const CustomResource* {
      std::string_view k = item_kind, v = item_version;
      if (!object["kind"].get(k) && !object["apiVersion"].get(v)) {
        return CustomKindOf(custom_kinds, k, v);
      }
      return nullptr;
    };
    if (std::any_of(objects.begin(), objects.end(),
                    [&](const Placed& o) { return custom_of(o.second) != nullptr; })) {
      for (const auto& [place, object] : objects) {
        const std::string at = place.empty() ? where : fmt::format("{}: {}", where, place);
        if (const CustomResource* r = custom_of(object)) {
          std::vector<std::string> unknown;
          absl::StatusOr<CustomManifestObject> c = DecodeCustom(object, *r, fields, &unknown);
          if (!c.ok()) return fail(at, AsStd(c.status().message()));
          for (const std::string& u : unknown) {
            if (warnings != nullptr) warnings->push_back(fmt::format("{}: {}", at, u));
          }
          out.custom.push_back(*std::move(c));
          out.custom_where.push_back(at);
          continue;
        }
        KSCHED_RETURN_IF_ERROR(check(at, object));
        absl::StatusOr<std::vector<api::Object>> decoded = api::DecodeObjects(object);
        if (!decoded.ok()) return fail(at, AsStd(decoded.status().message()));
        for (api::Object& o : *decoded) KSCHED_RETURN_IF_ERROR(keep(at, o));
      }
      continue;
    }
    for (const auto& [place, object] : objects) {
      KSCHED_RETURN_IF_ERROR(
          check(place.empty() ? where : fmt::format("{}: {}", where, place), object));
    }
    absl::StatusOr<std::vector<api::Object>> decoded = api::DecodeObjects(e);
    if (!decoded.ok()) return fail(where, AsStd(decoded.status().message()));
    for (size_t j = 0; j < decoded->size(); ++j) {
      const bool item = j < objects.size() && !objects[j].first.empty();
      KSCHED_RETURN_IF_ERROR(
          keep(item ? fmt::format("{}: {}", where, objects[j].first) : where, (*decoded)[j]));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ManifestDocuments(std::string_view text,
                                                           const std::string& source) {
  if (api::LooksLikeJson(text)) {
    // JSON as it is; anything else that starts with a brace is YAML's flow style, which kubectl
    // reads too, and a JSON syntax error is reported by the YAML parser, with its line.
    simdjson::dom::parser parser;
    simdjson::dom::element e;
    if (!parser.parse(text.data(), text.size()).get(e))
      return std::vector<std::string>{std::string(text)};
  }
  absl::StatusOr<std::vector<std::string>> yaml = api::YamlToJson(text);
  if (!yaml.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", source, AsStd(yaml.status().message())));
  }
  return yaml;
}

absl::StatusOr<std::vector<api::Object>> ParseManifest(std::string_view text,
                                                       const std::string& source,
                                                       FieldValidation fields,
                                                       std::vector<std::string>* warnings) {
  absl::StatusOr<Parsed> parsed = Parse(text, source, fields, warnings);
  if (!parsed.ok()) return parsed.status();
  return std::move(parsed->objects);
}

absl::StatusOr<std::vector<std::string>> ManifestPaths(const std::vector<std::string>& args,
                                                       bool recursive) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (arg == "-" || !fs::is_directory(arg, ec)) {
      out.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    auto add = [&](const fs::directory_entry& e) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".json" || ext == ".yaml" || ext == ".yml")) {
        found.push_back(e.path().string());
      }
    };
    if (recursive) {
      for (const auto& e : fs::recursive_directory_iterator(arg, ec)) add(e);
    } else {
      for (const auto& e : fs::directory_iterator(arg, ec)) add(e);
    }
    if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", arg, ec.message()));
    if (found.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("the directory {} holds no .yaml, .yml or .json file", arg));
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

absl::StatusOr<std::string> ReadManifest(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  return ReadFile(path);
}

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

namespace {

// The API server's check of a ResourceClaim or ResourceClaimTemplate that asks for admin access
// (its registry's AuthorizedForAdmin): the namespace must be labelled for it. `where` says where
// each of `objects` was read.
absl::Status AdmitAdminAccess(const std::vector<api::Object>& objects,
                              const std::vector<std::string>& where) {
  constexpr char kLabel[] = "resource.kubernetes.io/admin-access";
  std::set<std::string> labelled;
  for (const api::Object& o : objects) {
    if (const auto* ns = std::get_if<api::Namespace>(&o)) {
      auto it = ns->metadata.labels.find(kLabel);
      if (it != ns->metadata.labels.end() && it->second == "true")
        labelled.insert(ns->metadata.name);
    }
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    const api::ResourceClaimSpec* spec = nullptr;
    std::string path;
    if (const auto* c = std::get_if<api::ResourceClaim>(&objects[i])) {
      spec = &c->spec;
      path = "spec.devices.requests";
    } else if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&objects[i])) {
      spec = &t->spec;
      path = "spec.spec.devices.requests";
    }
    if (spec == nullptr || labelled.contains(api::MetaOf(objects[i]).namespace_)) continue;
    for (size_t r = 0; r < spec->requests.size(); ++r) {
      if (!spec->requests[r].exactly || !spec->requests[r].exactly->admin_access) continue;
      return absl::InvalidArgumentError(fmt::format(
          "{}: {}", where[i],
          InvalidObjectMessage(
              objects[i], {fmt::format("{}[{}].adminAccess: Forbidden: admin access to devices "
                                       "requires the `{}: true` label on the containing namespace",
                                       path, r, kLabel)})));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<api::Object>> LoadManifests(
    const std::vector<std::string>& paths, FieldValidation fields,
    std::vector<std::string>* warnings, const std::vector<CustomResource>& custom_kinds,
    std::vector<CustomManifestObject>* custom) {
  std::vector<api::Object> all;
  std::vector<std::string> where;
  std::set<std::tuple<std::string, std::string, std::string>> keys;  // kind, namespace, name
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadManifest(path);
    if (!text.ok()) return text.status();
    absl::StatusOr<Parsed> parsed = Parse(*text, path, fields, warnings, custom_kinds);
    if (!parsed.ok()) return parsed.status();
    if (absl::Status st = AdmitPods(parsed->objects, path); !st.ok()) return st;
    for (size_t i = 0; i < parsed->custom.size(); ++i) {
      CustomManifestObject& c = parsed->custom[i];
      const api::ObjectMeta& m = c.object->metadata;
      if (!keys.emplace(c.resource, m.namespace_, m.name).second) {
        const CustomResource r{.resource = c.resource};
        return absl::AlreadyExistsError(fmt::format("{}: {}.{} \"{}\" already exists",
                                                    parsed->custom_where[i], r.Plural(), r.Group(),
                                                    m.name));
      }
      if (custom != nullptr) custom->push_back(std::move(c));
    }
    for (size_t i = 0; i < parsed->objects.size(); ++i) {
      api::Object& o = parsed->objects[i];
      const api::ObjectMeta& m = api::MetaOf(o);
      if (!keys.emplace(std::string(api::KindOf(o)), m.namespace_, m.name).second) {
        return absl::AlreadyExistsError(fmt::format(
            "{}: {} \"{}\" already exists", parsed->where[i],
            std::visit([]<typename T>(const T&) { return api::QualifiedResource<T>(); }, o),
            m.name));
      }
      all.push_back(std::move(o));
      where.push_back(parsed->where[i]);
    }
  }
  if (absl::Status st = AdmitAdminAccess(all, where); !st.ok()) return st;
  if (all.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("no objects passed to simulate: {} hold(s) none", fmt::join(paths, ", ")));
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
  // The class a pod or PodGroup names (the global default when it names none; null when there
  // is none), or the API server's refusal.
  auto class_of = [&](std::string_view resource, const std::string& object,
                      const std::string& name) -> absl::StatusOr<const api::PriorityClass*> {
    if (name.empty()) return global_default;
    auto it = classes.find(name);
    if (it == classes.end()) {
      return absl::InvalidArgumentError(
          fmt::format("{} \"{}\" is forbidden: no PriorityClass with name {} was found", resource,
                      object, name));
    }
    return &it->second;
  };
  for (api::Object& o : *objects) {
    // A PodGroup's priority, as the admission plugin resolves it with GenericWorkload (a
    // PodGroup exists only then).
    if (auto* group = std::get_if<api::PodGroup>(&o); group && !group->priority) {
      absl::StatusOr<const api::PriorityClass*> pc =
          class_of("podgroups.scheduling.k8s.io", group->metadata.name, group->priority_class_name);
      if (!pc.ok()) return pc.status();
      group->priority = *pc ? (*pc)->value : 0;
      if (*pc != nullptr) group->priority_class_name = (*pc)->metadata.name;
    }
    auto* pod = std::get_if<api::Pod>(&o);
    if (pod == nullptr || pod->spec.priority.has_value()) continue;
    absl::StatusOr<const api::PriorityClass*> found =
        class_of("pods", pod->metadata.name, pod->spec.priority_class_name);
    if (!found.ok()) return found.status();
    const api::PriorityClass* pc = *found;
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
