// VolumeRestrictions: volumes a pod may not share with the pods already placed (upstream's
// plugins/volumerestrictions, 1.36).
//
//   - In-tree disks, on the node: a GCE persistent disk (unless both pods mount it read-only), an
//     AWS EBS volume, an iSCSI IQN (unless both read-only) or an RBD image whose monitors overlap
//     (unless both read-only) that a pod on the node uses already: Unschedulable
//     `node(s) had no available disk`.
//   - ReadWriteOncePod claims, in the whole cluster: a claim with that access mode that another
//     pod (placed or assumed, anywhere) uses already: Unschedulable `node(s) unavailable due to
//     PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod`.
//     Both rejections are Unschedulable, so preemption may evict the pod that holds the disk or
//     the claim (PreFilterExtensions keep the count for its what-ifs).
//   - PreFilter: a claim that does not exist is UnschedulableAndUnresolvable
//     (`persistentvolumeclaim "data" not found`); Skip when there is nothing to check.
//
// Thread safety: stateless; Filter runs concurrently.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ksched/handle.h"
#include "ksched/plugin.h"
#include "ksched/plugin_args.h"
#include "src/plugins/names.h"

namespace ksched::plugins::volume_restrictions {

inline constexpr char kErrReasonDiskConflict[] = "node(s) had no available disk";
inline constexpr char kErrReasonReadWriteOncePodConflict[] =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

class VolumeRestrictions final : public PreFilterPlugin,
                                 public PreFilterExtensions,
                                 public FilterPlugin,
                                 public EnqueueExtensions,
                                 public SignPlugin {
 public:
  explicit VolumeRestrictions(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kVolumeRestrictions; }

  // Signs the volumes.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status AddPod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node) override;
  Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfo& pod_to_remove,
                   const NodeInfo& node) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // Pod Delete (a pod that held one of the disks or claims), Node Add, PersistentVolumeClaim Add
  // (one of the pod's), as upstream with queueing hints on.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  Handle& handle_;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::volume_restrictions
