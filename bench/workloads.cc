#include "bench/workloads.h"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <tuple>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "src/api/yaml.h"

namespace ksched::bench {

namespace {

// One of scheduler_perf's sizes of a workload: its name's suffix, how many init pods or claims it
// has, and its threshold (0: none).
struct Size {
  const char* suffix;
  int init;
  double threshold = 0;
};

// `base` at each of `sizes`, added to `out`: named with the size's suffix, with its count in the
// member `init` (init_pods or init_claims) and its threshold.
void AddSizes(std::vector<Workload>* out, const Workload& base, int Workload::*init,
              std::initializer_list<Size> sizes) {
  for (const Size& size : sizes) {
    Workload w = base;
    w.name += size.suffix;
    w.*init = size.init;
    w.threshold = size.threshold;
    out->push_back(std::move(w));
  }
}

}  // namespace

const std::vector<Workload>& PerfWorkloads() {
  static const std::vector<Workload>* workloads = [] {
    auto* workloads = new std::vector<Workload>{
        {.name = "SchedulingBasic", .init_pods = 1000, .measure_pods = 10000, .threshold = 270},
        // Ours: SchedulingBasic with one extender asked to filter and score every pod.
        {.name = "SchedulingWithExtender",
         .init_pods = 1000,
         .measure_pods = 5000,
         .extender = true},
        {.name = "SchedulingNodeAffinity",
         .zones = {"zone1"},
         .init_template = "pod-with-node-affinity",
         .init_pods = 5000,
         .measure_template = "pod-with-node-affinity",
         .measure_pods = 10000,
         .threshold = 220},
        {.name = "SchedulingPodAntiAffinity",
         .init_template = "pod-with-pod-anti-affinity",
         .init_pods = 1000,
         .measure_template = "pod-with-pod-anti-affinity",
         .measure_pods = 2000,
         .threshold = 60},
        {.name = "SchedulingPodAffinity",
         .zones = {"zone1"},
         .init_template = "pod-with-pod-affinity",
         .init_pods = 5000,
         .measure_template = "pod-with-pod-affinity",
         .measure_pods = 5000,
         .threshold = 35},
        {.name = "SchedulingPreferredPodAffinity",
         .init_template = "pod-with-preferred-pod-affinity",
         .init_pods = 5000,
         .measure_template = "pod-with-preferred-pod-affinity",
         .measure_pods = 5000,
         .threshold = 90},
        {.name = "SchedulingPreferredPodAntiAffinity",
         .init_template = "pod-with-preferred-pod-anti-affinity",
         .init_pods = 5000,
         .measure_template = "pod-with-preferred-pod-anti-affinity",
         .measure_pods = 5000,
         .threshold = 90},
        {.name = "TopologySpreading",
         .zones = {"moon-1", "moon-2", "moon-3"},
         .init_pods = 5000,
         .measure_template = "pod-with-topology-spreading",
         .measure_pods = 5000,
         .threshold = 85},
        {.name = "PreemptionBasic",
         .nodes = 500,
         .init_template = "pod-low-priority",
         .init_pods = 2000,
         .measure_template = "pod-high-priority",
         .measure_pods = 500},
        {.name = "SchedulingWithMixedChurn",
         .measure_pods = 10000,
         .churn = true,
         .threshold = 265},
        // The volume workloads at their thresholded sizes in v1.36.3's volumes/performance-config.
        {.name = "SchedulingInTreePVs",
         .init_pods = 1000,
         .measure_pods = 2000,
         .threshold = 90,
         .volumes = "pv-aws"},
        {.name = "SchedulingMigratedInTreePVs",
         .init_pods = 5000,
         .measure_pods = 5000,
         .threshold = 35,
         .volumes = "pv-aws",
         .csi_attach_limit = 39,
         .migrated = true},
        {.name = "SchedulingCSIPVs",
         .init_pods = 5000,
         .measure_pods = 5000,
         .threshold = 48,
         .volumes = "pv-csi",
         .csi_attach_limit = 39},
        // Not scheduler_perf's (it runs no PV controller): static local PVs that the pods' claims
        // wait for, bound by the PV controller after VolumeBinding's PreBind. Every node looks at
        // every PV of the class, in both schedulers: at 500 nodes and 1500 PVs kube-scheduler bound
        // 61 of the 500 init pods in the phase's 3 minutes.
        {.name = "SchedulingWaitForFirstConsumerPVs",
         .nodes = 100,
         .init_pods = 100,
         .measure_pods = 300,
         .volumes = "local-wffc"},
        // DRA, at its 5000pods_500nodes size; 56 pods/s is the threshold with queueing hints, which
        // kube-scheduler 1.36 has on.
        {.name = "SchedulingWithResourceClaimTemplate",
         .nodes = 500,
         .init_template = "pod-with-claim-template",
         .init_pods = 2500,
         .measure_template = "pod-with-claim-template",
         .measure_pods = 2500,
         .threshold = 56,
         .devices = "driver",
         .devices_per_node = 10,
         .claim_template = "resourceclaimtemplate"},
    };
    // SteadyStateClusterResourceClaimTemplate at its 500-node sizes: none, half or all but 10 of
    // the 5000 devices allocated before, then batches of 10 pods for 10 s. The thresholds are
    // those with queueing hints.
    AddSizes(workloads,
             {.name = "SteadyStateClusterResourceClaimTemplate",
              .nodes = 500,
              .measure_template = "pod-with-claim-template",
              .measure_pods = 10,
              .devices = "driver",
              .devices_per_node = 10,
              .claim_template = "resourceclaimtemplate",
              .steady_seconds = 10},
             &Workload::init_claims, {{"-empty", 0, 64}, {"-half", 2500, 60}, {"-full", 4990, 60}});
    // v1.37.2's Partitionable at its 500-node sizes: each node's two devices share its four
    // counters, each claim asks for two devices (one node's both); none, 250 or 490 claims are
    // allocated before. No threshold.
    AddSizes(workloads,
             {.name = "Partitionable",
              .nodes = 500,
              .measure_template = "pod-with-claim-template",
              .measure_pods = 10,
              .devices = "partitionable",
              .claim_template = "resourceclaimtemplate-for-two-devices",
              .init_claim = "resourceclaim-partitionable",
              .steady_seconds = 10},
             &Workload::init_claims, {{"-empty", 0}, {"-half", 250}, {"-full", 490}});
    // v1.37.2's ConsumableCapacity at its 500-node sizes: each claim asks for 2500M of bandwidth on
    // two distinct shared devices, so a node holds 8; none, 2000 or 3990 init pods are scheduled
    // before. No threshold.
    AddSizes(workloads,
             {.name = "ConsumableCapacity",
              .nodes = 500,
              .init_template = "pod-with-claim-template",
              .measure_template = "pod-with-claim-template",
              .measure_pods = 10,
              .devices = "consumable",
              .device_class = "deviceclass-consumablecapacity",
              .claim_template = "resourceclaimtemplate-consumablecapacity",
              .steady_seconds = 10},
             &Workload::init_pods, {{"-empty", 0}, {"-half", 2000}, {"-full", 3990}});
    // v1.37.2's ExtendedResource at its 25classes_5000pods_500nodes sizes: each pod asks for one of
    // 25 resources, each backed by a DeviceClass (Explicit: its extendedResourceName; Implicit: the
    // class's own deviceclass.resource.kubernetes.io/ name), and the scheduler makes the claim.
    for (const auto& [naming, resource, threshold] :
         {std::tuple{"Explicit", "example.com/gpu", 120.0},
          std::tuple{"Implicit", "deviceclass.resource.kubernetes.io/test-class", 130.0}}) {
      workloads->push_back({.name = fmt::format("ExtendedResource-{}", naming),
                            .nodes = 500,
                            .init_template = "pod-with-extended-resource",
                            .init_pods = 2500,
                            .measure_template = "pod-with-extended-resource",
                            .measure_pods = 2500,
                            .threshold = threshold,
                            .devices = "basic",
                            .devices_per_node = 10,
                            .device_class = "deviceclass-extended-resource",
                            .extended_classes = 25,
                            .extended_resource = resource});
    }
    // v1.37.2's GangScheduling and BasicScheduling at their 5000-node sizes of 3000 pods: 1000
    // groups of 3 or 3 of 1000. No threshold.
    for (const auto& [name, policy, groups] : {std::tuple{"GangScheduling", "gang", "Gangs"},
                                               std::tuple{"BasicScheduling", "basic", "Groups"}}) {
      for (const int size : {3, 1000}) {
        workloads->push_back({.name = fmt::format("{}-{}{}_3000Pods{}", name, 3000 / size, groups,
                                                  size == 3 ? "" : "_1000PerGroup"),
                              .measure_template = "pod-in-group",
                              .measure_pods = 3000,
                              .group_sizes = {size},
                              .group_policy = policy});
      }
    }
    // v1.37.2's GangPreemptionBasic at 100Nodes_10PreemptorGangs_10Pods_Evicting_1000InitPods: ten
    // low-priority pods on each node, and ten gangs of ten pods that each need a whole node.
    workloads->push_back({.name = "GangPreemptionBasic",
                          .nodes = 100,
                          .init_template = "pod-low-priority-small",
                          .init_pods = 1000,
                          .measure_template = "pod-gang-preemptor",
                          .measure_pods = 100,
                          .group_sizes = {10},
                          .spread_init_pods = true});
    // Not scheduler_perf's: 100 gangs of 8 to 64 pods (trained models' worker counts) on 5000
    // nodes, 3602 pods.
    Workload large{.name = "LargeGangs", .measure_template = "pod-in-group"};
    for (int g = 0; g < 100; ++g) large.group_sizes.push_back(8 + g * 37 % 57);
    for (int size : large.group_sizes) large.measure_pods += size;
    // The same gangs as scheduler-plugins' Coscheduling places them (ours).
    Workload coscheduling = large;
    coscheduling.name = "CoschedulingLargeGangs";
    coscheduling.coscheduling = true;
    workloads->push_back(std::move(large));
    workloads->push_back(std::move(coscheduling));
    // v1.37.2's TopologyAwareScheduling at two of its 5000-node sizes of 3000 pods: 750 gangs of 4
    // or 3 of 1000, each confined to one of the 50 racks of 100 nodes.
    for (const int size : {4, 1000}) {
      workloads->push_back(
          {.name = size == 4 ? "TopologyAwareScheduling-5000Nodes_750Gangs_3000Pods"
                             : "TopologyAwareScheduling-5000Nodes_3Gangs_3000Pods_1000PerGroup",
           .measure_template = "pod-in-group",
           .measure_pods = 3000,
           .group_sizes = {size},
           .racks = true});
    }
    return workloads;
  }();
  return *workloads;
}

std::string FeatureGates(const Workload& w) {
  if (w.group_sizes.empty() || w.coscheduling) return "";
  return w.racks ? "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
                 : "GenericWorkload=true";
}

std::vector<int> GroupSizes(const Workload& w) {
  std::vector<int> out;
  for (int left = w.measure_pods, i = 0; left > 0 && !w.group_sizes.empty(); ++i) {
    out.push_back(std::min(left, w.group_sizes[i % w.group_sizes.size()]));
    left -= out.back();
  }
  return out;
}

absl::StatusOr<Workload> FindWorkload(const std::string& name) {
  for (const Workload& w : PerfWorkloads()) {
    if (w.name == name) return w;
  }
  std::string known;
  for (const Workload& w : PerfWorkloads()) known += (known.empty() ? "" : ", ") + w.name;
  return absl::NotFoundError(fmt::format("no workload {}; there are {}", name, known));
}

std::string TemplatePath(const std::string& name) {
  return std::string(KSCHED_SOURCE_DIR) + "/bench/templates/" + name + ".yaml";
}

absl::StatusOr<nlohmann::json> TemplateJson(const std::string& name) {
  const std::string path = TemplatePath(name);
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<std::string>> docs = api::YamlToJson(text.str());
  if (!docs.ok())
    return absl::InvalidArgumentError(path + ": " + std::string(docs.status().message()));
  if (docs->size() != 1) return absl::InvalidArgumentError(path + ": expected one object");
  return nlohmann::json::parse(docs->front());
}

std::string NodeName(int i) { return fmt::format("node-{}", i); }

std::map<std::string, std::string> NodeLabels(const Workload& w, int i) {
  std::map<std::string, std::string> labels = {{"kubernetes.io/hostname", NodeName(i)}};
  if (!w.zones.empty()) labels["topology.kubernetes.io/zone"] = w.zones[i % w.zones.size()];
  if (w.racks) {
    labels["topology.kubernetes.io/zone"] = fmt::format("zone-{}", i / 100);
    labels["topology.kubernetes.io/rack"] = fmt::format("rack-{}", i / 100);
  }
  return labels;
}

}  // namespace ksched::bench
