#include "src/plugins/registry.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "src/base/strings.h"
#include "src/plugins/default_binder/default_binder.h"
#include "src/plugins/default_preemption/args.h"
#include "src/plugins/default_preemption/default_preemption.h"
#include "src/plugins/dynamic_resources/dynamic_resources.h"
#include "src/plugins/guides.h"
#include "src/plugins/image_locality/image_locality.h"
#include "src/plugins/inter_pod_affinity/args.h"
#include "src/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "src/plugins/names.h"
#include "src/plugins/node_affinity/node_affinity.h"
#include "src/plugins/node_name/node_name.h"
#include "src/plugins/node_ports/node_ports.h"
#include "src/plugins/node_resources/args.h"
#include "src/plugins/node_resources/balanced_allocation.h"
#include "src/plugins/node_resources/fit.h"
#include "src/plugins/node_unschedulable/node_unschedulable.h"
#include "src/plugins/node_volume_limits/node_volume_limits.h"
#include "src/plugins/pod_topology_spread/pod_topology_spread.h"
#include "src/plugins/queue_sort/priority_sort.h"
#include "src/plugins/scheduling_gates/scheduling_gates.h"
#include "src/plugins/taint_toleration/taint_toleration.h"
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

Registry NewUpstreamRegistry() {
  const std::pair<const char*, PluginFactory> factories[] = {
      {names::kPrioritySort, queue_sort::New},
      {names::kSchedulingGates, scheduling_gates::New},
      {names::kNodeUnschedulable, node_unschedulable::New},
      {names::kNodeName, node_name::New},
      {names::kTaintToleration, taint_toleration::New},
      {names::kNodeAffinity, TypedFactory<node_affinity::NodeAffinityArgs>(node_affinity::New)},
      {names::kNodePorts, node_ports::New},
      {names::kNodeResourcesFit, TypedFactory<node_resources::FitArgs>(node_resources::NewFit)},
      {names::kNodeResourcesBalancedAllocation,
       TypedFactory<node_resources::BalancedAllocationArgs>(node_resources::NewBalancedAllocation)},
      {names::kPodTopologySpread,
       TypedFactory<pod_topology_spread::PodTopologySpreadArgs>(pod_topology_spread::New)},
      {names::kImageLocality, image_locality::New},
      {names::kDefaultPreemption,
       TypedFactory<default_preemption::DefaultPreemptionArgs>(default_preemption::New)},
      {names::kInterPodAffinity,
       TypedFactory<inter_pod_affinity::InterPodAffinityArgs>(inter_pod_affinity::New)},
      {names::kVolumeBinding, TypedFactory<volume_binding::VolumeBindingArgs>(volume_binding::New)},
      {names::kVolumeRestrictions, volume_restrictions::New},
      {names::kNodeVolumeLimits, node_volume_limits::New},
      {names::kVolumeZone, volume_zone::New},
      {names::kDynamicResources, dynamic_resources::New},
      {names::kDefaultBinder, default_binder::New},
  };
  // The args types of kubescheduler.config.k8s.io/v1, decoded, defaulted and validated once, at
  // load time.
  const std::pair<const char*, ArgsDecoder> args[] = {
      {names::kNodeAffinity, MakeArgsDecoder(node_affinity::ParseArgs, node_affinity::ArgsToJson)},
      {names::kNodeResourcesFit,
       MakeArgsDecoder(node_resources::ParseFitArgs, node_resources::FitArgsToJson)},
      {names::kNodeResourcesBalancedAllocation,
       MakeArgsDecoder(node_resources::ParseBalancedAllocationArgs,
                       node_resources::BalancedAllocationArgsToJson)},
      {names::kDefaultPreemption,
       MakeArgsDecoder(default_preemption::ParseArgs, default_preemption::ArgsToJson)},
      {names::kInterPodAffinity,
       MakeArgsDecoder(inter_pod_affinity::ParseArgs, inter_pod_affinity::ArgsToJson)},
      {names::kPodTopologySpread,
       MakeArgsDecoder(pod_topology_spread::ParseArgs, pod_topology_spread::ArgsToJson)},
      {names::kVolumeBinding,
       MakeArgsDecoder(volume_binding::ParseArgs, volume_binding::ArgsToJson)},
  };
  Registry registry;
  auto check = [](const absl::Status& st) {
    if (!st.ok()) Abort(st);
  };
  for (const auto& [name, factory] : factories) check(registry.Register(name, factory));
  for (const auto& [name, decoder] : args) check(registry.RegisterArgs(name, decoder));
  return registry;
}

Registry NewInTreeRegistry() {
  Registry registry = NewUpstreamRegistry();
  if (absl::Status st = RegisterGuidePlugins(registry); !st.ok()) Abort(st);
  return registry;
}

}  // namespace ksched::plugins
