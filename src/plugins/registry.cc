#include "src/plugins/registry.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "ksched/strings.h"
#include "src/plugins/default_binder/default_binder.h"
#include "src/plugins/default_preemption/args.h"
#include "src/plugins/default_preemption/default_preemption.h"
#include "src/plugins/dynamic_resources/dynamic_resources.h"
#include "src/plugins/gang_scheduling/gang_scheduling.h"
#include "src/plugins/image_locality/image_locality.h"
#include "src/plugins/inter_pod_affinity/args.h"
#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "src/plugins/names.h"
#include "src/plugins/node_affinity/node_affinity.h"
#include "src/plugins/node_declared_features/node_declared_features.h"
#include "src/plugins/node_name/node_name.h"
#include "src/plugins/node_ports/node_ports.h"
#include "src/plugins/node_resources/args.h"
#include "src/plugins/node_resources/balanced_allocation.h"
#include "src/plugins/node_resources/fit.h"
#include "src/plugins/node_unschedulable/node_unschedulable.h"
#include "src/plugins/node_volume_limits/node_volume_limits.h"
#include "src/plugins/pod_group_pods_count/pod_group_pods_count.h"
#include "src/plugins/pod_topology_spread/pod_topology_spread.h"
#include "src/plugins/queue_sort/priority_sort.h"
#include "src/plugins/scheduling_gates/scheduling_gates.h"
#include "src/plugins/taint_toleration/taint_toleration.h"
#include "src/plugins/topology_aware/topology_placement.h"
#include "src/plugins/volume_binding/args.h"
#include "src/plugins/volume_binding/volume_binding.h"
#include "src/plugins/volume_restrictions/volume_restrictions.h"
#include "src/plugins/volume_zone/volume_zone.h"

namespace ksched::plugins {
namespace {

// The in-tree names are distinct constants; a duplicate is a programming error.
[[noreturn]] void Abort(const absl::Status& st) {
  std::fprintf(stderr, "NewInTreeRegistry: %s\n", std::string(AsStd(st.message())).c_str());
  std::abort();
}

}  // namespace

Registry NewInTreeRegistry(const Features& features) {
  // One spec per plugin; those with args have the kubescheduler.config.k8s.io/v1 args types,
  // decoded, defaulted and validated once, at load time.
  const PluginSpec specs[] = {
      {names::kPrioritySort, queue_sort::New},
      {names::kSchedulingGates, scheduling_gates::New},
      {names::kNodeUnschedulable, node_unschedulable::New},
      {names::kNodeName, node_name::New},
      {names::kTaintToleration, taint_toleration::New},
      MakePluginSpec(names::kNodeAffinity, node_affinity::ParseArgs, node_affinity::ArgsToJson,
                     node_affinity::New),
      {names::kNodePorts, node_ports::New},
      MakePluginSpec(names::kNodeResourcesFit, node_resources::ParseFitArgs,
                     node_resources::FitArgsToJson,
                     node_resources::MakeFitFactory(features.dra_extended_resource)),
      MakePluginSpec(names::kNodeResourcesBalancedAllocation,
                     node_resources::ParseBalancedAllocationArgs,
                     node_resources::BalancedAllocationArgsToJson,
                     node_resources::MakeBalancedAllocationFactory(features.dra_extended_resource)),
      MakePluginSpec(names::kPodTopologySpread, pod_topology_spread::ParseArgs,
                     pod_topology_spread::ArgsToJson, pod_topology_spread::New),
      {names::kImageLocality, image_locality::New},
      MakePluginSpec(names::kDefaultPreemption, default_preemption::ParseArgs,
                     default_preemption::ArgsToJson,
                     default_preemption::MakeFactory(features.generic_workload)),
      MakePluginSpec(names::kInterPodAffinity, inter_pod_affinity::ParseArgs,
                     inter_pod_affinity::ArgsToJson, inter_pod_affinity::New),
      {.name = names::kVolumeBinding,
       .factory = TypedFactory<volume_binding::VolumeBindingArgs>(volume_binding::New),
       .args = volume_binding::MakeDecoder(features.storage_capacity_scoring)},
      {names::kVolumeRestrictions, volume_restrictions::New},
      {names::kNodeVolumeLimits, node_volume_limits::MakeFactory(features.volume_limit_scaling)},
      {names::kVolumeZone, volume_zone::New},
      MakePluginSpec(
          names::kDynamicResources, dynamic_resources::ParseArgs, dynamic_resources::ArgsToJson,
          dynamic_resources::MakeFactory(
              {.device_taint_rules = features.device_taint_rules,
               .device_taints = features.device_taints,
               .partitionable_devices = features.partitionable_devices,
               .consumable_capacity = features.consumable_capacity,
               .fractional_capacity_range = features.fractional_capacity_range,
               .binding_conditions = features.device_binding_conditions,
               .extended_resource = features.dra_extended_resource,
               .workload_resource_claims = features.dra_workload_resource_claims,
               .topology_aware_workload_scheduling = features.topology_aware_workload_scheduling})),
      {names::kDefaultBinder, default_binder::New},
      {names::kNodeDeclaredFeatures,
       node_declared_features::MakeFactory(features.node_declared_features)},
      {names::kGangScheduling, gang_scheduling::New},
      {names::kTopologyPlacementGenerator, topology_aware::New},
      {names::kPodGroupPodsCount, pod_group_pods_count::New},
  };
  Registry registry;
  for (const PluginSpec& spec : specs) {
    if (absl::Status st = registry.Register(spec); !st.ok()) Abort(st);
  }
  return registry;
}

}  // namespace ksched::plugins
