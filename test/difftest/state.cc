#include "test/difftest/state.h"

#include <set>
#include <tuple>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;

// The annotation of a claim a scheduler made for a pod's extended resources.
constexpr char kExtendedResourceClaim[] = "resource.kubernetes.io/extended-resource-claim";

std::string NominatedNode(const json& pod) {
  return pod.value("status", json::object()).value("nominatedNodeName", "");
}

// The pod of the case with this key, from its setup or its pending pods; null if none.
const json* CasePod(const Case& c, const std::string& key) {
  for (const auto* list : {&c.setup, &c.pending}) {
    for (const json& o : *list) {
      if (o.value("kind", "") == "Pod" && KeyOf(o) == key) return &o;
    }
  }
  return nullptr;
}

}  // namespace

PodStates CasePods(const Case& c, const json& pod_list) {
  PodStates out;
  for (const json& pod : pod_list.value("items", json::array())) {
    const std::string key = KeyOf(pod);
    if (CasePod(c, key) == nullptr) continue;
    json& item = out[key] = pod;
    item["apiVersion"] = "v1";  // A list's items do not say their kind.
    item["kind"] = "Pod";
  }
  return out;
}

bool Terminating(const json& pod) { return pod["metadata"].contains("deletionTimestamp"); }

std::string NodeOf(const PodStates& s, const std::string& key) {
  auto it = s.find(key);
  return it == s.end() ? "" : it->second["spec"].value("nodeName", "");
}

std::string Placement(const PodStates& s) {
  std::string out;
  for (const auto& [key, pod] : s) {
    out += fmt::format("{} on {:?}{}", key, pod["spec"].value("nodeName", ""),
                       Terminating(pod) ? ", being deleted" : "");
    if (const std::string n = NominatedNode(pod); !n.empty()) out += ", nominated to " + n;
    out += "\n";
  }
  return out;
}

std::vector<Step> StepsToReach(const PodStates& target, const PodStates& now) {
  std::set<std::string> keys;
  for (const auto* s : {&target, &now}) {
    for (const auto& [key, pod] : *s) keys.insert(key);
  }
  std::vector<Step> out;
  for (const std::string& key : keys) {
    const std::string want = NodeOf(target, key);
    const std::string have = NodeOf(now, key);
    const bool there = now.contains(key);
    if (want == have && (!there || target.contains(key))) continue;
    out.push_back({.key = key, .remove = there, .node = want});
  }
  return out;
}

std::vector<std::string> Removed(const PodStates& before, const PodStates& now) {
  std::vector<std::string> out;
  for (const auto& [key, pod] : before) {
    if (Terminating(pod)) continue;
    auto it = now.find(key);
    if (it == now.end() || Terminating(it->second)) out.push_back(key);
  }
  return out;  // Sorted, as the map's keys.
}

json ForScheduler(json pod, const std::string& prefix) {
  pod["spec"]["schedulerName"] = prefix + pod["spec"].value("schedulerName", "default-scheduler");
  return pod;
}

json BoundCopy(const Case& c, const std::string& key, const std::string& node,
               const PodStates& target, const std::string& prefix) {
  json pod = *CasePod(c, key);
  if (pod["spec"].value("nodeName", "").empty()) pod = ForScheduler(std::move(pod), prefix);
  pod["spec"]["nodeName"] = node;
  auto it = target.find(key);
  if (it != target.end()) {
    const std::string started = it->second.value("status", json::object()).value("startTime", "");
    if (!started.empty()) pod["status"]["startTime"] = started;
  }
  return pod;
}

Storage StorageOf(const json& pv_list, const json& pvc_list, const json& resource_claim_list) {
  Storage out;
  for (const auto& [list, kind, api_version] :
       {std::tuple{&pv_list, "PersistentVolume", "v1"},
        std::tuple{&pvc_list, "PersistentVolumeClaim", "v1"},
        std::tuple{&resource_claim_list, "ResourceClaim", "resource.k8s.io/v1"}}) {
    for (const json& o : list->value("items", json::array())) {
      const json& meta = o["metadata"];
      std::string key = std::string(kind) + "/";
      if (meta.contains("namespace")) key += meta.value("namespace", "") + "/";
      json& item = out[key + meta.value("name", "")] = o;
      item["apiVersion"] = api_version;  // A list's items do not say their kind.
      item["kind"] = kind;
    }
  }
  return out;
}

std::string Binding(const Storage& s) {
  std::string out;
  for (const auto& [stored_key, o] : s) {
    const json& spec = o.value("spec", json::object());
    std::string key = stored_key;
    if (o.value("kind", "") == "ResourceClaim") {
      // A claim a scheduler made for a pod's extended resources: its name ends in a random
      // suffix.
      const json& meta = o["metadata"];
      if (meta.value("annotations", json::object()).contains(kExtendedResourceClaim)) {
        key = fmt::format("ResourceClaim/{}/{}*", meta.value("namespace", ""),
                          meta.value("generateName", ""));
      }
      // The devices it was given, and what a share of one consumes; whom it is reserved for
      // differs by turn (the pods' uids), and so does a share's random ID.
      std::vector<std::string> devices;
      for (const json& r :
           o.value(json::json_pointer("/status/allocation/devices/results"), json::array())) {
        devices.push_back(fmt::format("{}: {}/{}/{}", r.value("request", ""), r.value("driver", ""),
                                      r.value("pool", ""), r.value("device", "")));
        if (r.contains("consumedCapacity")) devices.back() += " " + r["consumedCapacity"].dump();
      }
      out += fmt::format("{} devices [{}]\n", key, fmt::join(devices, ", "));
      continue;
    }
    std::string to;
    if (o.value("kind", "") == "PersistentVolume") {
      const json ref = spec.value("claimRef", json::object());
      if (!ref.empty()) to = ref.value("namespace", "") + "/" + ref.value("name", "");
    } else {
      to = spec.value("volumeName", "");
    }
    out += fmt::format("{} to {:?} ({})", key, to,
                       o.value("status", json::object()).value("phase", ""));
    const json annotations = o["metadata"].value("annotations", json::object());
    if (const std::string n = annotations.value("volume.kubernetes.io/selected-node", "");
        !n.empty()) {
      out += ", selected node " + n;
    }
    if (Terminating(o)) out += ", being deleted";
    out += "\n";
  }
  return out;
}

bool BindingInFlight(const Storage& s) {
  for (const auto& [key, o] : s) {
    const std::string phase = o.value("status", json::object()).value("phase", "");
    const json& spec = o.value("spec", json::object());
    if (o.value("kind", "") == "ResourceClaim") continue;  // No controller finishes them.
    if (o.value("kind", "") == "PersistentVolumeClaim") {
      if (!spec.value("volumeName", "").empty() && phase != "Bound" && phase != "Lost") return true;
    } else if (phase.empty() || phase == "Pending" ||
               (phase == "Available" &&
                !spec.value("claimRef", json::object()).value("uid", "").empty())) {
      return true;
    }
  }
  return false;
}

json Recreatable(json o) {
  json& meta = o["metadata"];
  // A deletionTimestamp stays: the harness deletes such an object again once it is made.
  for (const char* field : {"uid", "resourceVersion", "creationTimestamp", "managedFields",
                            "generation", "finalizers", "deletionGracePeriodSeconds"}) {
    meta.erase(field);
  }
  if (meta.contains("annotations")) {
    // The PV controller's marks of a binding it completed: it writes them again.
    for (const char* a :
         {"pv.kubernetes.io/bind-completed", "pv.kubernetes.io/bound-by-controller"}) {
      meta["annotations"].erase(a);
    }
    // The claim a scheduler made for a pod's extended resources: its pod is made again with
    // another uid, so the claim has no owner (the resourceclaim controller would delete it).
    if (meta["annotations"].contains(kExtendedResourceClaim)) meta.erase("ownerReferences");
  }
  if (o.contains("spec") && o["spec"].contains("claimRef")) {
    json& ref = o["spec"]["claimRef"];
    ref.erase("uid");
    ref.erase("resourceVersion");
  }
  o.erase("status");
  return o;
}

json SimulationInput(const Case& c, const PodStates& pods, const Storage& storage,
                     const std::vector<json>& pending, const std::string& prefix) {
  auto as_read = [](json o) {
    o["metadata"].erase("managedFields");
    return o;
  };
  json items = json::array();
  for (const json& o : c.setup) {
    const std::string kind = o.value("kind", "");
    if (kind != "Pod" && kind != "PersistentVolume" && kind != "PersistentVolumeClaim" &&
        kind != "ResourceClaim") {
      items.push_back(o);
    }
  }
  for (const json& group : c.pod_groups) items.push_back(group);
  for (const auto& [key, o] : storage) items.push_back(as_read(o));
  for (const auto& [key, read] : pods) {
    const bool bound = !read["spec"].value("nodeName", "").empty();
    if (!bound && NominatedNode(read).empty()) continue;
    json pod = as_read(read);
    if (std::string name = pod["spec"].value("schedulerName", ""); name.starts_with(prefix)) {
      pod["spec"]["schedulerName"] = name.substr(prefix.size());
    }
    items.push_back(std::move(pod));
  }
  for (const json& pod : pending) items.push_back(pod);
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

}  // namespace ksched::difftest
