// NodeVolumeLimits: a node attaches at most as many volumes of a CSI driver as its CSINode's
// allocatable count for that driver (upstream's plugins/nodevolumelimits, CSILimits, 1.36).
//
// The pod's new volumes are counted against those of the pods on the node (placed, assumed or
// nominated) and the node's VolumeAttachments, each volume once ("<driver>/<handle>"): a claim's
// bound CSI PV, an unbound claim's class provisioner, and in-tree GCE PD, AWS EBS, Azure Disk,
// Cinder and Portworx volumes (inline or PVs) under the CSI driver they migrated to, on nodes
// with a CSINode.
//
//   - PreFilter: Skip for a pod without claims, ephemeral volumes or migrating in-tree volumes.
//   - Filter: Unschedulable `node(s) exceed max volume count` where a driver's count would pass
//     its limit; UnschedulableAndUnresolvable for a claim that does not exist
//     (`looking up PVC default/data: persistentvolumeclaim "data" not found`); an Error for an
//     in-tree volume that does not translate (`converting volume(v) from inline to csi: ...`).
//   - A node without a CSINode, or whose drivers report no count, has no limit.
//   - With the VolumeLimitScaling gate (alpha, off in 1.36; on from 1.37), a driver of the pod's
//     new volumes whose CSIDriver sets preventPodSchedulingIfMissing must be in the node's
//     CSINode: Unschedulable `<driver> CSI driver is not installed on the node` otherwise.
//
// What the pods on a node and its VolumeAttachments attach is kept per node while neither the
// node (NodeInfo::generation) nor the storage objects (StorageLister::Generation) change: most
// Filter calls only count the new pod's volumes.
//
// Thread safety: Filter runs concurrently; the kept counts are behind a mutex.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "ksched/registry.h"
#include "src/plugins/names.h"

namespace ksched::plugins::node_volume_limits {

inline constexpr char kErrReasonMaxVolumeCountExceeded[] = "node(s) exceed max volume count";

class NodeVolumeLimits final : public PreFilterPlugin,
                               public FilterPlugin,
                               public EnqueueExtensions,
                               public SignPlugin {
 public:
  NodeVolumeLimits(Handle& handle, bool volume_limit_scaling);
  std::string_view Name() const override { return names::kNodeVolumeLimits; }

  // Signs the volumes.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // CSINode Add, CSINode Update (a driver's count grew), Pod Delete (a placed or nominated pod
  // with claims or migrating volumes), PersistentVolumeClaim Add (one of the pod's),
  // VolumeAttachment Delete (the pod has claims or a volume of the attacher), as upstream.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  // The volumes a node's pods and VolumeAttachments attach, as of a node and storage generation.
  // The node's CSINode and counts, kept while neither the node nor the storage changes.
  struct Attached;
  std::shared_ptr<const Attached> AttachedOn(const CycleState& state, const NodeInfo& node);

  Handle& handle_;
  const bool volume_limit_scaling_;
  // Names an unbound claim's volume, so that it never equals a real volume's handle.
  const std::string random_volume_id_prefix_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const Attached>> attached_ ABSL_GUARDED_BY(mu_);
};

// The plugin takes no args; `args` is ignored.
// The plugin's factory, with or without the VolumeLimitScaling gate.
PluginFactory MakeFactory(bool volume_limit_scaling);

}  // namespace ksched::plugins::node_volume_limits
