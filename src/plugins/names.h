// The names of the in-tree plugins, as kube-scheduler spells them (pkg/scheduler/framework/plugins/
// names/names.go).
#pragma once

namespace ksched::plugins::names {

inline constexpr char kPrioritySort[] = "PrioritySort";
inline constexpr char kSchedulingGates[] = "SchedulingGates";
inline constexpr char kNodeUnschedulable[] = "NodeUnschedulable";
inline constexpr char kNodeName[] = "NodeName";
inline constexpr char kTaintToleration[] = "TaintToleration";
inline constexpr char kNodeAffinity[] = "NodeAffinity";
inline constexpr char kNodePorts[] = "NodePorts";
inline constexpr char kNodeResourcesFit[] = "NodeResourcesFit";
inline constexpr char kNodeResourcesBalancedAllocation[] = "NodeResourcesBalancedAllocation";
inline constexpr char kImageLocality[] = "ImageLocality";
inline constexpr char kDefaultBinder[] = "DefaultBinder";
inline constexpr char kVolumeRestrictions[] = "VolumeRestrictions";
inline constexpr char kNodeVolumeLimits[] = "NodeVolumeLimits";
inline constexpr char kVolumeBinding[] = "VolumeBinding";
inline constexpr char kVolumeZone[] = "VolumeZone";
inline constexpr char kPodTopologySpread[] = "PodTopologySpread";
inline constexpr char kInterPodAffinity[] = "InterPodAffinity";
inline constexpr char kDefaultPreemption[] = "DefaultPreemption";
inline constexpr char kDynamicResources[] = "DynamicResources";
inline constexpr char kNodeDeclaredFeatures[] = "NodeDeclaredFeatures";
inline constexpr char kGangScheduling[] = "GangScheduling";
inline constexpr char kTopologyPlacementGenerator[] = "TopologyPlacementGenerator";
inline constexpr char kPodGroupPodsCount[] = "PodGroupPodsCount";

}  // namespace ksched::plugins::names
