#include "test/difftest/generate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "src/sim/manifests.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;
using ::testing::IsEmpty;

std::vector<json> OfKind(const json& c, const std::string& kind) {
  std::vector<json> out;
  for (const json& o : c["cluster"]) {
    if (o["kind"] == kind) out.push_back(o);
  }
  return out;
}

std::vector<json> AllContainers(const json& pod) {
  std::vector<json> out = pod["spec"]["containers"];
  for (const json& c : pod["spec"].value("initContainers", json::array())) out.push_back(c);
  return out;
}

// The matchExpressions of a pod's required and preferred node affinity terms.
std::vector<json> NodeSelectorRequirements(const json& pod) {
  std::vector<json> out;
  const json none = json::array();
  const json affinity = pod.value(json::json_pointer("/spec/affinity/nodeAffinity"), json());
  if (affinity.is_null()) return out;
  for (const json& term : affinity.value(
           json::json_pointer("/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"),
           none)) {
    for (const json& r : term["matchExpressions"]) out.push_back(r);
  }
  for (const json& p : affinity.value("preferredDuringSchedulingIgnoredDuringExecution", none)) {
    for (const json& r : p["preference"]["matchExpressions"]) out.push_back(r);
  }
  return out;
}

void CheckRequirement(const json& r, std::vector<std::string>* problems) {
  const std::string op = r["operator"];
  const json values = r.value("values", json::array());
  bool ok = false;
  if (op == "In" || op == "NotIn") {
    ok = !values.empty();
  } else if (op == "Exists" || op == "DoesNotExist") {
    ok = values.empty();
  } else if (op == "Gt" || op == "Lt") {
    ok = values.size() == 1 && std::regex_match(values[0].get<std::string>(), std::regex("[0-9]+"));
  }
  if (!ok) problems->push_back("bad node selector requirement " + r.dump());
}

// Why the API server would reject case `c`, or the harness could not use it; empty if neither.
std::vector<std::string> Problems(const json& c) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<api::Object>> objects = sim::ParseManifest(
      json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", c["cluster"]}}.dump(), "case");
  if (!objects.ok()) {
    out.push_back(std::string(objects.status().message()));
  } else if (absl::Status st = sim::AdmitPriorities(&*objects); !st.ok()) {
    out.push_back(std::string(st.message()));  // A priorityClassName without its class.
  }
  const std::regex dns1123("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  std::set<std::string> nodes;
  for (const json& node : OfKind(c, "Node")) {
    const std::string name = node["metadata"]["name"];
    nodes.insert(name);
    if (node["metadata"]["labels"]["kubernetes.io/hostname"] != name) {
      out.push_back(name + ": hostname label");
    }
    std::set<std::pair<std::string, std::string>> taints;
    for (const json& t : node.value(json::json_pointer("/spec/taints"), json::array())) {
      const std::string key = t["key"];
      if (key.starts_with("node.kubernetes.io/") || key.starts_with("node.cloudprovider")) {
        out.push_back(name + ": taint key " + key);
      }
      if (!taints.insert({key, t["effect"].get<std::string>()}).second)
        out.push_back(name + ": duplicate taint");
    }
  }
  for (const json& o : c["cluster"]) {
    const std::string name = o["metadata"]["name"];
    if (!std::regex_match(name, dns1123)) out.push_back("name " + name);
    if (o["kind"] != "Pod") continue;
    const json& spec = o["spec"];
    for (const char* field : {"priority", "overhead", "schedulerName", "schedulingGates"}) {
      if (spec.contains(field)) out.push_back(name + ": sets " + field);
    }
    if (spec.contains("affinity") && spec["affinity"].empty()) {
      out.push_back(name + ": empty affinity");
    }
    if (name.starts_with("running-") != spec.contains("nodeName")) {
      out.push_back(name + ": nodeName");
    }
    if (spec.contains("nodeName") && !nodes.contains(spec["nodeName"].get<std::string>())) {
      out.push_back(name + ": bound to a missing node");
    }
    if (spec["containers"].empty()) out.push_back(name + ": no containers");
    std::set<std::string> container_names;
    std::set<std::pair<int, std::string>> host_ports;
    for (const json& ctr : AllContainers(o)) {
      if (!ctr.contains("image") || !container_names.insert(ctr.value("name", "")).second) {
        out.push_back(name + ": container name or image");
      }
      const json requests = ctr.value(json::json_pointer("/resources/requests"), json::object());
      const json limits = ctr.value(json::json_pointer("/resources/limits"), json::object());
      for (const json* list : {&requests, &limits}) {
        for (const auto& [resource, q] : list->items()) {
          if (resource.find('/') != std::string::npos &&
              requests.value(resource, json()) != limits.value(resource, json())) {
            out.push_back(name + ": " + resource + " request differs from its limit");
          }
        }
      }
      for (const json& p : ctr.value("ports", json::array())) {
        if (!host_ports.insert({p["hostPort"].get<int>(), p["protocol"].get<std::string>()})
                 .second) {
          out.push_back(name + ": duplicate host port");
        }
      }
    }
    for (const json& t : spec.value("tolerations", json::array())) {
      if ((t["operator"] == "Exists") == t.contains("value") ||
          (!t.contains("key") && t["operator"] != "Exists")) {
        out.push_back(name + ": toleration " + t.dump());
      }
    }
    std::set<std::string> volume_names, claim_names;
    for (const json& v : spec.value("volumes", json::array())) {
      if (!volume_names.insert(v["name"].get<std::string>()).second ||
          !claim_names.insert(v["persistentVolumeClaim"]["claimName"].get<std::string>()).second) {
        out.push_back(name + ": a volume or claim named twice");
      }
    }
    for (const json& r : NodeSelectorRequirements(o)) CheckRequirement(r, &out);
    for (const json& p :
         spec.value(json::json_pointer("/affinity/nodeAffinity/"
                                       "preferredDuringSchedulingIgnoredDuringExecution"),
                    json::array())) {
      if (p["weight"] < 1 || p["weight"] > 100) out.push_back(name + ": weight");
    }
  }
  return out;
}

// The features that case `c` exercises, by name.
std::set<std::string> Features(const json& c) {
  std::set<std::string> out;
  for (const json& node : OfKind(c, "Node")) {
    for (const json& t : node.value(json::json_pointer("/spec/taints"), json::array())) {
      out.insert("taint " + t["effect"].get<std::string>());
    }
    if (node.contains(json::json_pointer("/spec/unschedulable"))) out.insert("unschedulable");
    if (node["status"].contains("images")) out.insert("node images");
    if (node["status"]["allocatable"].contains("example.com/gpu")) out.insert("gpu node");
    if (node["metadata"]["labels"].contains("cores")) out.insert("cores label");
    if (node["status"].contains("declaredFeatures")) out.insert("declared features");
  }
  if (!OfKind(c, "PriorityClass").empty()) out.insert("PriorityClass");
  for (const json& cls : OfKind(c, "StorageClass")) {
    if (cls.contains("allowedTopologies")) out.insert("allowedTopologies");
  }
  for (const json& n : OfKind(c, "CSINode")) {
    if (n.contains(json::json_pointer("/spec/drivers/0/allocatable"))) out.insert("CSI limit");
  }
  std::map<std::string, json> claims;
  for (const json& claim : OfKind(c, "PersistentVolumeClaim")) {
    claims[claim["metadata"]["name"]] = claim;
    if (claim["spec"]["accessModes"][0] == "ReadWriteOncePod") out.insert("ReadWriteOncePod");
  }
  for (const json& pv : OfKind(c, "PersistentVolume")) {
    if (pv["metadata"].contains("labels")) out.insert("zone-labelled PV");
    if (pv["spec"].contains("local")) out.insert("local PV");
  }
  std::map<std::string, int> users;  // Of each claim.
  for (const json& pod : OfKind(c, "Pod")) {
    for (const json& v : pod["spec"].value("volumes", json::array())) {
      const std::string name = v["persistentVolumeClaim"]["claimName"];
      if (++users[name] == 2) out.insert("shared claim");
      auto it = claims.find(name);
      if (it == claims.end()) {
        out.insert("missing claim");
      } else if (it->second["spec"].contains("volumeName")) {
        out.insert(pod["spec"].contains("nodeName") ? "running pod's bound claim" : "bound claim");
      } else {
        out.insert("claim of class " + it->second["spec"]["storageClassName"].get<std::string>());
      }
    }
  }
  for (const json& claim : OfKind(c, "ResourceClaim")) {
    const json& devices = claim["spec"]["devices"];
    for (const json& constraint : devices.value("constraints", json::array())) {
      out.insert(constraint.contains("distinctAttribute") ? "distinctAttribute" : "matchAttribute");
    }
    for (const json& r : devices["requests"]) {
      if (r.contains("firstAvailable")) out.insert("firstAvailable");
      if (r.contains(json::json_pointer("/exactly/allocationMode"))) out.insert("all devices");
      if (r.contains(json::json_pointer("/exactly/tolerations"))) out.insert("device toleration");
      if (r.contains(json::json_pointer("/exactly/capacity"))) out.insert("capacity request");
    }
  }
  for (const json& cls : OfKind(c, "DeviceClass")) {
    if (cls.contains(json::json_pointer("/spec/extendedResourceName"))) {
      out.insert("class backing an extended resource");
    }
  }
  for (const json& pod : OfKind(c, "Pod")) {
    for (const json& ctr : pod["spec"].value("containers", json::array())) {
      const json requests = ctr.value(json::json_pointer("/resources/requests"), json::object());
      for (const auto& [name, q] : requests.items()) {
        if (name.starts_with("deviceclass.resource.kubernetes.io/")) {
          out.insert("request by a class's implicit name");
        }
      }
    }
  }
  for (const json& slice : OfKind(c, "ResourceSlice")) {
    const json& spec = slice["spec"];
    if (spec.contains("allNodes")) out.insert("slice of every node");
    if (spec.contains("sharedCounters")) {
      out.insert(spec.contains("allNodes") ? "counter set of every node" : "counter set");
    }
    for (const json& d : spec.value("devices", json::array())) {
      if (d.contains("taints")) out.insert("device taint");
      if (d.contains("consumesCounters")) out.insert("device consuming counters");
      if (d.contains("allowMultipleAllocations")) out.insert("device of several allocations");
      if (d.contains("bindingConditions")) out.insert("device with binding conditions");
      if (d.contains("bindsToNode")) out.insert("device that binds to the node");
      if (d.contains(json::json_pointer("/capacity/bandwidth/requestPolicy/validRange"))) {
        out.insert("capacity range");
      }
      if (d.contains(json::json_pointer("/capacity/bandwidth/requestPolicy/validValues"))) {
        out.insert("capacity values");
      }
    }
  }
  for (const json& group : OfKind(c, "PodGroup")) {
    const json& spec = group["spec"];
    int pods = 0;
    for (const json& pod : OfKind(c, "Pod")) {
      pods += pod["spec"].value(json::json_pointer("/schedulingGroup/podGroupName"), "") ==
              group["metadata"]["name"];
    }
    const int min = spec.value(json::json_pointer("/schedulingPolicy/gang/minCount"), 0);
    out.insert(min == 0     ? "basic pod group"
               : min > pods ? "gang short of minCount"
               : min < pods ? "gang of fewer than its pods"
                            : "whole gang");
    if (spec.contains("priorityClassName")) out.insert("gang with priority");
    // The one --feature-gates flag, its gates in a set.
    const json args = c.value("args", json::array());
    std::set<std::string> gates;
    if (args.size() == 1 && args[0].get<std::string>().starts_with("--feature-gates=")) {
      for (const auto& g : absl::StrSplit(args[0].get<std::string>().substr(16), ',')) {
        gates.insert(std::string(g));
      }
    }
    const bool policies = gates.contains("PodGroupPreemptionPolicy=true");
    const bool claims = gates.contains("DRAWorkloadResourceClaims=true");
    if (!gates.contains("GenericWorkload=true") || gates.size() != 1u + policies + claims) {
      out.insert("PodGroup without its gate");
    }
    if (spec.contains("preemptionPolicy") && !policies) out.insert("PodGroup without its gate");
    if (spec.contains("resourceClaims")) {
      if (!claims) out.insert("PodGroup without its gate");
      out.insert("group's own claim");
    }
    for (const json& pod : OfKind(c, "Pod")) {
      if (pod["spec"].value(json::json_pointer("/schedulingGroup/podGroupName"), "") !=
          group["metadata"]["name"]) {
        continue;
      }
      for (const json& entry : pod["spec"].value("resourceClaims", json::array())) {
        if (entry.contains("resourceClaimName")) out.insert("claim a group's pods share");
        if (entry["name"] == "gpu2") out.insert("group's pod of another claim entry");
      }
    }
    // The API server refuses a group whose policy is not its class's.
    const bool never = spec.value("priorityClassName", "") == "prio-never";
    if (spec.contains("preemptionPolicy") && (spec["preemptionPolicy"] == "Never") != never) {
      out.insert("group policy unlike its class's");
    }
    if (never) out.insert("group that may not preempt");
    if (spec.value("preemptionPolicy", "") == "PreemptLowerPriority") {
      out.insert("group saying PreemptLowerPriority");
    }
    for (const json& pod : OfKind(c, "Pod")) {
      if (pod["spec"].value(json::json_pointer("/schedulingGroup/podGroupName"), "") ==
              group["metadata"]["name"] &&
          pod["spec"].value("priorityClassName", "") == "prio-never" && !never) {
        out.insert("group's pods of another policy");
      }
    }
  }
  std::set<std::string> pod_names;
  for (const json& pod : OfKind(c, "Pod")) {
    const std::string name = pod["metadata"]["name"];
    pod_names.insert(name);
    const size_t dash = name.rfind('-');
    if (name.ends_with("-1") && pod_names.contains(name.substr(0, dash))) {
      out.insert("burst of identical pods");
    }
    const json& spec = pod["spec"];
    out.insert(spec.contains("nodeName") ? "bound pod" : "pending pod");
    if (spec.contains("resourceClaims")) out.insert("resource claim");
    if (spec["containers"].size() > 1) out.insert("two containers");
    if (spec.contains("nodeSelector")) out.insert("nodeSelector");
    if (spec.contains("tolerations")) out.insert("toleration");
    if (spec.contains("priorityClassName")) out.insert("priorityClassName");
    if (spec.contains("initContainers")) out.insert("init container");
    for (const json& ctr : spec.value("initContainers", json::array())) {
      if (ctr.value("restartPolicy", "") == "Always") out.insert("sidecar");
    }
    for (const json& ctr : AllContainers(pod)) {
      if (ctr.contains("restartPolicyRules")) out.insert("restart all containers");
      if (!ctr.contains("resources")) out.insert("container without requests");
      if (ctr.contains(json::json_pointer("/resources/requests/example.com~1gpu"))) {
        out.insert("gpu request");
      }
      for (const json& p : ctr.value("ports", json::array())) {
        out.insert("host port " + p["protocol"].get<std::string>());
      }
    }
    const json affinity = spec.value(json::json_pointer("/affinity/nodeAffinity"), json::object());
    if (affinity.contains("requiredDuringSchedulingIgnoredDuringExecution")) {
      out.insert("required node affinity");
    }
    if (affinity.contains("preferredDuringSchedulingIgnoredDuringExecution")) {
      out.insert("preferred node affinity");
    }
    for (const json& r : NodeSelectorRequirements(pod)) {
      out.insert("operator " + r["operator"].get<std::string>());
    }
  }
  return out;
}

TEST(GenerateCaseTest, SameSeedSameCaseDifferentSeedsDiffer) {
  EXPECT_EQ(GenerateCase(7).dump(), GenerateCase(7).dump());
  EXPECT_EQ(GenerateCase(7)["description"], "random case, seed 7");
  EXPECT_FALSE(GenerateCase(7).contains("expect"));
  std::set<std::string> cases;
  for (uint64_t seed = 1; seed <= 50; ++seed) cases.insert(GenerateCase(seed)["cluster"].dump());
  EXPECT_EQ(cases.size(), 50u);
}

TEST(GenerateCaseTest, EveryCaseIsValidAndSized) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const json c = GenerateCase(seed);
    EXPECT_THAT(Problems(c), IsEmpty()) << "seed " << seed << ": " << c.dump();
    size_t pending = 0, bound = 0;
    for (const json& pod : OfKind(c, "Pod")) ++(pod["spec"].contains("nodeName") ? bound : pending);
    // 10, a burst's 4 and two gangs of 5.
    EXPECT_TRUE(pending >= 1 && pending <= 24) << "seed " << seed;
    EXPECT_LE(bound, 6u) << "seed " << seed;
    EXPECT_TRUE(!OfKind(c, "Node").empty() && OfKind(c, "Node").size() <= 8) << "seed " << seed;
    // prio-10, prio-100, prio-1000 and the gangs' prio-never.
    EXPECT_LE(OfKind(c, "PriorityClass").size(), 4u) << "seed " << seed;
  }
}

TEST(GenerateCaseTest, RunningPodsStartedASecondApartInTheirOrder) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    std::vector<std::string> started;
    for (const json& pod : OfKind(GenerateCase(seed), "Pod")) {
      if (pod["spec"].contains("nodeName")) started.push_back(pod["status"]["startTime"]);
    }
    for (size_t i = 0; i < started.size(); ++i) {
      EXPECT_EQ(started[i], fmt::format("2026-01-01T00:00:{:02}Z", i)) << "seed " << seed;
    }
  }
}

TEST(GenerateCaseTest, EveryFeatureAppears) {
  std::map<std::string, int> seen;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (const std::string& f : Features(GenerateCase(seed))) ++seen[f];
  }
  for (const char* f : {"taint NoSchedule",
                        "taint PreferNoSchedule",
                        "taint NoExecute",
                        "unschedulable",
                        "node images",
                        "gpu node",
                        "cores label",
                        "PriorityClass",
                        "bound pod",
                        "two containers",
                        "nodeSelector",
                        "burst of identical pods",
                        "declared features",
                        "restart all containers",
                        "toleration",
                        "priorityClassName",
                        "init container",
                        "sidecar",
                        "container without requests",
                        "gpu request",
                        "host port TCP",
                        "host port UDP",
                        "required node affinity",
                        "preferred node affinity",
                        "operator In",
                        "operator NotIn",
                        "operator Exists",
                        "operator DoesNotExist",
                        "operator Gt",
                        "operator Lt",
                        "allowedTopologies",
                        "CSI limit",
                        "ReadWriteOncePod",
                        "zone-labelled PV",
                        "local PV",
                        "shared claim",
                        "missing claim",
                        "running pod's bound claim",
                        "bound claim",
                        "claim of class local",
                        "claim of class csi",
                        "claim of class immediate",
                        "resource claim",
                        "matchAttribute",
                        "firstAvailable",
                        "all devices",
                        "device toleration",
                        "slice of every node",
                        "device taint",
                        "counter set",
                        "counter set of every node",
                        "device consuming counters",
                        "device of several allocations",
                        "capacity range",
                        "capacity values",
                        "capacity request",
                        "distinctAttribute",
                        "device with binding conditions",
                        "device that binds to the node",
                        "class backing an extended resource",
                        "request by a class's implicit name",
                        "basic pod group",
                        "gang short of minCount",
                        "gang of fewer than its pods",
                        "whole gang",
                        "gang with priority",
                        "group that may not preempt",
                        "group saying PreemptLowerPriority",
                        "group's pods of another policy",
                        "group's own claim",
                        "claim a group's pods share",
                        "group's pod of another claim entry"}) {
    EXPECT_GT(seen[f], 0) << f;
  }
  EXPECT_EQ(seen["PodGroup without its gate"], 0);
  EXPECT_EQ(seen["group policy unlike its class's"], 0);
}

TEST(ShrinkCandidatesTest, EachIsSmallerAndValid) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const json c = GenerateCase(seed);
    const std::vector<json> candidates = ShrinkCandidates(c);
    EXPECT_FALSE(candidates.empty());
    for (const json& candidate : candidates) {
      EXPECT_LT(candidate.dump().size(), c.dump().size()) << "seed " << seed;
      EXPECT_THAT(Problems(candidate), IsEmpty()) << "seed " << seed << ": " << candidate.dump();
    }
  }
}

bool HasHostPort8080(const json& c) {
  for (const json& pod : OfKind(c, "Pod")) {
    for (const json& ctr : AllContainers(pod)) {
      for (const json& p : ctr.value("ports", json::array())) {
        if (p["hostPort"] == 8080) return true;
      }
    }
  }
  return false;
}

TEST(ShrinkTest, EndsAtTheOnePodThatMatters) {
  int shrunk = 0;
  for (uint64_t seed = 1; seed <= 300 && shrunk < 10; ++seed) {
    const json c = GenerateCase(seed);
    if (!HasHostPort8080(c) || c["cluster"].size() < 4) continue;
    ++shrunk;
    const json smallest = Shrink(c, HasHostPort8080, 100000);
    ASSERT_TRUE(HasHostPort8080(smallest)) << "seed " << seed;
    const std::vector<json> pods = OfKind(smallest, "Pod");
    ASSERT_EQ(pods.size(), 1u) << "seed " << seed << ": " << smallest.dump();
    const json& spec = pods[0]["spec"];
    EXPECT_EQ(spec.size(), spec.contains("nodeName") ? 2u : 1u) << spec.dump();
    ASSERT_EQ(spec["containers"].size(), 1u) << spec.dump();
    EXPECT_EQ(spec["containers"][0]["ports"].size(), 1u) << spec.dump();
    EXPECT_FALSE(spec["containers"][0].contains("resources")) << spec.dump();
    // A bound pod keeps its node, with only the hostname label; a pending one needs none.
    const std::vector<json> nodes = OfKind(smallest, "Node");
    ASSERT_EQ(nodes.size(), spec.contains("nodeName") ? 1u : 0u) << smallest.dump();
    EXPECT_EQ(smallest["cluster"].size(), 1 + nodes.size()) << smallest.dump();
    if (!nodes.empty()) {
      EXPECT_EQ(nodes[0]["metadata"]["labels"].size(), 1u) << nodes[0].dump();
      EXPECT_FALSE(nodes[0].contains("spec")) << nodes[0].dump();
    }
  }
  EXPECT_EQ(shrunk, 10);
}

TEST(ShrinkTest, StopsAfterMaxTries) {
  const json c = GenerateCase(3);
  int calls = 0;
  auto always = [&](const json&) {
    ++calls;
    return true;
  };
  EXPECT_EQ(Shrink(c, always, 0), c);
  EXPECT_EQ(calls, 0);
  const json smaller = Shrink(c, always, 5);
  EXPECT_EQ(calls, 5);
  EXPECT_LT(smaller.dump().size(), c.dump().size());
}

TEST(ShrinkTest, KeepsTheCaseWhenNothingSmallerFails) {
  const json c = GenerateCase(4);
  EXPECT_EQ(Shrink(
                c, [](const json&) { return false; }, 1000),
            c);
}

}  // namespace
}  // namespace ksched::difftest
