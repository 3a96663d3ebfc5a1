#include "test/difftest/generate.h"

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "test/difftest/case.h"
#include "test/extender/test_extender.h"

namespace ksched::difftest {
namespace {

using nlohmann::json;
using Pointer = json::json_pointer;

constexpr char kGpu[] = "example.com/gpu";
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kDriver[] = "csi.example.com";
constexpr char kNeverClass[] = "prio-never";  // A class that may not preempt.
// Containers use registry/img-0:v1 .. img-7:v1; nodes hold some of the first kNodeImages.
constexpr int kImages = 8;
constexpr int kNodeImages = 5;

// Uniform picks from std::mt19937_64, whose sequence the standard fixes, without the standard
// distributions, whose algorithms it leaves to each library.
class Rand {
 public:
  explicit Rand(uint64_t seed) : engine_(seed) {}

  // A number in [0, n), n > 0; the modulo bias (about n / 2^64) does not matter here.
  size_t Below(size_t n) { return engine_() % n; }
  int Between(int lo, int hi) { return lo + static_cast<int>(Below(hi - lo + 1)); }
  bool Percent(int p) { return static_cast<int>(Below(100)) < p; }
  template <typename T>
  T Pick(std::initializer_list<T> choices) {
    return choices.begin()[Below(choices.size())];
  }
  std::string Pick(const std::vector<std::string>& choices) {
    return choices[Below(choices.size())];
  }

 private:
  std::mt19937_64 engine_;
};

std::string ImageName(size_t k) { return "registry/img-" + std::to_string(k) + ":v1"; }

// The values that nodes take for a label that pods select on. kubernetes.io/hostname's are the
// node names and one more, which no node has.
std::vector<std::string> LabelValues(const std::string& key, int nodes) {
  if (key == "disk") return {"ssd", "hdd"};
  if (key == "tier") return {"gold", "silver"};
  if (key == "cores") return {"2", "4", "8", "16"};
  if (key == kZone) return {"zone-a", "zone-b", "zone-c"};
  std::vector<std::string> names;
  for (int i = 0; i <= nodes; ++i) names.push_back("node-" + std::to_string(i));
  return names;
}

// A DeviceClass that selects devices by one CEL expression.
json DeviceClass(const std::string& name, const std::string& expression) {
  return json{{"apiVersion", "resource.k8s.io/v1"},
              {"kind", "DeviceClass"},
              {"metadata", {{"name", name}}},
              {"spec", {{"selectors", {{{"cel", {{"expression", expression}}}}}}}}};
}

// A ResourceClaim in the default namespace, of its spec's `devices`.
json ClaimOf(const std::string& name, json devices) {
  return json{{"apiVersion", "resource.k8s.io/v1"},
              {"kind", "ResourceClaim"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"devices", std::move(devices)}}}};
}

// A ResourceSlice of generation 1 of a pool of `count` slices, without its node selection,
// devices or counters.
json SliceOf(const std::string& name, const std::string& driver, const std::string& pool,
             int count) {
  return json{{"apiVersion", "resource.k8s.io/v1"},
              {"kind", "ResourceSlice"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"driver", driver},
                {"pool", {{"name", pool}, {"generation", 1}, {"resourceSliceCount", count}}}}}};
}

// The names of the cluster's nodes, in its order.
std::vector<std::string> NodeNames(const json& cluster) {
  std::vector<std::string> out;
  for (const json& o : cluster) {
    if (o["kind"] == "Node") out.push_back(o["metadata"]["name"]);
  }
  return out;
}

bool HasNoExecuteTaint(const json& node) {
  for (const json& t : node.value(Pointer("/spec/taints"), json::array())) {
    if (t["effect"] == "NoExecute") return true;
  }
  return false;
}

// Builds the objects of one case; every random pick goes through `r_`, in a fixed order.
class CaseBuilder {
 public:
  explicit CaseBuilder(uint64_t seed) : r_(seed) {}

  json Build() {
    json cluster = json::array();
    for (int value : {10, 100, 1000}) {
      if (!r_.Percent(40)) continue;
      classes_.push_back("prio-" + std::to_string(value));
      cluster.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                         {"kind", "PriorityClass"},
                         {"metadata", {{"name", classes_.back()}}},
                         {"value", value}});
    }
    for (int k = 0; k < kNodeImages; ++k)
      image_sizes_.push_back(int64_t{r_.Between(10, 900)} << 20);
    nodes_ = r_.Between(1, 8);
    std::vector<json> bindable;  // Nodes without NoExecute taints, which would evict bound pods.
    for (int i = 0; i < nodes_; ++i) {
      cluster.push_back(Node(i));
      if (!HasNoExecuteTaint(cluster.back())) bindable.push_back(cluster.back());
    }
    int bound = bindable.empty() ? 0 : r_.Between(0, 6);
    for (int i = 0; i < bound; ++i) {
      cluster.push_back(BoundPod(i, bindable[r_.Below(bindable.size())]));
    }
    for (int i = 0, pending = r_.Between(1, 10); i < pending; ++i) cluster.push_back(PendingPod(i));
    if (r_.Percent(50)) AddStorage(&cluster);
    if (r_.Percent(40)) AddDevices(&cluster);
    const bool burst = r_.Percent(35) && AddBurst(&cluster);
    if (r_.Percent(20)) AddDeclaredFeatures(&cluster);
    // Picked last: half the cases with a burst give it at once to a profile that batches it
    // (OpportunisticBatching: PodTopologySpread without default constraints), where no pod can
    // preempt (no PriorityClass): which victims a pod of a burst given at once saw going, and
    // which of the burst's pods took them, is a race.
    batching_ = burst && classes_.empty() && r_.Percent(50);
    if (r_.Percent(25)) AddPartitions(&cluster);
    if (r_.Percent(25)) AddSharedDevices(&cluster);
    if (r_.Percent(25)) AddAttachedDevices(&cluster);
    if (r_.Percent(25)) AddExtendedResources(&cluster);
    if (r_.Percent(25)) AddTaintRules(&cluster);
    // Gangs, picked last; not with a batching profile (whether a pod group cycle batches is not
    // settled here).
    gangs_ = !batching_ && r_.Percent(20);
    if (gangs_) AddGangs(&cluster);
    // An HTTP extender (the test extender), picked after everything else.
    if (r_.Percent(25)) AddExtender(&cluster);
    return cluster;
  }

  // The case's extenders (the test extender, configured at random), or null.
  const json& extender() const { return extender_; }

  // Whether the case has PodGroups, which need --feature-gates=GenericWorkload=true.
  bool gangs() const { return gangs_; }
  bool workload_claims() const { return workload_claims_; }
  // Whether its PodGroups' preemption policies count (PodGroupPreemptionPolicy).
  bool group_preemption() const { return group_preemption_; }

  // Whether the case's burst goes at once to a profile without PodTopologySpread's default
  // constraints, where kube-scheduler batches identical pods.
  bool batching() const { return batching_; }

 private:
  using UsedPorts = std::set<std::pair<int, std::string>>;  // hostPort, protocol

  json Node(int i) {
    std::string name = "node-" + std::to_string(i);
    json labels = {{kHostname, name}, {kZone, r_.Pick({"zone-a", "zone-b", "zone-c"})}};
    if (r_.Percent(50)) labels["disk"] = r_.Pick({"ssd", "hdd"});
    if (r_.Percent(40)) labels["tier"] = r_.Pick({"gold", "silver"});
    if (r_.Percent(40)) labels["cores"] = r_.Pick(LabelValues("cores", nodes_));
    json resources = {{"cpu", r_.Pick({"1", "2", "4", "8", "500m", "3500m"})},
                      {"memory", r_.Pick({"1Gi", "2Gi", "4Gi", "8Gi", "16Gi", "1500Mi"})},
                      {"pods", r_.Pick({"3", "10", "110"})}};
    if (r_.Percent(25)) resources[kGpu] = r_.Pick({"1", "2", "4"});
    json ready = {{"type", "Ready"}, {"status", "True"}};
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", name}, {"labels", labels}}},
                 {"status",
                  {{"allocatable", resources},
                   {"capacity", resources},
                   {"conditions", json::array({ready})}}}};
    if (r_.Percent(30)) {
      std::set<std::pair<std::string, std::string>> keys_and_effects;  // Must be unique.
      for (int n = r_.Between(1, 2); n > 0; --n) {
        std::string key = r_.Pick({"dedicated", "gpu", "spot"});
        std::string effect = r_.Pick({"NoSchedule", "PreferNoSchedule", "NoExecute"});
        std::string value = r_.Pick({"a", "b"});
        if (!keys_and_effects.insert({key, effect}).second) continue;
        node["spec"]["taints"].push_back({{"key", key}, {"value", value}, {"effect", effect}});
      }
    }
    if (r_.Percent(8)) node["spec"]["unschedulable"] = true;
    for (int k = 0; k < kNodeImages; ++k) {
      if (!r_.Percent(30)) continue;
      json image = {{"names", json::array({ImageName(k)})}, {"sizeBytes", image_sizes_[k]}};
      node["status"]["images"].push_back(image);
    }
    return node;
  }

  json Pod(const std::string& name, json spec) {
    json metadata = {{"name", name}, {"namespace", "default"}};
    if (r_.Percent(70)) metadata["labels"]["app"] = r_.Pick({"web", "db", "cache"});
    if (r_.Percent(30)) metadata["labels"]["tier"] = r_.Pick({"front", "back"});
    return {
        {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", std::move(spec)}};
  }

  // A podAffinity or podAntiAffinity term over the labels Pod() gives.
  json PodAffinityTerm() {
    json term = {{"topologyKey", r_.Percent(50) ? kHostname : kZone}};
    if (r_.Percent(70)) {
      term["labelSelector"]["matchLabels"]["app"] = r_.Pick({"web", "db", "cache"});
    } else {
      json requirement = {{"key", r_.Pick({"app", "tier"})},
                          {"operator", r_.Pick({"In", "NotIn", "Exists"})}};
      if (requirement["operator"] != "Exists") {
        requirement["values"] = json::array({r_.Pick({"web", "db", "front"})});
      }
      term["labelSelector"]["matchExpressions"].push_back(requirement);
    }
    if (r_.Percent(10)) term["namespaceSelector"] = json::object();  // Every namespace.
    return term;
  }

  // A topology spread constraint over the labels Pod() gives.
  json Spread() {
    json c = {{"maxSkew", r_.Between(1, 2)},
              {"topologyKey", r_.Percent(60) ? kZone : kHostname},
              {"whenUnsatisfiable", r_.Percent(50) ? "DoNotSchedule" : "ScheduleAnyway"},
              {"labelSelector", {{"matchLabels", {{"app", r_.Pick({"web", "db", "cache"})}}}}}};
    if (c["whenUnsatisfiable"] == "DoNotSchedule" && r_.Percent(20))
      c["minDomains"] = r_.Between(2, 4);
    if (r_.Percent(15)) c["nodeAffinityPolicy"] = r_.Pick({"Honor", "Ignore"});
    if (r_.Percent(15)) c["nodeTaintsPolicy"] = r_.Pick({"Honor", "Ignore"});
    return c;
  }

  // Pod affinity and anti-affinity, required and preferred, each with probability `percent`.
  void AddPodAffinity(json* spec, int percent) {
    for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
      json a = json::object();
      if (r_.Percent(kind == std::string("podAffinity") ? percent / 2 : percent)) {
        a["requiredDuringSchedulingIgnoredDuringExecution"].push_back(PodAffinityTerm());
      }
      if (r_.Percent(percent)) {
        json preferred = {{"weight", r_.Between(1, 100)}, {"podAffinityTerm", PodAffinityTerm()}};
        a["preferredDuringSchedulingIgnoredDuringExecution"].push_back(preferred);
      }
      if (!a.empty()) (*spec)["affinity"][kind] = a;
    }
  }

  json Container(const std::string& name, bool with_requests) {
    json c = {{"name", name}, {"image", ImageName(r_.Below(kImages))}};
    if (!with_requests) return c;
    json requests = json::object();
    if (r_.Percent(80)) requests["cpu"] = r_.Pick({"100m", "250m", "500m", "1", "1500m", "3"});
    if (r_.Percent(70)) {
      requests["memory"] = r_.Pick({"64Mi", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"});
    }
    if (!requests.empty()) c["resources"]["requests"] = requests;
    return c;
  }

  // The API server requires an extended resource's limit to equal its request.
  void AddGpu(json* container) {
    std::string n = r_.Pick({"1", "2"});
    (*container)["resources"]["requests"][kGpu] = n;
    (*container)["resources"]["limits"][kGpu] = n;
  }

  // Adds one or two host ports whose hostPort and protocol are not yet in `used`.
  void AddHostPorts(json* container, UsedPorts* used) {
    for (int n = r_.Between(1, 2); n > 0; --n) {
      int port = r_.Pick({8080, 8081, 9090});
      std::string protocol = r_.Percent(20) ? "UDP" : "TCP";
      if (!used->insert({port, protocol}).second) continue;
      json p = {{"containerPort", port}, {"hostPort", port}, {"protocol", protocol}};
      (*container)["ports"].push_back(p);
    }
  }

  json BoundPod(int i, const json& node) {
    const std::string& node_name = node["metadata"]["name"].get_ref<const std::string&>();
    json c = Container("c0", true);
    if (node["status"]["allocatable"].contains(kGpu) && r_.Percent(30)) AddGpu(&c);
    if (r_.Percent(25)) AddHostPorts(&c, &node_ports_[node_name]);
    json spec = {{"nodeName", node_name}, {"containers", json::array({c})}};
    AddPodAffinity(&spec, 10);
    json pod = Pod("running-" + std::to_string(i), std::move(spec));
    // A second apart, so that preemption's last criterion, the victims' start time, decides
    // between two nodes, rather than kube-scheduler's random pick among candidates that tie.
    pod["status"]["startTime"] = fmt::format("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60);
    return pod;
  }

  json PendingPod(int i) {
    json spec = {{"containers", json::array()}};
    for (int k = 0, n = r_.Between(1, 2); k < n; ++k) {
      spec["containers"].push_back(Container("c" + std::to_string(k), r_.Percent(85)));
    }
    if (r_.Percent(15)) AddGpu(&spec["containers"][0]);
    if (r_.Percent(25)) {
      UsedPorts used;
      AddHostPorts(&spec["containers"][r_.Below(spec["containers"].size())], &used);
    }
    if (r_.Percent(20)) {
      for (int k = 0, n = r_.Between(1, 2); k < n; ++k) {
        json c = Container("init-" + std::to_string(k), true);
        if (r_.Percent(40)) c["restartPolicy"] = "Always";  // A sidecar.
        spec["initContainers"].push_back(c);
      }
    }
    if (r_.Percent(25)) {
      std::string key = r_.Pick({"disk", "tier", kZone});
      spec["nodeSelector"][key] = r_.Pick(LabelValues(key, nodes_));
    }
    json& node_affinity = spec["affinity"]["nodeAffinity"];
    if (r_.Percent(25)) {
      for (int n = r_.Between(1, 2); n > 0; --n) {
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            .push_back(Term());
      }
    }
    if (r_.Percent(25)) {
      for (int n = r_.Between(1, 2); n > 0; --n) {
        json preferred = {{"weight", r_.Between(1, 100)}, {"preference", Term()}};
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"].push_back(preferred);
      }
    }
    if (node_affinity.is_null()) spec["affinity"].erase("nodeAffinity");
    AddPodAffinity(&spec, 15);
    if (r_.Percent(15)) {
      // The API server refuses two constraints with the same topologyKey and whenUnsatisfiable.
      std::set<std::pair<std::string, std::string>> keys;
      for (int n = r_.Between(1, 2); n > 0; --n) {
        json c = Spread();
        if (keys.insert({c["topologyKey"].get<std::string>(),
                         c["whenUnsatisfiable"].get<std::string>()})
                .second) {
          spec["topologySpreadConstraints"].push_back(std::move(c));
        }
      }
    }
    if (spec["affinity"].empty()) spec.erase("affinity");
    if (r_.Percent(30)) {
      for (int n = r_.Between(1, 2); n > 0; --n) spec["tolerations"].push_back(Toleration());
    }
    if (!classes_.empty() && r_.Percent(40)) spec["priorityClassName"] = r_.Pick(classes_);
    return Pod("pod-" + std::to_string(i), std::move(spec));
  }

  json Term() {
    json term;
    for (int n = r_.Between(1, 2); n > 0; --n) {
      std::string key = r_.Pick({"disk", "tier", "cores", kZone, kHostname});
      std::string op = key == "cores"
                           ? r_.Pick({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
                           : r_.Pick({"In", "NotIn", "Exists", "DoesNotExist"});
      json requirement = {{"key", key}, {"operator", op}};
      if (op == "Gt" || op == "Lt") {
        requirement["values"] = json::array({r_.Pick({"1", "3", "4", "8", "12"})});
      } else if (op == "In" || op == "NotIn") {
        std::vector<std::string> values = LabelValues(key, nodes_);
        size_t first = r_.Below(values.size());
        requirement["values"] = json::array({values[first]});
        if (r_.Percent(40)) {
          requirement["values"].push_back(
              values[(first + 1 + r_.Below(values.size() - 1)) % values.size()]);
        }
      }
      term["matchExpressions"].push_back(requirement);
    }
    return term;
  }

  json Toleration() {
    if (r_.Percent(5)) return {{"operator", "Exists"}};  // No key: tolerates every taint.
    json t = {{"key", r_.Pick({"dedicated", "gpu", "spot"})}};
    if (r_.Percent(50)) {
      t["operator"] = "Equal";
      t["value"] = r_.Pick({"a", "b"});
    } else {
      t["operator"] = "Exists";
    }
    if (r_.Percent(60)) t["effect"] = r_.Pick({"NoSchedule", "PreferNoSchedule", "NoExecute"});
    return t;
  }

  // Storage, picked after everything else so that a seed's other objects stay as they were:
  // three classes (static local PVs and CSI provisioning, both WaitForFirstConsumer; static PVs
  // bound at once), CSINodes with the driver's limit, local PVs on nodes, zonal PVs for the
  // Immediate class, and claims for some pods: bound to a zonal or CSI PV (the running pods'
  // only kind), waiting for a local PV or a provisioner, Immediate, shared with an earlier pod
  // (ReadWriteOncePod at times), or missing.
  void AddStorage(json* cluster) {
    std::vector<json> nodes;
    for (const json& o : *cluster) {
      if (o["kind"] == "Node") nodes.push_back(o);
    }
    auto zone_of = [&](size_t i) { return nodes[i]["metadata"]["labels"][kZone]; };
    auto storage_class = [](const std::string& name, const std::string& provisioner,
                            const std::string& mode) {
      return json{{"apiVersion", "storage.k8s.io/v1"},
                  {"kind", "StorageClass"},
                  {"metadata", {{"name", name}}},
                  {"provisioner", provisioner},
                  {"volumeBindingMode", mode}};
    };
    cluster->push_back(
        storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
    json csi = storage_class("csi", kDriver, "WaitForFirstConsumer");
    if (r_.Percent(30)) {
      csi["allowedTopologies"] = {
          {{"matchLabelExpressions",
            {{{"key", kZone}, {"values", {r_.Pick(LabelValues(kZone, 0))}}}}}}};
    }
    cluster->push_back(csi);
    cluster->push_back(storage_class("immediate", "kubernetes.io/no-provisioner", "Immediate"));
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!r_.Percent(60)) continue;
      json driver = {
          {"name", kDriver}, {"nodeID", nodes[i]["metadata"]["name"]}, {"topologyKeys", {kZone}}};
      if (r_.Percent(70)) driver["allocatable"]["count"] = r_.Between(0, 3);
      cluster->push_back({{"apiVersion", "storage.k8s.io/v1"},
                          {"kind", "CSINode"},
                          {"metadata", {{"name", nodes[i]["metadata"]["name"]}}},
                          {"spec", {{"drivers", {driver}}}}});
    }
    int volumes = 0;
    auto volume = [&](const std::string& cls, json affinity_term) {
      json pv = {{"apiVersion", "v1"},
                 {"kind", "PersistentVolume"},
                 {"metadata", {{"name", fmt::format("pv-{}", volumes++)}}},
                 {"spec",
                  {{"capacity", {{"storage", r_.Pick({"10Gi", "50Gi"})}}},
                   {"accessModes", {r_.Percent(20) ? "ReadWriteOncePod" : "ReadWriteOnce"}},
                   {"storageClassName", cls}}}};
      if (!affinity_term.is_null()) {
        pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] = {
            {{"matchExpressions", {affinity_term}}}};
      }
      return pv;
    };
    for (int n = r_.Between(0, static_cast<int>(nodes.size())); n > 0; --n) {
      const json node = nodes[r_.Below(nodes.size())]["metadata"]["name"];
      json pv = volume("local", {{"key", kHostname}, {"operator", "In"}, {"values", {node}}});
      pv["spec"]["local"]["path"] = "/mnt/disk";
      cluster->push_back(pv);
    }
    for (int n = r_.Between(0, 2); n > 0; --n) {
      json pv = volume(
          "immediate",
          {{"key", kZone}, {"operator", "In"}, {"values", {zone_of(r_.Below(nodes.size()))}}});
      pv["spec"]["csi"] = {{"driver", kDriver}, {"volumeHandle", pv["metadata"]["name"]}};
      cluster->push_back(pv);
    }
    std::vector<json> claims;         // The claims made so far, for pods that share one.
    std::vector<json> bound_volumes;  // Their PVs, added once the loop over `cluster` is done.
    auto claim = [&](const std::string& name, const std::string& cls, json access_modes) {
      claims.push_back(
          {{"apiVersion", "v1"},
           {"kind", "PersistentVolumeClaim"},
           {"metadata", {{"name", name}, {"namespace", "default"}}},
           {"spec",
            {{"accessModes", std::move(access_modes)},
             {"storageClassName", cls},
             {"resources", {{"requests", {{"storage", r_.Pick({"5Gi", "20Gi"})}}}}}}}});
      return &claims.back();
    };
    // A claim bound to a PV of its own: a CSI volume (counted against the node's limit) in one
    // zone by node affinity or by the zone label VolumeZone reads, or anywhere.
    auto bound_claim = [&](const std::string& name) {
      json* c = claim(name, "csi", {r_.Percent(25) ? "ReadWriteOncePod" : "ReadWriteOnce"});
      json pv = volume("csi", json());
      pv["spec"]["capacity"]["storage"] = "50Gi";
      pv["spec"]["accessModes"] = (*c)["spec"]["accessModes"];
      pv["spec"]["csi"] = {{"driver", kDriver}, {"volumeHandle", pv["metadata"]["name"]}};
      const json zone = zone_of(r_.Below(nodes.size()));
      const int where = static_cast<int>(r_.Below(3));
      if (where == 0) {
        pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] = {
            {{"matchExpressions", {{{"key", kZone}, {"operator", "In"}, {"values", {zone}}}}}}};
      } else if (where == 1) {
        pv["metadata"]["labels"][kZone] = zone;
      }
      pv["spec"]["claimRef"] = {{"namespace", "default"}, {"name", name}};
      (*c)["spec"]["volumeName"] = pv["metadata"]["name"];
      bound_volumes.push_back(pv);
    };
    int made = 0;
    for (json& o : *cluster) {
      if (o["kind"] != "Pod") continue;
      const bool running = o["spec"].contains("nodeName");
      if (!r_.Percent(running ? 30 : 45)) continue;
      for (int k = 0, n = r_.Between(1, 2); k < n; ++k) {
        std::string name = fmt::format("claim-{}", made++);
        const int kind = running ? 0 : static_cast<int>(r_.Below(10));
        if (kind <= 2) {
          bound_claim(name);
        } else if (kind <= 4) {
          claim(name, "local", {r_.Percent(15) ? "ReadWriteOncePod" : "ReadWriteOnce"});
        } else if (kind <= 6) {
          claim(name, "csi", {"ReadWriteOnce"});
        } else if (kind == 7) {
          claim(name, "immediate", {"ReadWriteOnce"});
        } else if (kind == 8 && !claims.empty()) {
          name = claims[r_.Below(claims.size())]["metadata"]["name"];
        } else {
          name = "missing-" + name;
        }
        const json v = {{"name", fmt::format("v{}", k)},
                        {"persistentVolumeClaim", {{"claimName", name}}}};
        bool twice = false;  // A pod names each claim once.
        for (const json& have : o["spec"].value("volumes", json::array())) {
          twice |= have["persistentVolumeClaim"]["claimName"] == name;
        }
        if (!twice) o["spec"]["volumes"].push_back(v);
      }
    }
    for (auto* list : {&bound_volumes, &claims}) {
      for (json& o : *list) cluster->push_back(std::move(o));
    }
  }

  // One or two pod groups (scheduling.k8s.io/v1beta1) and their pending pods, two to five alike
  // but for their names: a gang of all its pods, of fewer (the rest placed as they fit), or of one
  // more than it has (it waits at PreEnqueue), or a basic group at times; the pods ask for up to 2
  // CPUs, at times on nodes of one zone or each on a node of its own (anti-affinity within the
  // group, so that a gang larger than the cluster cannot be placed), and the group and its pods
  // name a PriorityClass at times, so that they may need to preempt.
  void AddGangs(json* cluster) {
    std::vector<std::pair<size_t, size_t>> groups_at;  // Where each group and its pods begin.
    for (int g = 0, groups = r_.Between(1, 2); g < groups; ++g) {
      const std::string name = std::string("gang-") + static_cast<char>('a' + g);
      const int n = r_.Between(2, 5);
      json group = {{"apiVersion", "scheduling.k8s.io/v1beta1"},
                    {"kind", "PodGroup"},
                    {"metadata", {{"name", name}, {"namespace", "default"}}},
                    {"spec", {{"schedulingPolicy", {{"basic", json::object()}}}}}};
      if (!r_.Percent(15)) {
        const int kind = static_cast<int>(r_.Below(100));
        const int min = kind < 50 ? n : kind < 85 ? r_.Between(1, n - 1) : n + 1;
        group["spec"]["schedulingPolicy"] = {{"gang", {{"minCount", min}}}};
      }
      json c = {{"name", "c0"},
                {"image", ImageName(r_.Below(kImages))},
                {"resources",
                 {{"requests",
                   {{"cpu", r_.Pick({"100m", "500m", "1", "2"})},
                    {"memory", r_.Pick({"128Mi", "1Gi", "2Gi"})}}}}}};
      json spec = {{"schedulingGroup", {{"podGroupName", name}}}, {"containers", json::array({c})}};
      if (r_.Percent(20)) spec["nodeSelector"][kZone] = r_.Pick({"zone-a", "zone-b", "zone-c"});
      if (r_.Percent(30)) {
        spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
            {{"topologyKey", kHostname}, {"labelSelector", {{"matchLabels", {{"gang", name}}}}}}};
      }
      if (!classes_.empty() && r_.Percent(50)) {
        const std::string cls = r_.Pick(classes_);
        spec["priorityClassName"] = cls;
        group["spec"]["priorityClassName"] = cls;
      }
      groups_at.emplace_back(cluster->size(), cluster->size() + 1);
      cluster->push_back(group);
      for (int k = 0; k < n; ++k) {
        cluster->push_back({{"apiVersion", "v1"},
                            {"kind", "Pod"},
                            {"metadata",
                             {{"name", fmt::format("{}-{}", name, k)},
                              {"namespace", "default"},
                              {"labels", {{"gang", name}}}}},
                            {"spec", spec}});
      }
    }
    // Picked after the groups, so that a seed's groups stay as they were.
    group_preemption_ = r_.Percent(40);
    if (group_preemption_) AddGroupPreemptionPolicies(cluster, groups_at);
    if (HasGpus(*cluster)) AddGroupClaims(cluster, groups_at);
  }

  static bool HasGpus(const json& cluster) {
    return std::any_of(cluster.begin(), cluster.end(), [](const json& o) {
      return o["kind"] == "DeviceClass" && o["metadata"]["name"] == "gpu";
    });
  }

  // A GPU the pods of a whole gang share: a claim each of them names, which the first pod of the
  // group's cycle allocates and the next share; or (DRAWorkloadResourceClaims) a claim the group
  // names in its spec.resourceClaims too, with the entry its pods give, so that it is reserved
  // for the group; one pod at times names it under another entry. Not in a group that may be
  // placed in part: the pods it leaves are tried again at once, while the claim's allocation may
  // or may not be written yet, which words their message either way on either scheduler. (A claim
  // made from a template would need the harness to follow the resourceclaim controller's names.)
  void AddGroupClaims(json* cluster, const std::vector<std::pair<size_t, size_t>>& groups_at) {
    for (auto [group_at, pods_at] : groups_at) {
      json& group = (*cluster)[group_at];
      const std::string name = group["metadata"]["name"];
      int pods = 0;
      for (size_t i = pods_at;
           i < cluster->size() && PodGroupOf((*cluster)[i]) == "default/" + name; ++i) {
        ++pods;
      }
      if (group["spec"].value(json::json_pointer("/schedulingPolicy/gang/minCount"), 0) != pods ||
          r_.Percent(30)) {
        continue;
      }
      const std::string claim = name + "-gpu";
      const json entry = {{"name", "gpu"}, {"resourceClaimName", claim}};
      int other = -1;  // The pod of another entry.
      if (r_.Percent(50)) {
        workload_claims_ = true;
        group["spec"]["resourceClaims"] = {entry};
        if (r_.Percent(50)) other = 0;
      }
      for (size_t i = pods_at;
           i < cluster->size() && PodGroupOf((*cluster)[i]) == "default/" + name; ++i) {
        json e = entry;
        if (static_cast<int>(i - pods_at) == other) e["name"] = "gpu2";
        json& pod = (*cluster)[i]["spec"];
        pod["resourceClaims"] = {e};
        pod["containers"][0]["resources"]["claims"] = {{{"name", e["name"]}}};
      }
      cluster->push_back(
          {{"apiVersion", "resource.k8s.io/v1"},
           {"kind", "ResourceClaim"},
           {"metadata", {{"name", claim}, {"namespace", "default"}}},
           {"spec",
            {{"devices",
              {{"requests", {{{"name", "gpu"}, {"exactly", {{"deviceClassName", "gpu"}}}}}}}}}}});
    }
  }

  // PodGroupPreemptionPolicy: a class of priority 500 that may not preempt; a group of it says
  // Never (the API server refuses it otherwise) and so do its pods, which may then not preempt
  // even where they could; a group may say its default, PreemptLowerPriority, out loud; or its
  // pods alone are of the class, which the group cycle refuses (its pods must share its policy).
  void AddGroupPreemptionPolicies(json* cluster,
                                  const std::vector<std::pair<size_t, size_t>>& groups_at) {
    for (auto [group_at, pods_at] : groups_at) {
      json& group = (*cluster)[group_at];
      const int kind = static_cast<int>(r_.Below(100));
      if (kind >= 70) continue;
      if (kind < 15 && group["spec"].contains("priorityClassName")) continue;
      if (kind < 15) {
        group["spec"]["preemptionPolicy"] = "PreemptLowerPriority";
        continue;
      }
      if (kind < 55) {
        group["spec"]["priorityClassName"] = kNeverClass;
        group["spec"]["preemptionPolicy"] = "Never";
      }
      const std::string name = group["metadata"]["name"];
      for (size_t i = pods_at;
           i < cluster->size() && PodGroupOf((*cluster)[i]) == "default/" + name; ++i) {
        (*cluster)[i]["spec"]["priorityClassName"] = kNeverClass;
      }
    }
    cluster->push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                        {"kind", "PriorityClass"},
                        {"metadata", {{"name", kNeverClass}}},
                        {"value", 500},
                        {"preemptionPolicy", "Never"}});
  }

  // Dynamic resource allocation, picked after storage (so that a seed's other objects stay as
  // they were): DeviceClasses selecting by driver, memory and model; GPU slices on some nodes
  // (NUMA and model attributes, memory capacity, a NoSchedule taint at times), NIC slices, an FPGA
  // pool of every node; and claims for some pending pods: counts, a NUMA pair (matchAttribute),
  // firstAvailable lists, all of a node's NICs, a toleration, or a class that does not exist.
  void AddDevices(json* cluster) {
    cluster->push_back(DeviceClass("gpu", "device.driver == 'gpu.example.com'"));
    cluster->push_back(
        DeviceClass("big-gpu",
                    "device.driver == 'gpu.example.com' && "
                    "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"));
    cluster->push_back(DeviceClass("a100",
                                   "device.driver == 'gpu.example.com' && "
                                   "device.attributes['gpu.example.com'].model == 'a100'"));
    cluster->push_back(DeviceClass("nic", "device.driver == 'nic.example.com'"));
    cluster->push_back(DeviceClass("fpga", "device.driver == 'fpga.example.com'"));
    auto slice = [](const std::string& name, const std::string& driver, const std::string& pool,
                    json devices) {
      json s = SliceOf(name, driver, pool, 1);
      s["spec"]["devices"] = std::move(devices);
      return s;
    };
    const std::vector<std::string> node_names = NodeNames(*cluster);
    for (const std::string& node : node_names) {
      if (r_.Percent(60)) {
        json devices = json::array();
        for (int d = 0, n = r_.Between(1, 4); d < n; ++d) {
          json device = {{"name", fmt::format("gpu-{}", d)},
                         {"attributes",
                          {{"numa", {{"int", r_.Between(0, 1)}}},
                           {"model", {{"string", r_.Pick({"a100", "t4"})}}}}},
                         {"capacity", {{"memory", {{"value", r_.Pick({"16Gi", "80Gi"})}}}}}};
          if (r_.Percent(15)) {
            device["taints"] = {{{"key", "maintenance"}, {"effect", "NoSchedule"}}};
          }
          devices.push_back(std::move(device));
        }
        json s = slice(node + "-gpus", "gpu.example.com", node, std::move(devices));
        s["spec"]["nodeName"] = node;
        cluster->push_back(std::move(s));
      }
      if (r_.Percent(40)) {
        json devices = json::array();
        for (int d = 0, n = r_.Between(1, 2); d < n; ++d) {
          devices.push_back({{"name", fmt::format("eth-{}", d)}});
        }
        json s = slice(node + "-nics", "nic.example.com", node, std::move(devices));
        s["spec"]["nodeName"] = node;
        cluster->push_back(std::move(s));
      }
    }
    if (r_.Percent(40)) {
      json s = slice("fpgas", "fpga.example.com", "shared",
                     {{{"name", "fpga-0"}}, {{"name", "fpga-1"}}});
      s["spec"]["allNodes"] = true;
      cluster->push_back(std::move(s));
    }
    auto exactly = [](const std::string& name, const std::string& cls, int count) {
      return json{{"name", name}, {"exactly", {{"deviceClassName", cls}, {"count", count}}}};
    };
    ClaimsForPendingPods(cluster, 50, "devices", "devices", [&] {
      json spec = json::object();
      const int kind = static_cast<int>(r_.Below(8));
      if (kind == 0) {
        spec["requests"] = {exactly("gpu", "gpu", r_.Between(1, 2))};
      } else if (kind == 1) {
        spec["requests"] = {exactly("gpu", r_.Pick({"big-gpu", "a100"}), 1)};
      } else if (kind == 2) {
        spec["requests"] = {exactly("gpus", "gpu", 2)};
        spec["constraints"] = {{{"matchAttribute", "gpu.example.com/numa"}}};
      } else if (kind == 3) {
        spec["requests"] = {{{"name", "gpu"},
                             {"firstAvailable",
                              {{{"name", "two-big"}, {"deviceClassName", "big-gpu"}, {"count", 2}},
                               {{"name", "one"}, {"deviceClassName", "gpu"}, {"count", 1}}}}}};
      } else if (kind == 4) {
        json nics = exactly("nics", "nic", 1);
        nics["exactly"].erase("count");
        nics["exactly"]["allocationMode"] = "All";
        spec["requests"] = {nics, exactly("gpu", "gpu", 1)};
      } else if (kind == 5) {
        json gpu = exactly("gpu", "gpu", 1);
        gpu["exactly"]["tolerations"] = {
            {{"key", "maintenance"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
        spec["requests"] = {gpu};
      } else if (kind == 6) {
        spec["requests"] = {exactly("fpga", "fpga", 1)};
      } else {
        spec["requests"] = {exactly("tpu", "tpu", 1)};
      }
      return spec;
    });
  }

  // A burst of identical pods, as a ReplicaSet makes them, picked after devices (so that a seed's
  // other objects stay as they were): two to four copies of a pending pod without volumes or
  // claims, right after it, so that the queue takes them one after another. False when no pod
  // could be copied.
  bool AddBurst(json* cluster) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < cluster->size(); ++i) {
      const json& spec = (*cluster)[i].value("spec", json::object());
      if ((*cluster)[i]["kind"] == "Pod" && !spec.contains("nodeName") &&
          !spec.contains("volumes") && !spec.contains("resourceClaims")) {
        candidates.push_back(i);
      }
    }
    if (candidates.empty()) return false;
    const size_t at = candidates[r_.Below(candidates.size())];
    const json original = (*cluster)[at];
    for (int k = 1, n = r_.Between(2, 4); k <= n; ++k) {
      json copy = original;
      copy["metadata"]["name"] =
          fmt::format("{}-{}", original["metadata"]["name"].get<std::string>(), k);
      cluster->insert(cluster->begin() + static_cast<std::ptrdiff_t>(at + k), std::move(copy));
    }
    return true;
  }

  // Node declared features, picked last (so that a seed's other objects stay as they were): some
  // nodes declare RestartAllContainersOnContainerExits, and some pending pods restart all their
  // containers on an exit code, which needs it.
  void AddDeclaredFeatures(json* cluster) {
    for (json& o : *cluster) {
      const bool pending = o["kind"] == "Pod" && !o["spec"].contains("nodeName");
      if (o["kind"] == "Node" && r_.Percent(50)) {
        o["status"]["declaredFeatures"] = {"RestartAllContainersOnContainerExits"};
      } else if (pending && r_.Percent(40)) {
        json& c = o["spec"]["containers"][0];
        c["restartPolicy"] = "Never";
        c["restartPolicyRules"] = {
            {{"action", "RestartAllContainers"},
             {"exitCodes", {{"operator", "In"}, {"values", {r_.Between(1, 255)}}}}}};
      }
    }
  }

  // Partitionable devices, picked after everything else (so that a seed's other objects stay as
  // they were): on some nodes a MIG-style GPU published as its whole, two halves and four
  // quarters, which consume the memory of one counter set (less than the whole needs, at times)
  // published in a slice of their pool of its own; at times FPGAs on some nodes that share a
  // rack's power, one counter set of a pool that spans those nodes, published for all nodes; and
  // claims for some pending pods without one: a whole GPU, a half, one or two quarters, any one
  // or two partitions, a whole else a half (firstAvailable), or an FPGA. A case whose burst is
  // given at once gets no claims: the order in which its pods take devices would be a race.
  void AddPartitions(json* cluster) {
    for (const char* profile : {"whole", "half", "quarter"}) {
      cluster->push_back(
          DeviceClass(fmt::format("mig-{}", profile),
                      fmt::format("device.driver == 'mig.example.com' && "
                                  "device.attributes['mig.example.com'].profile == '{}'",
                                  profile)));
    }
    cluster->push_back(DeviceClass("mig", "device.driver == 'mig.example.com'"));
    cluster->push_back(DeviceClass("rack-fpga", "device.driver == 'rack.example.com'"));
    auto consumes = [](const std::string& set, const std::string& counter,
                       const std::string& value) {
      return json{{{"counterSet", set}, {"counters", {{counter, {{"value", value}}}}}}};
    };
    const std::vector<std::string> node_names = NodeNames(*cluster);
    std::vector<std::string> fpga_nodes;
    for (const std::string& node : node_names) {
      if (r_.Percent(50)) {
        json devices = json::array();
        auto add = [&](const std::string& name, const char* profile, const char* memory) {
          devices.push_back({{"name", name},
                             {"attributes", {{"profile", {{"string", profile}}}}},
                             {"consumesCounters", consumes("gpu-0", "memory", memory)}});
        };
        const bool whole_first = r_.Percent(50);
        if (whole_first) add("whole", "whole", "40Gi");
        for (int h = 0; h < 2; ++h) add(fmt::format("half-{}", h), "half", "20Gi");
        for (int q = 0; q < 4; ++q) add(fmt::format("quarter-{}", q), "quarter", "10Gi");
        if (!whole_first) add("whole", "whole", "40Gi");
        // The counters' slice sorts first or last in its pool.
        const bool counters_first = r_.Percent(50);
        json counters = SliceOf(node + (counters_first ? "-mig-a" : "-mig-b"), "mig.example.com",
                                node + "-mig", 2);
        counters["spec"]["nodeName"] = node;
        counters["spec"]["sharedCounters"] = {
            {{"name", "gpu-0"},
             {"counters", {{"memory", {{"value", r_.Percent(15) ? "30Gi" : "40Gi"}}}}}}};
        json parts = SliceOf(node + (counters_first ? "-mig-b" : "-mig-a"), "mig.example.com",
                             node + "-mig", 2);
        parts["spec"]["nodeName"] = node;
        parts["spec"]["devices"] = std::move(devices);
        cluster->push_back(std::move(counters));
        cluster->push_back(std::move(parts));
      }
      if (r_.Percent(40)) fpga_nodes.push_back(node);
    }
    const bool rack = !fpga_nodes.empty() && r_.Percent(50);
    if (rack) {
      const int count = static_cast<int>(fpga_nodes.size()) + 1;
      json power = SliceOf("rack-power", "rack.example.com", "rack", count);
      power["spec"]["allNodes"] = true;
      power["spec"]["sharedCounters"] = {
          {{"name", "power"},
           {"counters", {{"watts", {{"value", std::to_string(100 * r_.Between(4, 10))}}}}}}};
      cluster->push_back(std::move(power));
      for (const std::string& node : fpga_nodes) {
        json devices = json::array();
        for (int d = 0, n = r_.Between(1, 2); d < n; ++d) {
          devices.push_back(
              {{"name", fmt::format("{}-fpga-{}", node, d)},
               {"consumesCounters", consumes("power", "watts", r_.Pick({"200", "300", "500"}))}});
        }
        json s = SliceOf(node + "-fpgas", "rack.example.com", "rack", count);
        s["spec"]["nodeName"] = node;
        s["spec"]["devices"] = std::move(devices);
        cluster->push_back(std::move(s));
      }
    }
    if (batching_) return;
    auto exactly = [](const std::string& cls, int count) {
      return json{{"name", "part"}, {"exactly", {{"deviceClassName", cls}, {"count", count}}}};
    };
    ClaimsForPendingPods(cluster, 40, "parts", "part", [&] {
      json request;
      switch (r_.Below(rack ? 7 : 6)) {
        case 0:
          request = exactly("mig-whole", 1);
          break;
        case 1:
          request = exactly("mig-half", 1);
          break;
        case 2:
          request = exactly("mig-quarter", r_.Between(1, 2));
          break;
        case 3:
          request = exactly("mig", r_.Between(1, 2));
          break;
        case 4:
          request = exactly("mig-half", 2);
          break;
        case 5:
          request = {{"name", "part"},
                     {"firstAvailable",
                      {{{"name", "whole"}, {"deviceClassName", "mig-whole"}},
                       {{"name", "half"}, {"deviceClassName", "mig-half"}}}}};
          break;
        default:
          request = exactly("rack-fpga", 1);
      }
      return json{{"requests", {std::move(request)}}};
    });
  }

  // Consumable capacity, picked after partitions (so that a seed's other objects stay as they
  // were): on some nodes one or two NICs that allow multiple allocations of their bandwidth, with
  // no policy, a range of whole gigabits or a list of valid values; and claims for some pending
  // pods without one: some bandwidth or none, or two NICs of distinct ports. A case whose burst is
  // given at once gets no claims, as in AddPartitions.
  void AddSharedDevices(json* cluster) {
    cluster->push_back(DeviceClass("shared-nic", "device.driver == 'snic.example.com'"));
    const std::vector<std::string> node_names = NodeNames(*cluster);
    for (const std::string& node : node_names) {
      if (!r_.Percent(60)) continue;
      json devices = json::array();
      for (int d = 0, n = r_.Between(1, 2); d < n; ++d) {
        json bandwidth = {{"value", r_.Pick({"4G", "10G"})}};
        const int policy = static_cast<int>(r_.Below(3));
        if (policy == 1) {
          bandwidth["requestPolicy"] = {{"default", "1G"},
                                        {"validRange", {{"min", "1G"}, {"step", "1G"}}}};
        } else if (policy == 2) {
          bandwidth["requestPolicy"] = {{"default", "1G"}, {"validValues", {"1G", "2G", "4G"}}};
        }
        devices.push_back({{"name", fmt::format("eth{}", d)},
                           {"allowMultipleAllocations", true},
                           {"attributes", {{"port", {{"int", d}}}}},
                           {"capacity", {{"bandwidth", std::move(bandwidth)}}}});
      }
      json s = SliceOf(node + "-snics", "snic.example.com", node + "-snic", 1);
      s["spec"]["nodeName"] = node;
      s["spec"]["devices"] = std::move(devices);
      cluster->push_back(std::move(s));
    }
    if (batching_) return;
    auto request = [&](const std::string& name) {
      json r = {{"name", name}, {"exactly", {{"deviceClassName", "shared-nic"}}}};
      if (const std::string bw = r_.Pick({"", "500M", "1G", "2500M", "4G", "6G"}); !bw.empty()) {
        r["exactly"]["capacity"] = {{"requests", {{"bandwidth", bw}}}};
      }
      return r;
    };
    ClaimsForPendingPods(cluster, 40, "shares", "nic", [&] {
      json devices = {{"requests", {request("nic")}}};
      if (r_.Percent(25)) {
        devices["requests"].push_back(request("second"));
        devices["constraints"] = {{{"distinctAttribute", "snic.example.com/port"}}};
      }
      return devices;
    });
  }

  // Devices that a controller attaches before the pod binds (binding conditions), picked after
  // shared devices (so that a seed's other objects stay as they were): on some nodes one or two
  // accelerators that wait for "attached" (and fail on "failed", which the harness never sets),
  // in a pool named to sort first or last, beside a plain one at times; at times two accelerators
  // of a fabric that every node reaches, which bind to the node they are used on (bindsToNode);
  // and claims for some pending pods without one: one accelerator, or two. The harness attaches
  // an allocated device at once, as a driver's controller would. A case whose burst is given at
  // once gets no claims, as in AddPartitions.
  void AddAttachedDevices(json* cluster) {
    cluster->push_back(DeviceClass("xpu", "device.driver == 'xpu.example.com'"));
    auto attached = [](const std::string& name) {
      return json{{"name", name},
                  {"bindingConditions", {"attached"}},
                  {"bindingFailureConditions", {"failed"}}};
    };
    const std::vector<std::string> node_names = NodeNames(*cluster);
    for (const std::string& node : node_names) {
      if (!r_.Percent(50)) continue;
      json devices = json::array();
      for (int d = 0, n = r_.Between(1, 2); d < n; ++d) {
        devices.push_back(attached(fmt::format("xpu-{}", d)));
      }
      const std::string pool = (r_.Percent(50) ? "a-" : "z-") + node;
      json s = SliceOf(node + "-xpus", "xpu.example.com", pool, 1);
      s["spec"]["nodeName"] = node;
      s["spec"]["devices"] = std::move(devices);
      cluster->push_back(std::move(s));
      if (r_.Percent(40)) {
        json plain = SliceOf(node + "-xpu-plain", "xpu.example.com", "m-" + node, 1);
        plain["spec"]["nodeName"] = node;
        plain["spec"]["devices"] = {{{"name", "xpu-plain"}}};
        cluster->push_back(std::move(plain));
      }
    }
    if (r_.Percent(40)) {
      json fabric = SliceOf("fabric-xpus", "xpu.example.com", "fabric", 1);
      fabric["spec"]["allNodes"] = true;
      for (int d = 0; d < 2; ++d) {
        json device = attached(fmt::format("fabric-{}", d));
        device["bindsToNode"] = true;
        fabric["spec"]["devices"].push_back(std::move(device));
      }
      cluster->push_back(std::move(fabric));
    }
    if (batching_) return;
    ClaimsForPendingPods(cluster, 40, "attached", "xpu", [&] {
      json request = {{"name", "xpu"}, {"exactly", {{"deviceClassName", "xpu"}}}};
      if (r_.Percent(25)) request["exactly"]["count"] = 2;
      return json{{"requests", {std::move(request)}}};
    });
  }

  // Extended resources backed by devices, picked after devices with binding conditions (so that
  // a seed's other objects stay as they were): a DeviceClass backing example.com/gpu, the name
  // the device plugins of some nodes advertise, whose devices some nodes publish (one or two, in
  // a slice of their own); at times a class that pods ask for by its implicit name, with devices
  // on some nodes; and some pending pods without claims ask for example.com/gpu (or the implicit
  // name) in their first container. Not in a case whose burst is given at once.
  void AddExtendedResources(json* cluster) {
    json gpus = DeviceClass("egpu", "device.driver == 'egpu.example.com'");
    gpus["spec"]["extendedResourceName"] = kGpu;
    cluster->push_back(std::move(gpus));
    const bool implicit = r_.Percent(40);
    if (implicit) cluster->push_back(DeviceClass("efpga", "device.driver == 'efpga.example.com'"));
    const std::vector<std::string> node_names = NodeNames(*cluster);
    for (const std::string& node : node_names) {
      auto slice = [&](const std::string& kind, int count) {
        json s = SliceOf(fmt::format("{}-e{}s", node, kind), fmt::format("e{}.example.com", kind),
                         node + "-e" + kind, 1);
        s["spec"]["nodeName"] = node;
        for (int d = 0; d < count; ++d) {
          s["spec"]["devices"].push_back({{"name", fmt::format("e{}-{}", kind, d)}});
        }
        cluster->push_back(std::move(s));
      };
      if (r_.Percent(50)) slice("gpu", r_.Between(1, 2));
      if (implicit && r_.Percent(40)) slice("fpga", 1);
    }
    // A pod with claims of its own loses its example.com/gpu: on a node whose device plugin serves
    // it, kube-scheduler v1.37.2 makes such a pod a claim without requests, and its PreBind fails
    // ("nil or empty request mappings"), every attempt; ksched binds the pod (docs/fidelity.md).
    for (json& o : *cluster) {
      if (o["kind"] != "Pod" || !o["spec"].contains("resourceClaims")) continue;
      for (json& container : o["spec"]["containers"]) {
        for (const char* part : {"requests", "limits"}) {
          if (container.contains("resources") && container["resources"].contains(part)) {
            container["resources"][part].erase(kGpu);
          }
        }
      }
    }
    if (batching_) return;
    const std::string fpga = "deviceclass.resource.kubernetes.io/efpga";
    for (json& o : *cluster) {
      if (o["kind"] != "Pod" || o["spec"].contains("nodeName") ||
          o["spec"].contains("resourceClaims") || !r_.Percent(40)) {
        continue;
      }
      json& container = o["spec"]["containers"][0];
      if (implicit && r_.Percent(30)) {
        container["resources"]["requests"][fpga] = "1";
        container["resources"]["limits"][fpga] = "1";
      } else if (!container.contains(json::json_pointer("/resources/requests/example.com~1gpu"))) {
        AddGpu(&container);
      }
    }
  }

  // Devices tainted by DeviceTaintRules, and admin access, picked after extended resources (so
  // that a seed's other objects stay as they were): on some nodes one to three devices of
  // tdev.example.com; one to three DeviceTaintRules, each selecting the driver's devices (at times
  // only one node's pool, or one device name of every pool; at times nothing, without a
  // selector) with a taint drain or broken, NoSchedule, NoExecute or None; and claims for some
  // pending pods without one: one device or two, at times tolerating drain (or every taint), at
  // times with admin access, which takes devices in use. A claim with admin access must be in a
  // namespace labelled for it: namespace admin is, and such a claim's pod moves there. A case
  // whose burst is given at once gets no claims, as in AddPartitions.
  void AddTaintRules(json* cluster) {
    cluster->push_back(DeviceClass("tdev", "device.driver == 'tdev.example.com'"));
    const std::vector<std::string> node_names = NodeNames(*cluster);
    std::vector<std::string> pools;
    for (const std::string& node : node_names) {
      if (!r_.Percent(60)) continue;
      json s = SliceOf(node + "-tdevs", "tdev.example.com", node + "-tdev", 1);
      s["spec"]["nodeName"] = node;
      for (int d = 0, n = r_.Between(1, 3); d < n; ++d) {
        s["spec"]["devices"].push_back({{"name", fmt::format("t-{}", d)}});
      }
      pools.push_back(node + "-tdev");
      cluster->push_back(std::move(s));
    }
    for (int k = 0, n = r_.Between(1, 3); k < n; ++k) {
      json rule = {{"apiVersion", "resource.k8s.io/v1"},
                   {"kind", "DeviceTaintRule"},
                   {"metadata", {{"name", fmt::format("rule-{}", k)}}},
                   {"spec",
                    {{"taint",
                      {{"key", r_.Pick({"drain", "broken"})},
                       {"effect", r_.Pick({"NoSchedule", "NoSchedule", "NoExecute", "None"})}}}}}};
      if (!r_.Percent(10)) {
        json selector = {{"driver", "tdev.example.com"}};
        if (!pools.empty() && r_.Percent(50)) selector["pool"] = pools[r_.Below(pools.size())];
        if (r_.Percent(30)) selector["device"] = fmt::format("t-{}", r_.Below(3));
        rule["spec"]["deviceSelector"] = std::move(selector);
      }
      cluster->push_back(std::move(rule));
    }
    if (batching_) return;
    bool admin = false;
    ClaimsForPendingPods(cluster, 40, "tainted", "tdev", [&] {
      json request = {{"name", "tdev"}, {"exactly", {{"deviceClassName", "tdev"}}}};
      if (r_.Percent(25)) request["exactly"]["count"] = 2;
      if (r_.Percent(40)) {
        request["exactly"]["tolerations"] = {r_.Percent(70)
                                                 ? json{{"key", "drain"}, {"operator", "Exists"}}
                                                 : json{{"operator", "Exists"}}};
      }
      if (r_.Percent(25)) {
        request["exactly"]["adminAccess"] = true;
        admin = true;
      }
      return json{{"requests", {std::move(request)}}};
    });
    if (!admin) return;
    // The claims with admin access move with their pods, unless the pod mounts volumes (of
    // default's claims): those claims lose their admin access instead.
    const json::json_pointer admin_access("/spec/devices/requests/0/exactly/adminAccess");
    std::set<std::string> with_admin, moved;
    for (const json& o : *cluster) {
      if (o["kind"] == "ResourceClaim" && o.contains(admin_access)) {
        with_admin.insert(o["metadata"]["name"]);
      }
    }
    for (json& o : *cluster) {
      if (o["kind"] != "Pod" || !o["spec"].contains("resourceClaims")) continue;
      const std::string claim = o["spec"]["resourceClaims"][0].value("resourceClaimName", "");
      if (with_admin.contains(claim) && !o["spec"].contains("volumes")) {
        o["metadata"]["namespace"] = "admin";
        moved.insert(claim);
      }
    }
    for (json& o : *cluster) {
      if (o["kind"] != "ResourceClaim" || !with_admin.contains(o["metadata"]["name"])) continue;
      if (moved.contains(o["metadata"]["name"])) {
        o["metadata"]["namespace"] = "admin";
      } else {
        o["spec"]["devices"]["requests"][0]["exactly"].erase("adminAccess");
      }
    }
    json ns = {
        {"apiVersion", "v1"},
        {"kind", "Namespace"},
        {"metadata",
         {{"name", "admin"}, {"labels", {{"resource.kubernetes.io/admin-access", "true"}}}}}};
    cluster->insert(cluster->begin(), std::move(ns));
  }

  // A claim for each pending pod without one, with chance `percent`: named "<prefix>-<n>", its
  // spec.devices made by `devices`, and `as` in the pod. The claims go after the pods, once the
  // loop over them is done.
  void ClaimsForPendingPods(json* cluster, int percent, const std::string& prefix,
                            const std::string& as, const std::function<json()>& devices) {
    std::vector<json> made;
    for (json& o : *cluster) {
      if (o["kind"] != "Pod" || o["spec"].contains("nodeName") ||
          o["spec"].contains("resourceClaims") || !r_.Percent(percent)) {
        continue;
      }
      const std::string name = fmt::format("{}-{}", prefix, made.size());
      made.push_back(ClaimOf(name, devices()));
      o["spec"]["resourceClaims"] = {{{"name", as}, {"resourceClaimName", name}}};
    }
    for (json& claim : made) cluster->push_back(std::move(claim));
  }

  // Nodes by name, "node-0,node-2", each of the case's nodes with probability `percent`.
  std::string SomeNodes(int percent) {
    std::vector<std::string> picked;
    for (int i = 0; i < nodes_; ++i) {
      if (r_.Percent(percent)) picked.push_back("node-" + std::to_string(i));
    }
    return absl::StrJoin(picked, ",");
  }

  // The test extender, with verbs, weight, node-cache-capability, managed resources and
  // ignorability picked at random; the pending pods' annotations tell it what to say of them.
  void AddExtender(json* cluster) {
    json e = {{"urlPrefix", testing::kTestExtenderPlaceholder}};
    if (r_.Percent(80)) e["filterVerb"] = "filter";
    if (r_.Percent(60)) {
      e["prioritizeVerb"] = "prioritize";
      e["weight"] = r_.Between(1, 5);
    }
    if (!classes_.empty() && r_.Percent(50)) e["preemptVerb"] = "preempt";
    if (r_.Percent(25)) e["bindVerb"] = "bind";
    e["nodeCacheCapable"] = r_.Percent(50);
    if (r_.Percent(30)) {
      e["managedResources"] = {{{"name", kGpu}, {"ignoredByScheduler", r_.Percent(50)}}};
    }
    if (r_.Percent(20)) e["ignorable"] = true;
    extender_ = json::array({e});
    for (json& o : *cluster) {
      if (o["kind"] != "Pod" || o["spec"].contains("nodeName")) continue;
      json& annotations = o["metadata"]["annotations"];
      if (r_.Percent(40)) annotations["test-extender/reject"] = SomeNodes(40);
      if (r_.Percent(20)) annotations["test-extender/unresolvable"] = SomeNodes(30);
      if (r_.Percent(50)) {
        std::vector<std::string> scores;
        for (int i = 0; i < nodes_; ++i) {
          if (r_.Percent(50)) scores.push_back(fmt::format("node-{}={}", i, r_.Between(0, 10)));
        }
        annotations["test-extender/scores"] = absl::StrJoin(scores, ",");
      }
      if (r_.Percent(20)) annotations["test-extender/no-preempt"] = SomeNodes(50);
      if (annotations.empty()) o["metadata"].erase("annotations");
    }
  }

  Rand r_;
  json extender_;
  bool batching_ = false;
  bool gangs_ = false;
  bool workload_claims_ = false;  // A PodGroup has claims of its own (DRAWorkloadResourceClaims).
  bool group_preemption_ = false;
  int nodes_ = 0;
  std::vector<std::string> classes_;
  std::vector<int64_t> image_sizes_;
  std::map<std::string, UsedPorts> node_ports_;  // The bound pods' host ports, by node.
};

// `o` without the value at `path` (an object member or an array element), and without the
// objects and arrays that this leaves empty, up to but not including `o` itself.
json Erased(json o, Pointer path) {
  if (!o.contains(path)) return o;
  while (!path.empty()) {
    json& parent = o[path.parent_pointer()];
    if (parent.is_array()) {
      parent.erase(std::stoul(path.back()));
    } else {
      parent.erase(path.back());
    }
    if (!parent.empty()) break;
    path = path.parent_pointer();
  }
  return o;
}

// Each element of the array at `path` in `o`, if it has more than one.
void AddElementsIfSeveral(const json& o, const Pointer& path, std::vector<Pointer>* out) {
  if (!o.contains(path) || o[path].size() < 2) return;
  for (size_t k = 0; k < o[path].size(); ++k) out->push_back(path / k);
}

// What can be removed from a pod, as paths, most aggressive first. A request of an extended
// resource goes with its limit (see PodVariants).
std::vector<Pointer> PodRemovals(const json& pod) {
  const Pointer spec("/spec");
  std::vector<Pointer> out;
  for (const char* field :
       {"affinity", "nodeSelector", "tolerations", "initContainers", "priorityClassName",
        "topologySpreadConstraints", "volumes", "resourceClaims"}) {
    if (pod["spec"].contains(field)) out.push_back(spec / field);
  }
  AddElementsIfSeveral(pod, spec / "containers", &out);
  AddElementsIfSeveral(pod, spec / "volumes", &out);
  const Pointer node_affinity = spec / "affinity" / "nodeAffinity";
  const Pointer required = node_affinity / "requiredDuringSchedulingIgnoredDuringExecution";
  const Pointer preferred = node_affinity / "preferredDuringSchedulingIgnoredDuringExecution";
  if (pod.contains(required) && pod.contains(preferred)) {
    out.push_back(required);
    out.push_back(preferred);
  }
  AddElementsIfSeveral(pod, required / "nodeSelectorTerms", &out);
  AddElementsIfSeveral(pod, preferred, &out);
  for (size_t k = 0; pod.contains(required) && k < pod[required / "nodeSelectorTerms"].size();
       ++k) {
    AddElementsIfSeveral(pod, required / "nodeSelectorTerms" / k / "matchExpressions", &out);
  }
  for (size_t k = 0; pod.contains(preferred) && k < pod[preferred].size(); ++k) {
    AddElementsIfSeveral(pod, preferred / k / "preference" / "matchExpressions", &out);
  }
  AddElementsIfSeveral(pod, spec / "tolerations", &out);
  AddElementsIfSeveral(pod, spec / "initContainers", &out);
  for (const char* list : {"containers", "initContainers"}) {
    for (size_t j = 0; pod["spec"].contains(list) && j < pod["spec"][list].size(); ++j) {
      const Pointer container = spec / list / j;
      for (size_t k = 0; k < pod[container].value("ports", json::array()).size(); ++k) {
        out.push_back(container / "ports" / k);
      }
      if (!pod.contains(container / "resources" / "requests")) continue;
      for (const auto& [resource, quantity] : pod[container / "resources" / "requests"].items()) {
        out.push_back(container / "resources" / "requests" / resource);
      }
    }
  }
  return out;
}

// The pod without each of PodRemovals(pod) in turn.
std::vector<json> PodVariants(const json& pod) {
  std::vector<json> out;
  for (const Pointer& path : PodRemovals(pod)) {
    json variant = Erased(pod, path);
    // An extended resource's limit goes with its request.
    if (path.back().find('/') != std::string::npos && path.parent_pointer().back() == "requests") {
      variant = Erased(std::move(variant),
                       path.parent_pointer().parent_pointer() / "limits" / path.back());
    }
    out.push_back(std::move(variant));
  }
  return out;
}

// The node without one label (but kubernetes.io/hostname), one taint, its images or
// unschedulable, each in turn.
std::vector<json> NodeVariants(const json& node) {
  std::vector<Pointer> removals;
  for (const auto& [key, value] : node["metadata"]["labels"].items()) {
    if (key != kHostname) removals.push_back(Pointer("/metadata/labels") / key);
  }
  for (size_t k = 0; k < node.value(Pointer("/spec/taints"), json::array()).size(); ++k) {
    removals.push_back(Pointer("/spec/taints") / k);
  }
  for (const char* path : {"/status/images", "/spec/unschedulable"}) {
    if (node.contains(Pointer(path))) removals.emplace_back(path);
  }
  std::vector<json> out;
  out.reserve(removals.size());
  for (const Pointer& path : removals) out.push_back(Erased(node, path));
  return out;
}

bool IsPod(const json& o) { return o["kind"] == "Pod"; }
bool IsBound(const json& o) { return IsPod(o) && o["spec"].contains("nodeName"); }

// `c` without the objects of its cluster for which `drop(index, object)` is true.
template <typename Predicate>
json Without(const json& c, Predicate drop) {
  json out = c;
  out["cluster"] = json::array();
  for (size_t i = 0; i < c["cluster"].size(); ++i) {
    if (!drop(i, c["cluster"][i])) out["cluster"].push_back(c["cluster"][i]);
  }
  return out;
}

}  // namespace

json GenerateCase(uint64_t seed) {
  CaseBuilder builder(seed);
  json c = {{"description", "random case, seed " + std::to_string(seed)},
            {"cluster", builder.Build()}};
  if (builder.gangs()) {
    std::string gates = "--feature-gates=GenericWorkload=true";
    if (builder.group_preemption()) gates += ",PodGroupPreemptionPolicy=true";
    if (builder.workload_claims()) gates += ",DRAWorkloadResourceClaims=true";
    c["args"] = {gates};
  }
  if (!builder.extender().is_null() || builder.batching()) {
    c["config"] = {{"apiVersion", "kubescheduler.config.k8s.io/v1"},
                   {"kind", "KubeSchedulerConfiguration"}};
  }
  if (!builder.extender().is_null()) c["config"]["extenders"] = builder.extender();
  if (builder.batching()) {
    c["burst"] = true;
    c["config"]["profiles"] = {
        {{"schedulerName", "default-scheduler"},
         {"pluginConfig",
          {{{"name", "PodTopologySpread"}, {"args", {{"defaultingType", "List"}}}}}}}};
  }
  return c;
}

std::vector<json> ShrinkCandidates(const json& c) {
  const json& cluster = c["cluster"];
  std::vector<json> out;
  for (bool bound : {false, true}) {
    for (size_t i = 0; i < cluster.size(); ++i) {
      if (IsPod(cluster[i]) && IsBound(cluster[i]) == bound) {
        out.push_back(Without(c, [&](size_t j, const json&) { return j == i; }));
      }
    }
  }
  std::set<std::string> named_classes, used_namespaces, named_groups;
  for (const json& o : cluster) {
    if (o.contains("spec")) named_classes.insert(o["spec"].value("priorityClassName", ""));
    used_namespaces.insert(o["metadata"].value("namespace", ""));
    if (IsPod(o)) named_groups.insert(PodGroupOf(o));
  }
  for (size_t i = 0; i < cluster.size(); ++i) {
    const std::string name = cluster[i]["metadata"]["name"];
    if (cluster[i]["kind"] == "Node") {
      out.push_back(Without(c, [&](size_t j, const json& o) {
        return j == i || (IsBound(o) && o["spec"]["nodeName"] == name);
      }));
    } else if ((cluster[i]["kind"] == "PriorityClass" && !named_classes.contains(name)) ||
               (cluster[i]["kind"] == "Namespace" && !used_namespaces.contains(name)) ||
               (cluster[i]["kind"] == "PodGroup" && !named_groups.contains(KeyOf(cluster[i]))) ||
               IsStorage(cluster[i]["kind"].get<std::string>())) {
      out.push_back(Without(c, [&](size_t j, const json&) { return j == i; }));
    }
  }
  for (const char* kind : {"Pod", "Node"}) {
    for (size_t i = 0; i < cluster.size(); ++i) {
      if (cluster[i]["kind"] != kind) continue;
      for (json& variant : IsPod(cluster[i]) ? PodVariants(cluster[i]) : NodeVariants(cluster[i])) {
        out.push_back(c);
        out.back()["cluster"][i] = std::move(variant);
      }
    }
  }
  return out;
}

json Shrink(const json& c, const std::function<bool(const json&)>& still_fails, int max_tries) {
  json smallest = c;
  int tries = 0;
  for (bool shrunk = true; shrunk;) {
    shrunk = false;
    for (json& candidate : ShrinkCandidates(smallest)) {
      if (tries++ >= max_tries) return smallest;
      if (still_fails(candidate)) {
        smallest = std::move(candidate);
        shrunk = true;
        break;
      }
    }
  }
  return smallest;
}

}  // namespace ksched::difftest
