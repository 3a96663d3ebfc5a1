#include "src/sim/what_if.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ksched/api/resources.h"
#include "ksched/strings.h"
#include "src/sim/manifests.h"

namespace ksched::sim {
namespace {

using nlohmann::json;

// The documents of a manifest, as JSON.
absl::StatusOr<std::vector<json>> Documents(const std::string& path) {
  absl::StatusOr<std::string> text = ReadManifest(path);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  absl::StatusOr<std::vector<std::string>> docs = ManifestDocuments(*text, path);
  if (!docs.ok()) return docs.status();
  std::vector<json> out;
  for (const std::string& d : *docs) {
    json j = json::parse(d, nullptr, false);
    if (j.is_discarded()) return absl::InvalidArgumentError(fmt::format("{}: not JSON", path));
    out.push_back(std::move(j));
  }
  return out;
}

bool IsWorkload(const json& doc) {
  const std::string kind = doc.value("kind", "");
  return doc.value("apiVersion", "") == "apps/v1" &&
         (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet");
}

// A document to decode, and what to call it in errors.
struct Doc {
  json object;
  std::string source;
};

// `doc`, with a workload's pods after it (a Deployment becomes a ReplicaSet of its name); the
// items of a List one by one.
void Expand(const json& doc, const std::string& source, std::vector<Doc>* out) {
  if (doc.value("kind", "") == "List" && doc.contains("items") && doc["items"].is_array()) {
    for (const json& item : doc["items"]) Expand(item, source, out);
    return;
  }
  if (!doc.is_object() || !IsWorkload(doc)) {
    out->push_back({doc, source});
    return;
  }
  const json meta = doc.value("metadata", json::object());
  const std::string name = meta.value("name", "");
  const std::string ns = meta.value("namespace", "default");
  const json spec = doc.value("spec", json::object());
  json owner = doc;
  if (doc["kind"] == "Deployment") {
    owner = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", meta},
             {"spec",
              {{"replicas", spec.value("replicas", 1)},
               {"selector", spec.value("selector", json::object())},
               {"template", spec.value("template", json::object())}}}};
  }
  owner["metadata"]["namespace"] = ns;
  if (!owner["metadata"].contains("uid")) owner["metadata"]["uid"] = "what-if/" + ns + "/" + name;
  const std::string what =
      fmt::format("{}: {} {}/{}", source, doc["kind"].get<std::string>(), ns, name);
  out->push_back({owner, what});
  const json tmpl = spec.value("template", json::object());
  const int replicas = spec.contains("replicas") && spec["replicas"].is_number_integer()
                           ? spec["replicas"].get<int>()
                           : 1;
  for (int i = 0; i < replicas; ++i) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", tmpl.value("metadata", json::object())},
                {"spec", tmpl.value("spec", json::object())}};
    const std::string pod_name = fmt::format("{}-{}", name, i);
    pod["metadata"]["name"] = pod_name;
    pod["metadata"]["namespace"] = ns;
    pod["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                                       {"kind", owner["kind"]},
                                                       {"name", name},
                                                       {"uid", owner["metadata"]["uid"]},
                                                       {"controller", true}}});
    out->push_back({std::move(pod), fmt::format("{}, pod {}", what, pod_name)});
  }
}

// The objects of the --add files.
absl::StatusOr<std::vector<api::Object>> Additions(const std::vector<std::string>& files,
                                                   FieldValidation fields,
                                                   std::vector<std::string>* warnings) {
  std::vector<api::Object> out;
  absl::StatusOr<std::vector<std::string>> paths = ManifestPaths(files, /*recursive=*/false);
  if (!paths.ok()) return paths.status();
  for (const std::string& file : *paths) {
    absl::StatusOr<std::vector<json>> docs = Documents(file);
    if (!docs.ok()) return docs.status();
    std::vector<Doc> expanded;
    for (const json& d : *docs) Expand(d, file, &expanded);
    for (const Doc& d : expanded) {
      absl::StatusOr<std::vector<api::Object>> objects =
          ParseManifest(d.object.dump(), d.source, fields, warnings);
      if (!objects.ok()) return objects.status();
      if (absl::Status st = AdmitPods(*objects, d.source); !st.ok()) return st;
      for (api::Object& o : *objects) out.push_back(std::move(o));
    }
  }
  return out;
}

bool StaysOnItsNode(const api::Pod& pod) {
  if (pod.metadata.annotations.contains("kubernetes.io/config.mirror")) return true;
  return std::any_of(
      pod.metadata.owner_references.begin(), pod.metadata.owner_references.end(),
      [](const api::OwnerReference& o) { return o.controller && o.kind == "DaemonSet"; });
}

// "namespace/name"; manifests may leave the namespace out ("default", as the embedded cluster
// reads them).
std::string PodKey(const api::Pod& pod) {
  return (pod.metadata.namespace_.empty() ? "default" : pod.metadata.namespace_) + "/" +
         pod.metadata.name;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ApplyWhatIf(const WhatIf& w,
                                                               std::vector<api::Object>* objects,
                                                               std::vector<std::string>* warnings) {
  absl::StatusOr<std::vector<api::Object>> added = Additions(w.add, w.fields, warnings);
  if (!added.ok()) return added.status();
  // Where each object is, by kind and key, looked up once per added object (a live cluster has
  // tens of thousands of pods).
  absl::flat_hash_map<std::pair<size_t, std::string>, size_t> where;
  if (!added->empty()) {
    for (size_t i = 0; i < objects->size(); ++i) {
      where.emplace(std::pair((*objects)[i].index(), api::KeyOf(api::MetaOf((*objects)[i]))), i);
    }
  }
  for (api::Object& o : *added) {
    auto [it, fresh] =
        where.emplace(std::pair(o.index(), api::KeyOf(api::MetaOf(o))), objects->size());
    if (fresh) {
      objects->push_back(std::move(o));
    } else {
      (*objects)[it->second] = std::move(o);
    }
  }
  if (absl::Status st = AdmitPriorities(objects); !st.ok()) return st;

  auto node = [&](const std::string& flag, const std::string& name) -> absl::StatusOr<api::Node*> {
    for (api::Object& o : *objects) {
      if (auto* n = std::get_if<api::Node>(&o); n != nullptr && n->metadata.name == name) return n;
    }
    return absl::InvalidArgumentError(fmt::format("{} {}: no such node", flag, name));
  };
  std::map<std::string, std::string> moved;
  // Pods on `name` become pending again; those that stay with it are kept, or removed with it.
  auto unbind = [&](const std::string& name, bool node_deleted) {
    std::vector<api::Object> kept;
    for (api::Object& o : *objects) {
      auto* pod = std::get_if<api::Pod>(&o);
      if (pod == nullptr || pod->spec.node_name != name) {
        kept.push_back(std::move(o));
        continue;
      }
      const bool terminating = pod->metadata.deletion_timestamp.has_value();
      if (terminating || StaysOnItsNode(*pod)) {
        if (!node_deleted) kept.push_back(std::move(o));
        continue;
      }
      moved[PodKey(*pod)] = name;
      pod->spec.node_name.clear();
      pod->status = api::PodStatus{.phase = "Pending"};
      kept.push_back(std::move(o));
    }
    *objects = std::move(kept);
  };
  for (const auto& [flag, names] :
       {std::pair{"--cordon", &w.cordon}, std::pair{"--drain", &w.drain}}) {
    for (const std::string& name : *names) {
      absl::StatusOr<api::Node*> n = node(flag, name);
      if (!n.ok()) return n.status();
      (*n)->spec.unschedulable = true;
      if (std::string_view(flag) == "--drain") unbind(name, false);
    }
  }
  for (const std::string& name : w.delete_nodes) {
    absl::StatusOr<api::Node*> n = node("--delete-node", name);
    if (!n.ok()) return n.status();
    std::erase_if(*objects, [&](const api::Object& o) {
      const auto* x = std::get_if<api::Node>(&o);
      return x != nullptr && x->metadata.name == name;
    });
    unbind(name, true);
  }
  return moved;
}

namespace {

// Per node: what its pods request, (milli-CPU, bytes).
std::map<std::string, std::pair<int64_t, int64_t>> Requested(
    const std::vector<const api::Pod*>& pods) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const api::Pod* p : pods) {
    if (p->spec.node_name.empty()) continue;
    const auto [cpu, memory] = CpuMemoryRequests(*p);
    out[p->spec.node_name].first += cpu;
    out[p->spec.node_name].second += memory;
  }
  return out;
}

int64_t Allocatable(const api::Node& n, std::string_view resource, bool milli) {
  auto it = n.status.allocatable.find(resource);
  if (it == n.status.allocatable.end()) return 0;
  return milli ? it->second.MilliValue() : it->second.Value();
}

}  // namespace

std::pair<int64_t, int64_t> CpuMemoryRequests(const api::Pod& pod) {
  const api::ResourceList r = api::PodRequests(pod);
  auto cpu = r.find(api::kResourceCPU);
  auto memory = r.find(api::kResourceMemory);
  return {cpu == r.end() ? 0 : cpu->second.MilliValue(),
          memory == r.end() ? 0 : memory->second.Value()};
}

NodeLoad LoadOf(const api::Node& n) {
  return {.node = n.metadata.name,
          .cpu_allocatable = Allocatable(n, api::kResourceCPU, true),
          .memory_allocatable = Allocatable(n, api::kResourceMemory, false)};
}

std::vector<NodeLoad> LoadsBefore(const std::vector<api::Object>& objects) {
  std::vector<const api::Pod*> pods;
  std::map<std::string, NodeLoad> loads;
  for (const api::Object& o : objects) {
    if (const auto* p = std::get_if<api::Pod>(&o)) pods.push_back(p);
    if (const auto* n = std::get_if<api::Node>(&o)) loads[n->metadata.name] = LoadOf(*n);
  }
  for (const auto& [node, r] : Requested(pods)) {
    if (auto it = loads.find(node); it != loads.end()) {
      it->second.cpu_before = r.first;
      it->second.memory_before = r.second;
    }
  }
  std::vector<NodeLoad> out;
  for (auto& [name, l] : loads) out.push_back(std::move(l));
  return out;
}

WhatIfSummary Summarize(std::vector<NodeLoad> before, const SimulationResult& result,
                        std::map<std::string, std::string> moved) {
  WhatIfSummary s{.moved = std::move(moved)};
  for (const PodOutcome& o : result.pods) {
    if (!o.node && o.status != "Preempted") s.pending.push_back(o.namespace_ + "/" + o.name);
  }
  std::map<std::string, NodeLoad> loads;
  for (NodeLoad& l : before) {
    l.after = false;
    loads[l.node] = std::move(l);
  }
  for (const auto& n : result.final_nodes) {
    auto [it, added] = loads.try_emplace(n->metadata.name, LoadOf(*n));
    if (added) it->second.before = false;
    it->second.after = true;
  }
  std::vector<const api::Pod*> pods;
  for (const auto& p : result.final_pods) pods.push_back(p.get());
  for (const auto& [node, r] : Requested(pods)) {
    if (auto it = loads.find(node); it != loads.end()) {
      it->second.cpu_after = r.first;
      it->second.memory_after = r.second;
    }
  }
  for (auto& [name, l] : loads) s.nodes.push_back(std::move(l));
  return s;
}

std::string Cpu(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : fmt::format("{}m", milli);
}

std::string Memory(int64_t bytes) {
  constexpr int64_t kMi = int64_t{1} << 20, kGi = int64_t{1} << 30;
  if (bytes == 0) return "0";
  if (bytes % kGi == 0) return fmt::format("{}Gi", bytes / kGi);
  if (bytes % kMi == 0) return fmt::format("{}Mi", bytes / kMi);
  return std::to_string(bytes);
}

std::string FormatSummaryTable(const WhatIfSummary& s) {
  std::string out = fmt::format("\nPending after the change: {} pod(s)\n", s.pending.size());
  for (const std::string& p : s.pending) out += fmt::format("  {}\n", p);
  if (!s.moved.empty()) {
    out += fmt::format("Made pending again by the change: {} pod(s)\n", s.moved.size());
    for (const auto& [pod, node] : s.moved) out += fmt::format("  {} (was on {})\n", pod, node);
  }
  size_t w = 4;
  for (const NodeLoad& l : s.nodes) w = std::max(w, l.node.size());
  out += fmt::format("\n{:<{}}  {:<26}  {}\n", "NODE", w, "CPU REQUESTED", "MEMORY REQUESTED");
  for (const NodeLoad& l : s.nodes) {
    auto cell = [&](int64_t before, int64_t after, int64_t allocatable, auto fmt_fn) {
      const std::string b = l.before ? fmt_fn(before) : "(new)";
      const std::string a = l.after ? fmt_fn(after) : "(gone)";
      return fmt::format("{} -> {} of {}", b, a, fmt_fn(allocatable));
    };
    out += fmt::format("{:<{}}  {:<26}  {}\n", l.node, w,
                       cell(l.cpu_before, l.cpu_after, l.cpu_allocatable, Cpu),
                       cell(l.memory_before, l.memory_after, l.memory_allocatable, Memory));
  }
  return out;
}

nlohmann::ordered_json SummaryJson(const WhatIfSummary& s) {
  nlohmann::ordered_json j;
  j["pending"] = s.pending;
  nlohmann::ordered_json moved = nlohmann::ordered_json::object();
  for (const auto& [pod, node] : s.moved) moved[pod] = node;
  j["moved"] = std::move(moved);
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const NodeLoad& l : s.nodes) {
    nlohmann::ordered_json n;
    n["name"] = l.node;
    n["before"] = l.before;
    n["after"] = l.after;
    n["cpu"] = {{"allocatable", Cpu(l.cpu_allocatable)},
                {"requestedBefore", Cpu(l.cpu_before)},
                {"requestedAfter", Cpu(l.cpu_after)}};
    n["memory"] = {{"allocatable", Memory(l.memory_allocatable)},
                   {"requestedBefore", Memory(l.memory_before)},
                   {"requestedAfter", Memory(l.memory_after)}};
    nodes.push_back(std::move(n));
  }
  j["nodes"] = std::move(nodes);
  return j;
}

}  // namespace ksched::sim
