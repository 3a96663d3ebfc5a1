// scheduler_perf's workloads, shared by the in-process bench (scheduling_bench) and the
// side-by-side one (side_by_side): each is nodes from bench/templates/node.yaml, `init` pods
// scheduled before the measurement, then the measured pods, as its performance-config.yaml
// files say (test/integration/scheduler_perf in k8s.io/kubernetes v1.36.3; v1.37.2 for DRA's).
//
//   for (const Workload& w : PerfWorkloads()) ...
//   absl::StatusOr<nlohmann::json> pod = TemplateJson(w.measure_template);
//
// Init pods live in namespace sched-0 and measured ones in sched-1, as scheduler_perf's do (its
// affinity templates name both namespaces).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ksched::bench {

inline constexpr char kInitNamespace[] = "sched-0";
inline constexpr char kMeasureNamespace[] = "sched-1";

struct Workload {
  std::string name;  // scheduler_perf's, e.g. SchedulingBasic
  int nodes = 5000;
  // Node i gets zones[i % zones.size()] as topology.kubernetes.io/zone; none when empty.
  std::vector<std::string> zones;
  std::string init_template = "pod-default";
  int init_pods = 0;
  std::string measure_template = "pod-default";
  int measure_pods = 0;
  // SchedulingWithMixedChurn's churn: every second the node, pod and Service made the second
  // before are deleted and new ones are made from churn-node, pod-high-priority-large-cpu and
  // churn-service, while the measured pods are scheduled.
  bool churn = false;
  double threshold = 0;  // scheduler_perf's pods/s for kube-scheduler at these sizes; 0: none
  // The volume workloads: each pod mounts claim "pvc-<i>" of its namespace, made from
  // bench/templates/pvc.yaml and bound to its own PV "<namespace>-vol-<i>" made from
  // bench/templates/<volumes>.yaml ("pv-aws", "pv-csi"), as scheduler_perf's createPods with
  // persistentVolumeTemplatePath makes them; "local-wffc": the claim is of the WaitForFirstConsumer
  // class "local" and unbound, and a local PV of node i % nodes waits for it, for the PV
  // controller (kube-controller-manager, run for this workload) to bind. Empty: no volumes.
  std::string volumes;
  // Each node's CSINode allows this many ebs.csi.aws.com volumes (0: no CSINode), and names
  // kubernetes.io/aws-ebs as migrated when `migrated`, as scheduler_perf's nodeAllocatableStrategy.
  int csi_attach_limit = 0;
  bool migrated = false;
  // The DRA workloads (dra/ of v1.37.2's scheduler_perf). Each node's ResourceSlices, in a pool
  // named as the node, as `devices` says:
  //   "driver"         createResourceDriver's: devices_per_node devices instance-<i> (model,
  //                    family, driverVersion, numa; 1Gi of memory);
  //   "basic"          resourceslice-basic-devices.yaml: devices_per_node GPUs basic-device-<i>
  //                    with 13 attributes, 24480Mi of memory and 1k millicores;
  //   "partitionable"  resourceslice-partitionable-{countersets,devices}.yaml: a slice with
  //                    counter set counter-set (counter1..4, 1 each) and one with device-1 and
  //                    device-2, each consuming two of the counters;
  //   "consumable"     resourceslice-consumablecapacity.yaml: four devices shareable-device-<i>
  //                    that allow multiple allocations, each with 10G of bandwidth (one 10Gi);
  //   "":              no DRA.
  // DeviceClass test-class is made from `device_class`, and each namespace's ResourceClaimTemplate
  // test-claim-template from `claim_template` (none if empty); kube-controller-manager's
  // resourceclaim controller, run for these workloads, makes the pods' claims from it.
  std::string devices;
  int devices_per_node = 0;
  std::string device_class = "deviceclass";
  std::string claim_template;
  // SteadyStateClusterResourceClaimTemplate's and Partitionable's: this many claims of namespace
  // sched-0 made from `init_claim` are allocated before the run, each to as many devices of a node
  // picked at random as its request counts, as scheduler_perf's allocResourceClaims allocates them.
  int init_claims = 0;
  std::string init_claim = "resourceclaim";
  // ExtendedResource's: DeviceClasses test-class-<i> for i < extended_classes are made from
  // `device_class`, naming extendedResourceName example.com/gpu-<i> when `extended_resource` is
  // example.com/gpu; pod i asks for one <extended_resource>-<i mod extended_classes>, which the
  // scheduler makes a claim for.
  int extended_classes = 0;
  std::string extended_resource;
  // Its measured phase (scheduler_perf's createPods with steadyState): the measured pods are made,
  // and each time all of them are bound they are deleted and made again, for this many seconds.
  // 0: the measured pods are made once.
  int steady_seconds = 0;
  // The gang and workload ones (podgroup/ and workload_preemption/ of v1.37.2's scheduler_perf;
  // GenericWorkload on in both schedulers): the measured pods belong to PodGroups group-0,
  // group-1, ... of their namespace, made before them, of the sizes `group_sizes` in turn (the
  // last one gets the pods left), each with `group_policy` "gang" (minCount: its size) or "basic",
  // and the measured pods' priority class if they have one. Empty: no groups.
  std::vector<int> group_sizes;
  std::string group_policy = "gang";
  // The TopologyAwareWorkloadScheduling ones (podgroup/tas/): node i is in rack and zone
  // rack-<i/100> and zone-<i/100> (topology.kubernetes.io/rack and zone), and each PodGroup is
  // confined to one rack (schedulingConstraints.topology); the gate is on with GenericWorkload.
  bool racks = false;
  // Init pod i's first container port gets hostPort 8000 + i mod (init pods per node), as
  // workload_preemption's pod-low-priority.yaml spreads the init pods evenly over the nodes.
  bool spread_init_pods = false;
  // The test extender (test/extender) in the schedulers' configuration: filter and prioritize,
  // node-cache-capable, weight 1, passing every node and scoring 0; its own time is measured
  // apart (RunResult::extender_seconds).
  bool extender = false;
  // With `group_sizes`: the groups are scheduler-plugins' PodGroups (scheduling.x-k8s.io/v1alpha1,
  // minMember their size; the CRD of contrib/coscheduling), their pods labelled
  // scheduling.x-k8s.io/pod-group, and both schedulers' profile sorts and places them with
  // Coscheduling: ksched with contrib/coscheduling's library, against scheduler-plugins' own
  // kube-scheduler (the runner "scheduler-plugins"). No feature gate.
  bool coscheduling = false;
};

// The feature gates a workload needs in both schedulers ("GenericWorkload=true" for one with
// groups, and TopologyAwareWorkloadScheduling for one with racks), as --feature-gates takes
// them; empty: none.
std::string FeatureGates(const Workload& w);

// The sizes of a workload's PodGroups, in order: group_sizes cycled until they hold the measured
// pods, the last one cut to the pods left. Measured pods 0.. fill group-0, then group-1, ...
std::vector<int> GroupSizes(const Workload& w);

// The workloads at the sizes of scheduler_perf's performance runs (PreemptionBasic at 500 nodes,
// 2000 + 500 pods: its 1000-node run's shape at half the size).
const std::vector<Workload>& PerfWorkloads();

// The one of PerfWorkloads() named `name`, or NotFound.
absl::StatusOr<Workload> FindWorkload(const std::string& name);

// bench/templates/<name>.yaml.
std::string TemplatePath(const std::string& name);

// The object of bench/templates/<name>.yaml as JSON.
absl::StatusOr<nlohmann::json> TemplateJson(const std::string& name);

// Node i of a workload: its name and labels (kubernetes.io/hostname, the zone if any), as
// scheduler_perf's node preparer names and labels them.
std::string NodeName(int i);
std::map<std::string, std::string> NodeLabels(const Workload& w, int i);

}  // namespace ksched::bench
