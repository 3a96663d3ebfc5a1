// Cluster events and queueing hints: how a plugin tells the queue which changes in the cluster may
// make a pod it rejected schedulable (upstream's EnqueueExtensions).
//
//   std::vector<ClusterEventWithHint> EventsToRegister() const override {
//     return {{{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint},
//              [](const api::Pod& pod, const ClusterEventData& e) { return QueueingHint::kQueue;
//              }}};
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ksched/api/objects.h"
#include "ksched/custom_objects.h"

namespace ksched {

enum class EventResource {
  kPod,          // Any pod: for registration, matches the two below as well.
  kAssignedPod,  // A pod bound to a node (cache side).
  kTargetPod,    // The pending pod itself, updated (upstream's TargetPod since 1.37).
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kCSIDriver,
  kCSIStorageCapacity,
  kVolumeAttachment,
  kWildCard,  // Matches every event.
  // Dynamic resource allocation (after kWildCard, so that the kinds above keep their values).
  kResourceClaim,
  kResourceSlice,
  kDeviceClass,
  // Workloads (the GenericWorkload gate).
  kPodGroup,
  // A custom resource, named by ClusterEvent::custom_resource (ksched/custom_objects.h).
  kCustom,
  // 1.36's name of kTargetPod, kept for plugins written against it.
  kUnschedulablePod = kTargetPod,
};

// The resource's name in logs and in the stable ABI (ksched/stable.h): the kind's ("Node",
// "PersistentVolumeClaim"), "AssignedPod", "TargetPod", "*" for kWildCard, or "Custom".
std::string_view EventResourceName(EventResource resource);

// Action types are bits, as upstream's fwk.ActionType.
enum ActionType : uint32_t {
  kAdd = 1 << 0,
  kDelete = 1 << 1,
  kUpdateNodeAllocatable = 1 << 2,
  kUpdateNodeLabel = 1 << 3,
  kUpdateNodeTaint = 1 << 4,
  kUpdateNodeCondition = 1 << 5,
  kUpdateNodeAnnotation = 1 << 6,
  kUpdatePodLabel = 1 << 7,
  kUpdatePodScaleDown = 1 << 8,
  kUpdatePodToleration = 1 << 9,
  kUpdatePodSchedulingGatesEliminated = 1 << 10,
  kUpdatePodOther = 1 << 11,
  kUpdatePodGeneratedResourceClaim = 1 << 12,  // status.resourceClaimStatuses or
                                               // extendedResourceClaimStatus changed.
  kUpdateNodeDeclaredFeature = 1 << 13,        // status.declaredFeatures changed.
  kUpdate = (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) |
            (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13),
  kAll = 0xffffffff,
};

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t action = kAll;
  // A label for metrics and logs ("NodeAdd", "AssignedPodDelete", "UnschedulableTimeout").
  std::string label;
  // kCustom's resource, "<plural>.<version>.<group>": "podgroups.v1alpha1.scheduling.x-k8s.io".
  std::string custom_resource;
};

// Whether a registered event covers an incoming one (upstream's MatchClusterEvents).
bool Matches(const ClusterEvent& registered, const ClusterEvent& incoming);

// An object before and after a change: old_obj is null for an add, new_obj for a delete.
template <typename T>
struct ObjectChange {
  const T* old_obj = nullptr;
  const T* new_obj = nullptr;
};

// The storage, DRA or custom object an event is about; only the member of the event's resource is
// set.
struct StorageChange {
  ObjectChange<api::PersistentVolume> pv;
  ObjectChange<api::PersistentVolumeClaim> pvc;
  ObjectChange<api::StorageClass> storage_class;
  ObjectChange<api::CSINode> csi_node;
  ObjectChange<api::CSIDriver> csi_driver;
  ObjectChange<api::CSIStorageCapacity> csi_storage_capacity;
  ObjectChange<api::VolumeAttachment> volume_attachment;
  ObjectChange<api::ResourceClaim> resource_claim;
  ObjectChange<api::ResourceSlice> resource_slice;
  ObjectChange<api::DeviceClass> device_class;
  ObjectChange<api::PodGroup> pod_group;
  ObjectChange<CustomObject> custom;  // kCustom's.
};

// The objects an event is about. Only the pointers that fit the event are set.
struct ClusterEventData {
  ClusterEvent event;
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  const api::Node* old_node = nullptr;
  const api::Node* new_node = nullptr;
  StorageChange storage;
};

enum class QueueingHint { kQueueSkip, kQueue };

// Decides whether `pod`, which this plugin rejected, is worth retrying after the event.
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const ClusterEventData&)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;  // Empty: always kQueue.
};

}  // namespace ksched
