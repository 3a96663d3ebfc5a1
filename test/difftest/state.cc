#include "test/difftest/state.h"

#include <set>

#include "fmt/format.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;

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

json BoundCopy(const Case& c, const std::string& key, const std::string& node,
               const PodStates& target, const std::string& prefix) {
  json pod = *CasePod(c, key);
  if (pod["spec"].value("nodeName", "").empty()) {
    pod["spec"]["schedulerName"] = prefix + pod["spec"].value("schedulerName", "default-scheduler");
  }
  pod["spec"]["nodeName"] = node;
  auto it = target.find(key);
  if (it != target.end()) {
    const std::string started = it->second.value("status", json::object()).value("startTime", "");
    if (!started.empty()) pod["status"]["startTime"] = started;
  }
  return pod;
}

json SimulationInput(const Case& c, const PodStates& state, const json& pending,
                     const std::string& prefix) {
  json items = json::array();
  for (const json& o : c.setup) {
    if (o.value("kind", "") != "Pod") items.push_back(o);
  }
  for (const auto& [key, read] : state) {
    const bool bound = !read["spec"].value("nodeName", "").empty();
    if (!bound && NominatedNode(read).empty()) continue;
    json pod = read;
    pod["metadata"].erase("managedFields");
    if (std::string name = pod["spec"].value("schedulerName", ""); name.starts_with(prefix)) {
      pod["spec"]["schedulerName"] = name.substr(prefix.size());
    }
    items.push_back(std::move(pod));
  }
  items.push_back(pending);
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

}  // namespace ksched::difftest
