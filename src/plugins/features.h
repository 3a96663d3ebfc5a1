// The feature gates the in-tree plugins decide by (upstream's plugins/feature.Features): plain
// values, so that a plugin folder needs nothing of ksched but the SDK. The defaults are
// kube-scheduler v1.37.2's; the command line makes them from --feature-gates and
// --emulated-version (cli::PluginFeatures).
#pragma once

namespace ksched::plugins {

struct Features {
  bool node_declared_features = true;    // NodeDeclaredFeatures
  bool storage_capacity_scoring = true;  // StorageCapacityScoring
  bool volume_limit_scaling = true;      // VolumeLimitScaling
  bool device_taint_rules = true;        // DRADeviceTaintRules
  bool device_taints = true;             // DRADeviceTaints
  bool partitionable_devices = true;     // DRAPartitionableDevices
  bool consumable_capacity = true;       // DRAConsumableCapacity
  // DRAFractionalCapacityRange: on only with --min-compatibility-version 1.37.
  bool fractional_capacity_range = false;
  bool device_binding_conditions = true;            // DRADeviceBindingConditions
  bool dra_extended_resource = true;                // DRAExtendedResource
  bool dra_workload_resource_claims = false;        // DRAWorkloadResourceClaims
  bool generic_workload = false;                    // GenericWorkload
  bool topology_aware_workload_scheduling = false;  // TopologyAwareWorkloadScheduling
};

}  // namespace ksched::plugins
