// VolumeZone: keeps a pod on nodes in the zone and region of its bound PersistentVolumes, as their
// topology labels say (upstream's plugins/volumezone): topology.kubernetes.io/zone and /region and
// their failure-domain.beta.kubernetes.io forms, whose values may list several zones joined by
// "__". A node with none of those labels is not checked. Claims of a WaitForFirstConsumer class
// that are not bound yet are VolumeBinding's to place.
//
//   - PreFilter: Skip for a pod without bound labelled PVs; UnschedulableAndUnresolvable for a
//     claim or PV that is missing (`persistentvolume "pv-1" not found`), a claim without a PV or
//     a class, or an unbound claim of an Immediate class (`PersistentVolume had no name`).
//   - Filter: UnschedulableAndUnresolvable `node(s) had no available volume zone` where the node's
//     label is missing or not among the PV's values.
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

namespace ksched::plugins::volume_zone {

inline constexpr char kErrReasonConflict[] = "node(s) had no available volume zone";

class VolumeZone final : public PreFilterPlugin,
                         public FilterPlugin,
                         public EnqueueExtensions,
                         public SignPlugin {
 public:
  explicit VolumeZone(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kVolumeZone; }

  // Signs the volumes.
  Status SignPod(const api::Pod& pod, std::vector<SignFragment>* out) const override;

  Status PreFilter(CycleState& state, const api::Pod& pod,
                   const std::vector<const NodeInfo*>& nodes, PreFilterResult* result) override;
  Status Filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node) override;

  // StorageClass Add (a WaitForFirstConsumer class), Node Add/UpdateNodeLabel,
  // PersistentVolumeClaim Add/Update (one of the pod's), PersistentVolume Add/Update (new
  // topology labels), as upstream with queueing hints on.
  std::vector<ClusterEventWithHint> EventsToRegister() const override;

 private:
  Handle& handle_;
};

// The plugin takes no args; `args` is ignored.
absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

}  // namespace ksched::plugins::volume_zone
