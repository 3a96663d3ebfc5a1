#include "test/difftest/case.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "src/api/decode.h"
#include "src/sim/disruption.h"
#include "src/sim/manifests.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;

// The built-in classes the API server creates (scheduling.SystemPriorityClasses).
const std::map<std::string, int64_t>& SystemClasses() {
  static const auto* classes = new std::map<std::string, int64_t>{
      {"system-cluster-critical", 2000000000}, {"system-node-critical", 2000001000}};
  return *classes;
}

// Every plugin name a configuration mentions.
std::set<std::string> PluginsOf(const json& config) {
  std::set<std::string> out;
  if (!config.is_object()) return out;
  for (const json& profile : config.value("profiles", json::array())) {
    const json plugins = profile.value("plugins", json::object());
    for (const auto& [point, set] : plugins.items()) {
      for (const char* list : {"enabled", "disabled"}) {
        for (const json& p : set.value(list, json::array())) out.insert(p.value("name", ""));
      }
    }
    for (const json& pc : profile.value("pluginConfig", json::array())) {
      out.insert(pc.value("name", ""));
    }
  }
  out.erase("*");
  out.erase("");
  return out;
}

// Makes a pod acceptable to the API server's admission, recording each change in `notes`.
void AdaptPod(json& pod, std::map<int64_t, std::string>& priority_classes,
              std::vector<std::string>& notes) {
  const std::string key = KeyOf(pod);
  json& spec = pod["spec"];
  if (spec.contains("priority")) {
    // Priority admission computes spec.priority from the class and refuses one given by hand.
    const int64_t value = spec["priority"].get<int64_t>();
    if (spec.value("priorityClassName", "").empty()) {
      const std::string cls = fmt::format("difftest-priority-{}", value);
      priority_classes.emplace(value, cls);
      spec["priorityClassName"] = cls;
      notes.push_back(fmt::format("{}: spec.priority {} became PriorityClass {}", key, value, cls));
    } else {
      notes.push_back(fmt::format("{}: spec.priority {} dropped; its class sets it", key, value));
    }
    spec.erase("priority");
  }
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list)) continue;
    for (json& container : spec[list]) {
      if (!container.contains("image")) container["image"] = "registry.k8s.io/pause:3.10";
      json& resources = container["resources"];
      if (!resources.is_object() || !resources.contains("requests")) continue;
      for (const auto& [name, quantity] : resources["requests"].items()) {
        if (!sim::NeedsEqualLimit(name) ||
            (resources.contains("limits") && resources["limits"].contains(name))) {
          continue;
        }
        resources["limits"][name] = quantity;
        notes.push_back(
            fmt::format("{}: container {} got limit {}={} (required for an extended resource)", key,
                        container.value("name", ""), name, quantity.dump()));
      }
    }
  }
}

// MakeCase, throwing json::exception on an object of the wrong shape.
// A budget without a status gets the one the disruption controller would give it over the pods
// on nodes, as `ksched simulate` computes it (the rig runs no controller); the harness writes it
// to the status subresource, and simulate keeps a status it is given.
absl::Status GiveStatus(json& budget, const std::vector<json>& assigned) {
  if (budget.contains("status")) return absl::OkStatus();
  absl::StatusOr<std::vector<api::Object>> decoded = api::DecodeObjects(budget.dump());
  if (!decoded.ok()) return decoded.status();
  const auto& pdb = std::get<api::PodDisruptionBudget>(decoded->front());
  int32_t pods = 0, healthy = 0;
  for (const json& o : assigned) {
    absl::StatusOr<api::Pod> pod = api::DecodePod(o.dump());
    if (!pod.ok()) return pod.status();
    if (!sim::Selects(pdb, *pod)) continue;
    ++pods;
    healthy += sim::IsHealthy(*pod) ? 1 : 0;
  }
  const int32_t allowed = sim::DisruptionsAllowed(pdb, pods, healthy);
  budget["status"] = {{"disruptionsAllowed", allowed},
                      {"currentHealthy", healthy},
                      {"desiredHealthy", std::max(0, healthy - allowed)},
                      {"expectedPods", pods}};
  return absl::OkStatus();
}

absl::StatusOr<Case> MakeCaseOrThrow(const std::string& name, const json& scenario,
                                     const std::vector<std::string>& upstream_plugins);

}  // namespace

bool IsStorage(const std::string& kind) { return StorageOrder(kind) >= 0; }

int StorageOrder(const std::string& kind) {
  static const char* const kKinds[] = {
      "StorageClass",       "CSIDriver",        "CSINode",
      "CSIStorageCapacity", "PersistentVolume", "PersistentVolumeClaim",
      "VolumeAttachment",   "DeviceClass",      "ResourceSlice",
      "DeviceTaintRule",    "ResourceClaim"};
  for (int i = 0; i < static_cast<int>(std::size(kKinds)); ++i) {
    if (kind == kKinds[i]) return i;
  }
  return -1;
}

std::string KeyOf(const json& object) {
  const json& meta = object.value("metadata", json::object());
  return meta.value("namespace", "default") + "/" + meta.value("name", "");
}

bool AlikeButForName(json a, json b) {
  a["metadata"].erase("name");
  b["metadata"].erase("name");
  return a == b;
}

std::string PodGroupOf(const json& pod) {
  const json group = pod.value("spec", json::object()).value("schedulingGroup", json::object());
  const std::string name = group.value("podGroupName", "");
  return name.empty() ? "" : pod["metadata"].value("namespace", "default") + "/" + name;
}

size_t GivenEnd(const Case& c, size_t i) {
  size_t end = c.first[i];
  while (end < c.pending.size() && c.first[end] == c.first[i]) ++end;
  return end;
}

absl::StatusOr<Case> MakeCase(std::string name, const json& scenario,
                              const std::vector<std::string>& upstream_plugins) {
  try {
    return MakeCaseOrThrow(name, scenario, upstream_plugins);
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", name, e.what()));
  }
}

std::vector<std::string> GateFlags(const json& scenario) {
  std::vector<std::string> out;
  for (const json& a : scenario.value("args", json::array())) {
    const std::string arg = a.is_string() ? a.get<std::string>() : "";
    for (std::string_view flag :
         {"--feature-gates=", "--emulated-version=", "--min-compatibility-version="}) {
      if (arg.starts_with(flag)) out.push_back(arg);
    }
  }
  return out;
}

namespace {

absl::StatusOr<Case> MakeCaseOrThrow(const std::string& name, const json& scenario,
                                     const std::vector<std::string>& upstream_plugins) {
  if (!scenario.contains("cluster") || !scenario["cluster"].is_array()) {
    return absl::InvalidArgumentError(fmt::format("{}: no cluster list", name));
  }
  Case c{.name = name,
         .scenario = scenario,
         .config = scenario.value("config", json()),
         .flags = GateFlags(scenario)};
  const std::set<std::string> known(upstream_plugins.begin(), upstream_plugins.end());
  for (const std::string& plugin : PluginsOf(c.config)) {
    if (!known.contains(plugin)) {
      c.incomparable =
          fmt::format("its config names plugin {}, which kube-scheduler lacks", plugin);
      break;
    }
  }

  std::vector<json> namespaces, classes, budgets, nodes, storage, assigned, pending;
  std::set<std::string> namespace_names;
  std::map<int64_t, std::string> made_classes;
  for (size_t i = 0; i < scenario["cluster"].size(); ++i) {
    json o = scenario["cluster"][i];
    const std::string kind = o.value("kind", "");
    if (kind == "Namespace") {
      namespace_names.insert(o["metadata"].value("name", ""));
      namespaces.push_back(std::move(o));
    } else if (kind == "PriorityClass") {
      classes.push_back(std::move(o));
    } else if (kind == "Node") {
      nodes.push_back(std::move(o));
    } else if (kind == "Pod") {
      if (!o["metadata"].contains("namespace")) o["metadata"]["namespace"] = "default";
      AdaptPod(o, made_classes, c.adaptations);
      const std::string ns = o["metadata"]["namespace"];
      if (ns != "default" && !namespace_names.contains(ns)) {
        namespace_names.insert(ns);
        namespaces.push_back(
            {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
      }
      (o["spec"].value("nodeName", "").empty() ? pending : assigned).push_back(std::move(o));
    } else if (kind == "PodDisruptionBudget") {
      if (!o["metadata"].contains("namespace")) o["metadata"]["namespace"] = "default";
      budgets.push_back(std::move(o));
    } else if (IsStorage(kind)) {
      if (kind == "PersistentVolumeClaim" || kind == "CSIStorageCapacity" ||
          kind == "ResourceClaim") {
        if (!o["metadata"].contains("namespace")) o["metadata"]["namespace"] = "default";
      }
      if (kind == "ResourceClaim" && o.contains("status") && c.incomparable.empty()) {
        // The API server drops it on create, and a reservation would name the running pod's
        // uid, which the harness learns only once it has made the pod.
        c.incomparable = "it has a ResourceClaim with a status, which the harness does not write";
      }
      if (o["metadata"].contains("deletionTimestamp")) {
        c.adaptations.push_back(fmt::format(
            "{} {}: created with a finalizer, then deleted (it has a deletionTimestamp)", kind,
            KeyOf(o)));
      }
      storage.push_back(std::move(o));
    } else if (kind == "ResourceClaimTemplate") {
      // The harness does not follow the names the resourceclaim controller gives their claims.
      if (c.incomparable.empty()) {
        c.incomparable = "it has a ResourceClaimTemplate, whose claims the harness does not make";
      }
    } else if (kind == "PodGroup") {
      if (!o["metadata"].contains("namespace")) o["metadata"]["namespace"] = "default";
      c.pod_groups.push_back(std::move(o));
    } else if (kind == "Service" || kind == "ReplicationController" || kind == "ReplicaSet" ||
               kind == "StatefulSet") {
      // Not created on the control plane yet.
      if (c.incomparable.empty()) {
        c.incomparable = fmt::format("it has a {}, which the harness does not create yet", kind);
      }
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "{}: cluster[{}]: kind {:?} is not used by the differential test", c.name, i, kind));
    }
  }
  // A PodGroup that running pods name is there before them, for the whole case (preemption reads
  // it: a PodGroup disrupted as a whole is one victim); the others come with their pods.
  std::vector<json> groups;
  std::erase_if(c.pod_groups, [&](json& group) {
    const bool running = std::any_of(assigned.begin(), assigned.end(), [&](const json& pod) {
      return PodGroupOf(pod) == KeyOf(group);
    });
    if (running) groups.push_back(std::move(group));
    return running;
  });
  for (const auto& [value, cls] : made_classes) {
    classes.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                       {"kind", "PriorityClass"},
                       {"metadata", {{"name", cls}}},
                       {"value", value}});
  }

  // The queue's order: priority as admission resolves it, then the scenario's order.
  std::map<std::string, int64_t> value_of = SystemClasses();
  int64_t global_default = 0;
  for (const json& cls : classes) {
    value_of[cls["metadata"]["name"]] = cls.value("value", int64_t{0});
    if (cls.value("globalDefault", false)) global_default = cls.value("value", int64_t{0});
  }
  auto priority = [&](const json& pod) {
    const std::string cls = pod["spec"].value("priorityClassName", "");
    auto it = value_of.find(cls);
    return cls.empty() || it == value_of.end() ? global_default : it->second;
  };
  std::stable_sort(pending.begin(), pending.end(),
                   [&](const json& a, const json& b) { return priority(a) > priority(b); });

  for (json& budget : budgets) {
    if (absl::Status st = GiveStatus(budget, assigned); !st.ok()) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", c.name, std::string(st.message())));
    }
  }
  // The storage objects by kind, in the order that lets each find what it names.
  std::stable_sort(storage.begin(), storage.end(), [](const json& a, const json& b) {
    return StorageOrder(a.value("kind", "")) < StorageOrder(b.value("kind", ""));
  });
  for (auto* group : {&namespaces, &classes, &budgets, &nodes, &storage, &groups, &assigned}) {
    c.setup.insert(c.setup.end(), group->begin(), group->end());
  }
  c.pending = std::move(pending);
  const bool bursts = scenario.value("burst", false);
  for (size_t i = 0; i < c.pending.size(); ++i) {
    const std::string group = PodGroupOf(c.pending[i]);
    const bool with_previous =
        i > 0 && ((bursts && AlikeButForName(c.pending[i], c.pending[i - 1])) ||
                  (!group.empty() && group == PodGroupOf(c.pending[i - 1])));
    c.first.push_back(with_previous ? c.first[i - 1] : i);
  }
  return c;
}

}  // namespace

json ConfigFor(const Case& c, const std::string& prefix, const std::string& kubeconfig) {
  json config = c.config.is_object() ? c.config
                                     : json{{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                                            {"kind", "KubeSchedulerConfiguration"}};
  if (!config.contains("profiles") || config["profiles"].empty()) {
    config["profiles"] = json::array({{{"schedulerName", "default-scheduler"}}});
  }
  for (json& profile : config["profiles"]) {
    profile["schedulerName"] = prefix + profile.value("schedulerName", "default-scheduler");
  }
  config["leaderElection"] = {{"leaderElect", false}};
  config["clientConnection"]["kubeconfig"] = kubeconfig;
  return config;
}

}  // namespace ksched::difftest
