#include "bench/workload_objects.h"

#include <algorithm>
#include <random>
#include <set>

#include "fmt/format.h"
#include "src/sim/manifests.h"
#include "src/testing/storage_json.h"

namespace ksched::bench {

using nlohmann::json;

json Named(json o, const std::string& name, const std::string& ns) {
  o["metadata"].erase("generateName");
  o["metadata"]["name"] = name;
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  return o;
}

namespace {

// Priority admission computes spec.priority from the class and refuses one given by hand, so a
// template's spec.priority becomes PriorityClass bench-priority-<value>, added to `classes`.
void AdmitPriority(json& pod, std::set<int64_t>& classes) {
  json& spec = pod["spec"];
  if (!spec.contains("priority")) return;
  const int64_t value = spec["priority"].get<int64_t>();
  classes.insert(value);
  spec["priorityClassName"] = fmt::format("bench-priority-{}", value);
  spec.erase("priority");
}

json PriorityClass(int64_t value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", {{"name", fmt::format("bench-priority-{}", value)}}},
          {"value", value}};
}

constexpr char kEbsDriver[] = "ebs.csi.aws.com";

// Pod `i` of namespace `ns` mounts claim "pvc-<i>", added to `storage` with its PV
// (Workload::volumes).
void AddVolume(const Workload& w, const json& pv_template, const json& pvc_template,
               const std::string& ns, int i, json& pod, std::vector<json>* storage) {
  const std::string claim = fmt::format("pvc-{}", i);
  json pvc = Named(pvc_template, claim, ns);
  json pv;
  if (w.volumes == "local-wffc") {
    pvc["metadata"].erase("annotations");
    pvc["spec"]["storageClassName"] = "local";
    pvc["spec"]["accessModes"] = {"ReadWriteOnce"};
    pv = testing::LocalVolumeJson(fmt::format("{}-local-{}", ns, i), "local", NodeName(i % w.nodes),
                                  "1Gi");
  } else {  // As scheduler_perf's volume factory and CreatePodWithPersistentVolume.
    const std::string id = fmt::format("vol-{}", i);
    pv = Named(pv_template, ns + "-" + id);
    json& spec = pv["spec"];
    if (spec.contains("csi")) {
      spec["csi"]["volumeHandle"] = ns + "-" + id;
    } else {
      spec["awsElasticBlockStore"]["volumeID"] = id;
    }
    spec["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                        {"apiVersion", "v1"},
                        {"namespace", ns},
                        {"name", claim}};
    pv["status"] = {{"phase", "Bound"}};
    pvc["spec"]["volumeName"] = pv["metadata"]["name"];
    pvc["status"] = {{"phase", "Bound"}};
  }
  storage->push_back(std::move(pvc));
  storage->push_back(std::move(pv));
  pod["spec"]["volumes"] = {{{"name", "vol"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
}

constexpr char kTestDriver[] = "test-driver.cdi.k8s.io";

// A ResourceSlice of the test driver for `node`, in the node's pool of `slices` slices.
json Slice(const std::string& name, const std::string& node, int slices, json spec) {
  spec["driver"] = kTestDriver;
  spec["nodeName"] = node;
  spec["pool"] = {{"name", node}, {"generation", 1}, {"resourceSliceCount", slices}};
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

// The ResourceSlices of `node` (Workload::devices), as scheduler_perf publishes them.
std::vector<json> NodeSlices(const Workload& w, const std::string& node) {
  json devices = json::array();
  if (w.devices == "driver") {  // createResourceDriver's
    for (int i = 0; i < w.devices_per_node; ++i) {
      devices.push_back({{"name", fmt::format("instance-{}", i)},
                         {"attributes",
                          {{"model", {{"string", "A100"}}},
                           {"family", {{"string", "GPU"}}},
                           {"driverVersion", {{"version", "1.2.3"}}},
                           {"dra.example.com/numa", {{"int", i}}}}},
                         {"capacity", {{"memory", {{"value", "1Gi"}}}}}});
    }
  } else if (w.devices == "basic") {  // resourceslice-basic-devices.yaml, two PCI roots
    for (int i = 0; i < w.devices_per_node; ++i) {
      const std::string address = fmt::format("0000:0{}:00.0", i);
      auto text = [](const std::string& s) { return json{{"string", s}}; };
      devices.push_back(
          {{"name", fmt::format("basic-device-{}", i)},
           {"attributes",
            {{"driver", text("xe")},
             {"driverVersion", {{"version", "1.2.3"}}},
             {"resource.k8s.io/pciRoot", text(std::to_string(i % 2))},
             {"family", text("Arc Pro B-Series")},
             {"health", text("Healthy")},
             {"model", text("B60")},
             {"pciAddress", text(address)},
             {"pciId", text("0xe211")},
             {"pciRoot", text(fmt::format("0{}", i % 2))},
             {"resource.kubernetes.io/pciBusID", text(address)},
             {"resource.kubernetes.io/pciRoot", text(fmt::format("pci0000:0{}", i % 2))},
             {"sriov", {{"bool", true}}},
             {"type", text("gpu")}}},
           {"capacity", {{"memory", {{"value", "24480Mi"}}}, {"millicores", {{"value", "1k"}}}}}});
    }
  } else if (w.devices == "partitionable") {  // resourceslice-partitionable-{countersets,devices}
    json counters = json::object();
    for (int c = 1; c <= 4; ++c) counters[fmt::format("counter{}", c)] = {{"value", "1"}};
    for (int d = 1; d <= 2; ++d) {
      json consumed = {{fmt::format("counter{}", 2 * d - 1), {{"value", "1"}}},
                       {fmt::format("counter{}", 2 * d), {{"value", "1"}}}};
      devices.push_back(
          {{"name", fmt::format("device-{}", d)},
           {"consumesCounters", {{{"counterSet", "counter-set"}, {"counters", consumed}}}}});
    }
    return {Slice(node + "-countersets", node, 2,
                  {{"sharedCounters", {{{"name", "counter-set"}, {"counters", counters}}}}}),
            Slice(node + "-devices", node, 2, {{"devices", std::move(devices)}})};
  } else if (w.devices == "consumable") {  // resourceslice-consumablecapacity.yaml
    for (int i = 0; i < 4; ++i) {
      devices.push_back({{"name", fmt::format("shareable-device-{}", i)},
                         {"allowMultipleAllocations", true},
                         {"attributes", {{"dra.example.com/index", {{"int", i}}}}},
                         {"capacity",
                          {{"bandwidth",
                            {{"requestPolicy",
                              {{"default", "1M"}, {"validRange", {{"min", "1M"}, {"step", "8"}}}}},
                             {"value", i == 2 ? "10Gi" : "10G"}}}}}});
    }
  } else {
    return {};
  }
  return {Slice(node, node, 1, {{"devices", std::move(devices)}})};
}

// The names of the devices each node has.
std::vector<std::string> DeviceNames(const Workload& w) {
  std::vector<std::string> out;
  for (const json& slice : NodeSlices(w, NodeName(0))) {
    for (const json& d : slice["spec"].value("devices", json::array())) out.push_back(d["name"]);
  }
  return out;
}

// Workload::init_claims claims of Workload::init_claim, each allocated as many devices of one
// node as its request's count, the node picked at random (seeded, so that every runner gets the
// same), as scheduler_perf's allocResourceClaims picks them.
absl::StatusOr<std::vector<json>> AllocatedClaims(const Workload& w) {
  std::vector<json> out;
  if (w.init_claims == 0) return out;
  absl::StatusOr<json> claim_template = TemplateJson(w.init_claim);
  if (!claim_template.ok()) return claim_template.status();
  const json& request = (*claim_template)["spec"]["devices"]["requests"][0];
  const int count = request["exactly"].value("count", 1);
  const std::vector<std::string> devices = DeviceNames(w);
  const int per_node = static_cast<int>(devices.size()) / count;
  if (w.init_claims > w.nodes * per_node) {
    return absl::InvalidArgumentError(fmt::format("{}: {} claims for {} devices", w.name,
                                                  w.init_claims, w.nodes * devices.size()));
  }
  std::mt19937 random(1);
  std::vector<int> used(w.nodes, 0);  // The node's first `used` devices are taken.
  for (int i = 0; i < w.init_claims; ++i) {
    int node = std::uniform_int_distribution<int>(0, w.nodes - 1)(random);
    while (used[node] + count > static_cast<int>(devices.size())) node = (node + 1) % w.nodes;
    const std::string name = NodeName(node);
    json claim = Named(*claim_template, fmt::format("test-claim-{}", i), kInitNamespace);
    json results = json::array();
    for (int d = 0; d < count; ++d) {
      results.push_back({{"request", request["name"]},
                         {"driver", kTestDriver},
                         {"pool", name},
                         {"device", devices[used[node]++]}});
    }
    json match = {{"key", "metadata.name"}, {"operator", "In"}, {"values", {name}}};
    claim["status"]["allocation"] = {
        {"devices", {{"results", std::move(results)}}},
        {"nodeSelector", {{"nodeSelectorTerms", {{{"matchFields", {match}}}}}}}};
    out.push_back(std::move(claim));
  }
  return out;
}

// The DRA objects of a workload: its DeviceClasses and claim templates in `setup`, each node's
// slices and the allocated init claims in `storage`.
absl::Status AddDraObjects(const Workload& w, WorkloadObjects& out) {
  absl::StatusOr<json> device_class = TemplateJson(w.device_class);
  if (!device_class.ok()) return device_class.status();
  if (w.extended_classes == 0) {
    out.setup.push_back(*device_class);
  }
  for (int i = 0; i < w.extended_classes; ++i) {  // deviceclass-extended-resource.yaml
    json c = Named(*device_class, fmt::format("test-class-{}", i));
    if (w.extended_resource == "example.com/gpu") {
      c["spec"]["extendedResourceName"] = fmt::format("{}-{}", w.extended_resource, i);
    }
    out.setup.push_back(std::move(c));
  }
  if (!w.claim_template.empty()) {
    absl::StatusOr<json> claim_template = TemplateJson(w.claim_template);
    if (!claim_template.ok()) return claim_template.status();
    for (const char* ns : {kInitNamespace, kMeasureNamespace}) {
      out.setup.push_back(Named(*claim_template, "test-claim-template", ns));
    }
  }
  for (int i = 0; i < w.nodes; ++i) {
    for (json& slice : NodeSlices(w, NodeName(i))) out.storage.push_back(std::move(slice));
  }
  absl::StatusOr<std::vector<json>> claims = AllocatedClaims(w);
  if (!claims.ok()) return claims.status();
  out.storage.insert(out.storage.end(), claims->begin(), claims->end());
  return absl::OkStatus();
}

// Pod `i` of an ExtendedResource workload asks for one of its resource `i` mod the classes
// (pod-with-extended-resource.yaml).
void AskForExtendedResource(const Workload& w, int i, json& pod) {
  const std::string name = fmt::format("{}-{}", w.extended_resource, i % w.extended_classes);
  pod["spec"]["containers"][0]["resources"] = {{"requests", {{name, "1"}}},
                                               {"limits", {{name, "1"}}}};
}

// PodGroup `name` of the measured pods' namespace, of `size` pods, with the workload's policy and
// the pods' priority class (none if empty); scheduler-plugins' PodGroup for a Coscheduling one.
json PodGroup(const Workload& w, const std::string& name, int size,
              const std::string& priority_class) {
  if (w.coscheduling) {
    return {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
            {"kind", "PodGroup"},
            {"metadata", {{"name", name}, {"namespace", kMeasureNamespace}}},
            {"spec", {{"minMember", size}}}};
  }
  json policy = w.group_policy == "gang" ? json{{"gang", {{"minCount", size}}}}
                                         : json{{"basic", json::object()}};
  json group = {{"apiVersion", "scheduling.k8s.io/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", name}, {"namespace", kMeasureNamespace}}},
                {"spec", {{"schedulingPolicy", policy}}}};
  if (!priority_class.empty()) group["spec"]["priorityClassName"] = priority_class;
  if (w.racks) {
    group["spec"]["schedulingConstraints"] = {
        {"topology", {{{"key", "topology.kubernetes.io/rack"}}}}};
  }
  return group;
}

}  // namespace

absl::StatusOr<WorkloadObjects> MakeObjects(const Workload& w) {
  WorkloadObjects out;
  absl::StatusOr<json> node = TemplateJson("node");
  absl::StatusOr<json> init = TemplateJson(w.init_template);
  absl::StatusOr<json> measure = TemplateJson(w.measure_template);
  for (const absl::Status& st : {node.status(), init.status(), measure.status()}) {
    if (!st.ok()) return st;
  }
  std::set<int64_t> classes;
  AdmitPriority(*init, classes);
  AdmitPriority(*measure, classes);
  if (w.churn) {
    absl::StatusOr<json> n = TemplateJson("churn-node");
    absl::StatusOr<json> p = TemplateJson("pod-high-priority-large-cpu");
    absl::StatusOr<json> s = TemplateJson("churn-service");
    for (const absl::Status& st : {n.status(), p.status(), s.status()}) {
      if (!st.ok()) return st;
    }
    AdmitPriority(*p, classes);
    out.churn_node = *n;
    out.churn_pod = *p;
    out.churn_service = *s;
  }
  for (const char* ns : {kInitNamespace, kMeasureNamespace, "churn"}) {
    out.setup.push_back(
        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
  for (int64_t value : classes) out.setup.push_back(PriorityClass(value));
  if (w.volumes == "local-wffc") {
    out.setup.push_back({{"apiVersion", "storage.k8s.io/v1"},
                         {"kind", "StorageClass"},
                         {"metadata", {{"name", "local"}}},
                         {"provisioner", "kubernetes.io/no-provisioner"},
                         {"volumeBindingMode", "WaitForFirstConsumer"}});
  }
  for (int i = 0; i < w.nodes; ++i) {
    json n = Named(*node, NodeName(i));
    for (const auto& [key, value] : NodeLabels(w, i)) n["metadata"]["labels"][key] = value;
    if (w.csi_attach_limit > 0) {
      const std::string count = std::to_string(w.csi_attach_limit);
      // Allocatable, once given, is not defaulted to the capacity any more.
      if (!n["status"].contains("allocatable"))
        n["status"]["allocatable"] = n["status"]["capacity"];
      for (const char* list : {"capacity", "allocatable"}) {
        n["status"][list][fmt::format("attachable-volumes-csi-{}", kEbsDriver)] = count;
      }
      json driver = {{"name", kEbsDriver},
                     {"nodeID", NodeName(i)},
                     {"allocatable", {{"count", w.csi_attach_limit}}}};
      json csi_node = {{"apiVersion", "storage.k8s.io/v1"},
                       {"kind", "CSINode"},
                       {"metadata", {{"name", NodeName(i)}}},
                       {"spec", {{"drivers", {driver}}}}};
      csi_node["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"] =
          w.migrated ? "kubernetes.io/aws-ebs" : "";
      out.nodes.push_back(std::move(n));
      out.nodes.push_back(std::move(csi_node));
    } else {
      out.nodes.push_back(std::move(n));
    }
  }
  if (!w.devices.empty()) {
    if (absl::Status st = AddDraObjects(w, out); !st.ok()) return st;
  }
  json pv_template, pvc_template;
  if (!w.volumes.empty()) {
    absl::StatusOr<json> pv = TemplateJson(w.volumes == "local-wffc" ? "pv-csi" : w.volumes);
    absl::StatusOr<json> pvc = TemplateJson("pvc");
    for (const absl::Status& st : {pv.status(), pvc.status()}) {
      if (!st.ok()) return st;
    }
    pv_template = *pv;
    pvc_template = *pvc;
  }
  // Pods <prefix>-<i> of namespace `ns`, with their volumes and extended resources.
  auto make_pods = [&](const json& pod_template, const char* prefix, const char* ns, int count,
                       std::vector<json>* pods) {
    for (int i = 0; i < count; ++i) {
      json pod = Named(pod_template, fmt::format("{}-{}", prefix, i), ns);
      if (!w.volumes.empty()) AddVolume(w, pv_template, pvc_template, ns, i, pod, &out.storage);
      if (w.extended_classes > 0) AskForExtendedResource(w, i, pod);
      pods->push_back(std::move(pod));
    }
  };
  make_pods(*init, "init", kInitNamespace, w.init_pods, &out.init_pods);
  make_pods(*measure, "measure", kMeasureNamespace, w.measure_pods, &out.measure_pods);
  const int per_node = std::max(1, w.init_pods / std::max(1, w.nodes));
  for (int i = 0; w.spread_init_pods && i < w.init_pods; ++i) {
    out.init_pods[i]["spec"]["containers"][0]["ports"][0]["hostPort"] = 8000 + i % per_node;
  }
  const std::vector<int> sizes = GroupSizes(w);
  for (int g = 0, first = 0; g < static_cast<int>(sizes.size()); first += sizes[g++]) {
    const int size = sizes[g];
    const std::string name = fmt::format("group-{}", g);
    out.storage.push_back(
        PodGroup(w, name, size, (*measure)["spec"].value("priorityClassName", "")));
    for (int i = first; i < first + size; ++i) {
      if (w.coscheduling) {
        out.measure_pods[i]["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] = name;
      } else {
        out.measure_pods[i]["spec"]["schedulingGroup"] = {{"podGroupName", name}};
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<api::Object>> Decode(
    std::initializer_list<const std::vector<json>*> batches) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (const auto* batch : batches) {
    for (const json& o : *batch) list["items"].push_back(o);
  }
  absl::StatusOr<std::vector<api::Object>> objects = api::DecodeObjects(list.dump());
  if (!objects.ok()) return objects.status();
  if (absl::Status st = sim::AdmitPods(*objects, "bench"); !st.ok()) return st;
  if (absl::Status st = sim::AdmitPriorities(&*objects); !st.ok()) return st;
  return objects;
}

}  // namespace ksched::bench
